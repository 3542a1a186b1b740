import Foundation

extension ManagedObjectContext {
    /// Validates every inserted, updated and deleted object; throws one error listing
    /// every problem.
    func validateForSave() throws {
        var problems: [StrataError.Problem] = []
        for object in dirtySet.values {
            if object.state.isDeleted {
                guard object.state.existsInStore else { continue }
                problems += Self.denyProblems(object, in: self)
                problems += Self.run(object) { try $0.validateForDelete() }
            } else if object.state.isInserted || object.isUpdated {
                problems += object.validationProblems()
                problems += Self.run(object) { object in
                    if object.state.isInserted { try object.validateForInsert() } else { try object.validateForUpdate() }
                }
            }
        }
        if !problems.isEmpty {
            throw StrataError(
                .validation,
                "The save failed: \(problems.count) validation problem\(problems.count == 1 ? "" : "s").",
                problems: problems)
        }
    }

    private static func run(_ object: ManagedObject, _ body: (ManagedObject) throws -> Void) -> [StrataError.Problem] {
        do {
            try body(object)
            return []
        } catch let error as StrataError where !error.problems.isEmpty {
            return error.problems
        } catch {
            return [object.problem(nil, "\(error)")]
        }
    }

    /// A deny rule refuses the delete while the relationship has live destinations.
    private static func denyProblems(_ object: ManagedObject, in context: ManagedObjectContext) -> [StrataError.Problem] {
        object.entity.relationships.filter { $0.deleteRule == .deny }.compactMap { relationship in
            let live = object.storage[relationship.slot].objectIDs.filter { id in
                !(context.registeredObject(for: id)?.state.isDeleted ?? false)
            }
            guard !live.isEmpty else { return nil }
            return object.problem(
                relationship.name,
                "the delete is denied: '\(relationship.name)' still has \(live.count) destination\(live.count == 1 ? "" : "s")")
        }
    }
}

extension ManagedObject {
    func problem(_ key: String?, _ reason: String) -> StrataError.Problem {
        StrataError.Problem(entityName: entity.name, object: objectID.description, key: key, reason: reason)
    }

    /// Validates one value for a key against the model's constraints and the object's
    /// custom validation, without changing the object.
    ///
    /// - Throws: `.validation` with the problems found.
    public func validateValue(_ value: PropertyValue, forKey key: String) throws {
        let slot = try slotIndex(forKey: key)
        var candidate = value
        var problems = constraintProblems(slot: slot, value: value)
        do { try validateValue(&candidate, forKey: key) } catch { problems.append(problem(key, "\(error)")) }
        if !problems.isEmpty {
            throw StrataError(.validation, "\(entity.name).\(key) is invalid.", problems: problems)
        }
    }

    /// Every problem of this object's current values: model constraints, then custom
    /// per-key validation.
    func validationProblems() -> [StrataError.Problem] {
        var problems: [StrataError.Problem] = []
        let hasCustomClass = type(of: self) != ManagedObject.self
        for slot in storage.indices {
            let found = constraintProblems(slot: slot, value: storage[slot])
            problems += found
            guard found.isEmpty else { continue }
            // A plain ManagedObject has no custom validation: skip the call (and its key).
            guard hasCustomClass else { continue }
            var value = storage[slot]
            do {
                try validateValue(&value, forKey: entity.slotNames[slot])
                if value != storage[slot] {
                    noteCommittedValue(slot: slot)
                    storage[slot] = value
                }
            } catch let error as StrataError where !error.problems.isEmpty {
                problems += error.problems
            } catch {
                problems.append(problem(entity.slotNames[slot], "\(error)"))
            }
        }
        return problems
    }

    func constraintProblems(slot: Int, value: PropertyValue) -> [StrataError.Problem] {
        switch entity.slotKinds[slot] {
        case .attribute(let index):
            // Borrowed from the entity, not copied: this runs for every slot of every saved object.
            let found = AttributeConstraints.problems(of: value, for: entity.attributes[index])
            return found.isEmpty ? [] : found.map { problem(entity.attributes[index].name, $0) }
        case .relationship(let index):
            let relationship = entity.relationships[index]
            let count = value.objectIDs.count
            if !relationship.isToMany {
                return !relationship.isOptional && count == 0
                    ? [problem(relationship.name, "\(withArticle(entity.destination(of: relationship).name)) is required")] : []
            }
            if count == 0 {
                return relationship.isOptional || relationship.minCount == 0 && relationship.isOptional
                    ? [] : [problem(relationship.name, "at least \(max(relationship.minCount, 1)) destination(s) required, found none")]
            }
            var problems: [StrataError.Problem] = []
            if count < relationship.minCount {
                problems.append(problem(relationship.name, "has \(count) destinations, fewer than the minimum \(relationship.minCount)"))
            }
            if relationship.maxCount > 0, count > relationship.maxCount {
                problems.append(problem(relationship.name, "has \(count) destinations, more than the maximum \(relationship.maxCount)"))
            }
            return problems
        }
    }
}

/// The model-level constraints of attributes.
enum AttributeConstraints {
    static func problems(of value: PropertyValue, for attribute: AttributeDescription) -> [String] {
        if value.isNull {
            return attribute.isOptional ? [] : ["a value is required (non-optional attribute is null)"]
        }
        var problems: [String] = []
        if let min = attribute.minValue, ValueOrdering.compare(value, min) == .orderedAscending {
            problems.append("\(value) is less than the minimum \(min)")
        }
        if let max = attribute.maxValue, ValueOrdering.compare(value, max) == .orderedDescending {
            problems.append("\(value) is greater than the maximum \(max)")
        }
        let length: Int? = switch value {
        case .string(let text): text.count
        case .data(let data): data.count
        default: nil
        }
        if let length {
            if let min = attribute.minLength, length < min {
                problems.append("length \(length) is shorter than the minimum \(min)")
            }
            if let max = attribute.maxLength, length > max {
                problems.append("length \(length) is longer than the maximum \(max)")
            }
        }
        if let pattern = attribute.regularExpression, case .string(let text) = value, !RegexCache.wholeMatch(pattern, text) {
            problems.append("\(value) does not match the pattern \(pattern)")
        }
        return problems
    }
}

/// Compiled regular expressions, shared (validation and MATCHES).
enum RegexCache {
    private static let cache = RegexStore()

    /// Whether `pattern` matches all of `text`; an invalid pattern matches nothing.
    static func wholeMatch(_ pattern: String, _ text: String) -> Bool {
        guard let regex = cache.regex(pattern) else { return false }
        return regex.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }
}

final class RegexStore: @unchecked Sendable {
    private let lock = NSLock()
    private var compiled: [String: NSRegularExpression] = [:]

    func regex(_ pattern: String) -> NSRegularExpression? {
        lock.lock()
        defer { lock.unlock() }
        if let regex = compiled[pattern] { return regex }
        guard let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z") else { return nil }
        if compiled.count > 256 { compiled.removeAll() }
        compiled[pattern] = regex
        return regex
    }
}
