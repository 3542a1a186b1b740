import Foundation
import Testing

/// StrataStorage (SQLite, LZ4, the byte codecs, StrataError) names no model or object type
/// (docs/ARCHITECTURE.md, "Targets"). The compiler already keeps it from importing Strata,
/// which depends on it; this says the rule where a reader of the tests looks, and catches
/// what the compiler cannot: a model type's name in a comment or a string, the first step
/// of a dependency coming back.
@Suite struct StorageLayer {
    /// Names of the model and object layer; an identifier containing one
    /// (`NSManagedObject`, `StoreFetchRequest`, `PersistentStoreCoordinator`) counts.
    static let modelNames = [
        "ManagedObject", "ManagedObjectContext", "ManagedObjectModel", "EntityDescription",
        "AttributeDescription", "RelationshipDescription", "PersistentStore", "FetchRequest", "PropertyValue",
    ]

    @Test func storageNamesNoModelOrObjectType() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/StrataStorage")
        let importsStrata = try Regex(#"^\s*(?:@\w+\s+)*import\s+Strata\s*$"#)
        let identifier = try Regex(#"[A-Za-z_][A-Za-z0-9_]*"#)
        var files = 0
        var offences: [String] = []
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            files += 1
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() {
                let place = "\(file.lastPathComponent):\(number + 1)"
                if try importsStrata.wholeMatch(in: line) != nil { offences.append("\(place) imports Strata") }
                for match in line.matches(of: identifier) {
                    let word = String(line[match.range])
                    if let name = Self.modelNames.first(where: { word.contains($0) }) {
                        offences.append("\(place) names \(word) (\(name))")
                    }
                }
            }
        }
        #expect(files > 10, "found the sources at \(folder.path)")
        #expect(offences == [], "StrataStorage must name no model or object type")
    }
}
