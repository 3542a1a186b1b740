import Foundation
import Strata

/// The code `strata codegen` writes for a composite attribute, inside its class's extension:
/// a `CompositeKey`, a nested struct of the elements (a nested composite a struct inside
/// it), and a property reading and writing the whole value through the elements' typed keys.
///
/// The struct is the composite's name capitalized (`address` → `Address`), or
/// `AddressValue` when a generated class has that name. An element keeps the model's
/// optionality; the property reads nil when every element is NULL, or when a required one
/// is (an object not yet given its composite), and setting nil makes every element NULL.
struct CompositeCodegen {
    /// `public ` or nothing.
    let access: String
    let entity: EntityDescription
    /// Type names a struct must not take (the generated classes').
    let reserved: Set<String>

    func lines(for composite: CompositeAttributeDescription) throws -> [String] {
        let typeName = try structName(composite.name)
        let keyName = ClassGenerator.takenStatics.contains(composite.name) ? composite.name + "Key" : composite.name
        let propertyName = ClassGenerator.takenMembers.contains(composite.name) ? composite.name + "Value" : composite.name
        var lines = [
            "",
            "    /// The composite attribute `\(composite.name)`.",
            "    \(access)static let \(keyName) = CompositeKey(\"\(composite.name)\")",
            "",
            "    /// The composite attribute `\(composite.name)` as one value: nil when every element is NULL.",
            "    \(access)var \(propertyName): \(typeName)? {",
            "        get { \(typeName)(from: self, at: \"\(composite.name)\") }",
            "        set { \(typeName).store(newValue, in: self, at: \"\(composite.name)\") }",
            "    }",
            "",
        ]
        lines += try structLines(composite, typeName: typeName, indent: "    ")
        return lines
    }

    private func structLines(_ composite: CompositeAttributeDescription, typeName: String, indent: String) throws -> [String] {
        var fields: [(name: String, type: String, optional: Bool, read: String, write: String)] = []
        for element in composite.elements {
            try check(element.name, in: composite)
            let type = ClassGenerator.swiftType(element.attributeType)
            fields.append((element.name, type, element.isOptional,
                           "object[AttributeKey<\(type)?>(path + \".\(element.name)\")]",
                           "object[AttributeKey<\(type)?>(path + \".\(element.name)\")] = value?.\(escaped(element.name))"))
        }
        var nestedLines: [String] = []
        for nested in composite.composites {
            try check(nested.name, in: composite)
            let nestedType = try structName(nested.name)
            fields.append((nested.name, nestedType, true, "\(nestedType)(from: object, at: path + \".\(nested.name)\")",
                           "\(nestedType).store(value?.\(escaped(nested.name)), in: object, at: path + \".\(nested.name)\")"))
            nestedLines += [""] + (try structLines(nested, typeName: nestedType, indent: indent + "    "))
        }
        let inner = indent + "    "
        var lines = [
            "\(indent)/// The elements of the composite attribute `\(composite.name)`\(composite.typeName.map { " (`\($0)`)" } ?? "").",
            "\(indent)\(access)struct \(typeName): Hashable, Sendable {",
        ]
        for field in fields {
            lines.append("\(inner)\(access)var \(escaped(field.name)): \(field.type)\(field.optional ? "?" : "")")
        }
        let parameters = fields.map { "\($0.name): \($0.type)\($0.optional ? "? = nil" : "")" }.joined(separator: ", ")
        lines += [
            "",
            "\(inner)/// Creates a value.",
            "\(inner)\(access)init(\(parameters)) {",
        ]
        lines += fields.map { "\(inner)    self.\(escaped($0.name)) = \(escaped($0.name))" }
        lines += [
            "\(inner)}",
            "",
            "\(inner)/// The value stored under `path` (nil when every element is NULL or a required one is).",
            "\(inner)\(access)init?(from object: ManagedObject, at path: String) {",
        ]
        for (index, field) in fields.enumerated() { lines.append("\(inner)    let v\(index) = \(field.read)") }
        lines.append("\(inner)    if \(fields.indices.map { "v\($0) == nil" }.joined(separator: " && ")) { return nil }")
        let required = fields.indices.filter { !fields[$0].optional }
        if !required.isEmpty {
            lines.append("\(inner)    guard \(required.map { "let v\($0)" }.joined(separator: ", ")) else { return nil }")
        }
        lines.append("\(inner)    self.init(\(fields.enumerated().map { "\($1.name): v\($0)" }.joined(separator: ", ")))")
        lines += [
            "\(inner)}",
            "",
            "\(inner)/// Stores `value` under `path` (nil: every element NULL).",
            "\(inner)\(access)static func store(_ value: Self?, in object: ManagedObject, at path: String) {",
        ]
        lines += fields.map { "\(inner)    \($0.write)" }
        lines.append("\(inner)}")
        lines += nestedLines
        lines.append("\(indent)}")
        return lines
    }

    private func structName(_ name: String) throws -> String {
        let capitalized = name.prefix(1).uppercased() + name.dropFirst()
        return reserved.contains(capitalized) || capitalized == "Self" ? capitalized + "Value" : capitalized
    }

    private func escaped(_ name: String) -> String { ClassGenerator.keywords.contains(name) ? "`\(name)`" : name }

    private func check(_ name: String, in composite: CompositeAttributeDescription) throws {
        guard ClassGenerator.isIdentifier(name) else {
            throw StrataError(.invalidArgument, "Element \(entity.name).\(composite.name).\(name) is not a Swift identifier; codegen cannot name it.",
                              context: ["entity": entity.name, "property": composite.name + "." + name])
        }
    }
}
