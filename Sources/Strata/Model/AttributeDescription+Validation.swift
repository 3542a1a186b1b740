import Foundation

extension AttributeDescription {
    /// Every problem with the attribute's own declaration: a default of the wrong type,
    /// constraints that do not apply to the type, a minimum above its maximum, a regular
    /// expression that does not compile, a default outside its own constraints.
    ///
    /// ``ManagedObjectModel`` lists these with the entity and attribute name.
    func _declarationProblems() -> [String] {
        var problems: [String] = []
        let type = attributeType
        if let reason = ModelValueRules.defaultValueProblem(self) { problems.append(reason) }
        let defaultValue = ModelValueRules.coerce(defaultValue, to: type) ?? .null

        // Value bounds: numbers and dates.
        var bounds: [PropertyValue?] = [nil, nil]
        for (position, (label, bound)) in [("minValue", minValue), ("maxValue", maxValue)].enumerated() {
            guard let bound, !bound.isNull else { continue }
            guard type.isNumeric || type == .date else {
                problems.append("\(label) applies to number and date attributes, not \(type.rawValue)")
                continue
            }
            guard let coerced = ModelValueRules.coerce(bound, to: type) else {
                problems.append("\(label) \(bound) is not \(withArticle(type.rawValue))")
                continue
            }
            bounds[position] = coerced
        }
        if let low = bounds[0], let high = bounds[1], Self._compare(low, high) == .orderedDescending {
            problems.append("minValue \(low) is larger than maxValue \(high)")
        }
        if !defaultValue.isNull {
            if let low = bounds[0], Self._compare(defaultValue, low) == .orderedAscending {
                problems.append("default value \(defaultValue) is below minValue \(low)")
            }
            if let high = bounds[1], Self._compare(defaultValue, high) == .orderedDescending {
                problems.append("default value \(defaultValue) is above maxValue \(high)")
            }
        }

        // Length bounds: strings and data.
        if minLength != nil || maxLength != nil {
            if type.hasLength {
                if let low = minLength, let high = maxLength, low > high {
                    problems.append("minLength \(low) is larger than maxLength \(high)")
                }
                let length: Int?
                switch defaultValue {
                case .string(let text): length = text.count
                case .data(let bytes): length = bytes.count
                default: length = nil
                }
                if let length, let low = minLength, length < low {
                    problems.append("default value \(defaultValue) is shorter than minLength \(low)")
                }
                if let length, let high = maxLength, length > high {
                    problems.append("default value \(defaultValue) is longer than maxLength \(high)")
                }
            } else {
                problems.append("minLength and maxLength apply to string and binary data attributes, not \(type.rawValue)")
            }
        }

        // Regular expression: strings.
        if let pattern = regularExpression {
            if type != .string {
                problems.append("a regular expression applies to string attributes, not \(type.rawValue)")
            } else if (try? NSRegularExpression(pattern: pattern)) == nil {
                problems.append("the regular expression '\(pattern)' does not compile")
            } else if case .string(let text) = defaultValue, Self._matchesWhole(pattern, text) == false {
                problems.append("default value \(defaultValue) does not match the regular expression '\(pattern)'")
            }
        }
        return problems
    }

    /// Orders two values already coerced to the same attribute type; nil when not comparable.
    static func _compare(_ left: PropertyValue, _ right: PropertyValue) -> ComparisonResult? {
        func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
            a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        }
        switch (left, right) {
        case (.integer(let a), .integer(let b)): return order(a, b)
        case (.decimal(let a), .decimal(let b)): return order(a, b)
        case (.date(let a), .date(let b)): return order(a, b)
        default:
            guard let a = left.numericValue, let b = right.numericValue, !a.isNaN, !b.isNaN else { return nil }
            return order(a, b)
        }
    }

    /// Whether the whole text matches the pattern (NSPredicate `MATCHES` semantics); nil when
    /// the anchored pattern cannot be built.
    static func _matchesWhole(_ pattern: String, _ text: String) -> Bool? {
        guard let anchored = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z") else { return nil }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return anchored.firstMatch(in: text, options: [], range: range) != nil
    }
}
