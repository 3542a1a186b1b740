import Foundation

/// Where in a model JSON document a value sits, for error messages.
struct ModelJSONLocation {
    /// The JSON path, e.g. `entities[1].attributes[0]`.
    var path: String
    /// The entity being read, once its name is known.
    var entity: String?
    /// What kind of property is being read ("attribute", "relationship", ...).
    var propertyKind: String?
    /// The property's name, once known.
    var property: String?

    /// The location of an item inside this one.
    func appending(_ component: String) -> ModelJSONLocation {
        var copy = self
        copy.path += component.hasPrefix("[") || path.isEmpty ? component : "." + component
        return copy
    }

    /// A `.modelFile` error at this location, naming the entity, property and field.
    func error(field: String?, _ reason: String) -> StrataError {
        let fullPath = field.map { path.isEmpty ? $0 : path + "." + $0 } ?? path
        var names: [String] = []
        let jsonPath = fullPath.isEmpty ? "(root)" : fullPath
        if let entity { names.append("entity '\(entity)'") }
        if let property { names.append("\(propertyKind ?? "property") '\(property)'") }
        if let field { names.append("field '\(field)'") }
        let place = names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"
        return StrataError(.modelFile, "Invalid model JSON at \(jsonPath)\(place): \(reason).",
                           context: .init { $0.entity = entity; $0.key = property; $0.field = field; $0.jsonPath = jsonPath })
    }
}

/// Reads the members of one JSON object strictly: each typed accessor checks the kind, and
/// ``finish()`` refuses any key that no accessor asked for.
struct _ModelJSONObjectReader {
    private let members: [String: JSONValue]
    var location: ModelJSONLocation
    private var consumed: Set<String> = []

    init(_ json: JSONValue, at location: ModelJSONLocation) throws {
        guard let members = json.dictionaryValue else {
            throw location.error(field: nil, "expected an object, found \(json.kindName)")
        }
        self.members = members
        self.location = location
    }

    /// The raw value of a key, or nil when absent (or `null`).
    mutating func value(_ key: String) -> JSONValue? {
        consumed.insert(key)
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    mutating func requiredString(_ key: String) throws -> String {
        guard let text = try string(key) else { throw location.error(field: key, "the field is required") }
        return text
    }

    mutating func string(_ key: String) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else {
            throw location.error(field: key, "expected a string, found \(value.kindName)")
        }
        return text
    }

    mutating func bool(_ key: String, default defaultValue: Bool) throws -> Bool {
        guard let value = value(key) else { return defaultValue }
        guard case .bool(let flag) = value else {
            throw location.error(field: key, "expected true or false, found \(value.kindName)")
        }
        return flag
    }

    /// A non-negative integer that fits in `Int`.
    mutating func count(_ key: String) throws -> Int? {
        guard let value = value(key) else { return nil }
        guard case .number(let text) = value, let number = Int(text), number >= 0 else {
            throw location.error(field: key, "expected a non-negative integer, found \(value.description)")
        }
        return number
    }

    mutating func array(_ key: String) throws -> [JSONValue] {
        guard let value = value(key) else { return [] }
        guard case .array(let items) = value else {
            throw location.error(field: key, "expected an array, found \(value.kindName)")
        }
        return items
    }

    mutating func stringArray(_ key: String) throws -> [String] {
        try array(key).enumerated().map { index, item in
            guard case .string(let text) = item else {
                throw location.error(field: "\(key)[\(index)]", "expected a string, found \(item.kindName)")
            }
            return text
        }
    }

    mutating func stringDictionary(_ key: String) throws -> [String: String] {
        guard let value = value(key) else { return [:] }
        guard let members = value.dictionaryValue else {
            throw location.error(field: key, "expected an object of strings, found \(value.kindName)")
        }
        var result: [String: String] = [:]
        for (name, item) in members {
            guard case .string(let text) = item else {
                throw location.error(field: "\(key).\(name)", "expected a string, found \(item.kindName)")
            }
            result[name] = text
        }
        return result
    }

    /// Refuses keys no accessor read.
    func finish() throws {
        let unknown = members.keys.filter { !consumed.contains($0) }.sorted()
        if let first = unknown.first {
            throw location.error(field: first, "unknown field '\(first)'")
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// A short rendering for error messages.
    package var description: String {
        switch self {
        case .number(let text): return text
        case .string(let text): return text.debugDescription
        default: return kindName
        }
    }
}
