import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that serves StrataModels' macros.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        EntityMacro.self, EntityPropertyMacro.self, AnnotationMacro.self, DeclarationMarkerMacro.self, CompositeMacro.self, FetchedPropertyMacro.self,
    ]
}
