import Foundation

extension FetchRequest where ResultType: ManagedObject {
    /// Creates a fetch request from Foundation's `#Predicate` and `SortDescriptor`, for the
    /// entity of the class (``ManagedObject/entityName``): SwiftData's `FetchDescriptor`
    /// shape.
    ///
    /// ```swift
    /// let request = FetchRequest<Employee>(
    ///     predicate: #Predicate { $0.salary > 100_000 && $0.department?.name == "Research" },
    ///     sortBy: [SortDescriptor(\.lastName)])
    /// let researchers = try context.fetch(request)
    /// ```
    ///
    /// Both are translated to ``FetchPredicate`` and ``FetchSortDescriptor``
    /// (docs/PREDICATES.md, "Swift predicates"), so the answer is the one the equivalent
    /// string predicate gives, in memory and in SQL. As with SwiftData, something that
    /// cannot be translated is reported by the fetch, not here: the request's fetch throws
    /// the error naming the construct (and ``predicate`` is nil meanwhile).
    /// - Parameters:
    ///   - predicate: which objects; nil for all.
    ///   - sortBy: the order; the object ID breaks ties.
    public convenience init(predicate: Predicate<ResultType>? = nil, sortBy: [SortDescriptor<ResultType>] = []) {
        self.init(naming: ResultType.entityName, predicate: nil, sortDescriptors: [])
        if let predicate {
            do { self.predicate = try FetchPredicate(predicate) } catch { predicateTranslationError = error }
        }
        do { sortDescriptors = try sortBy.map { try FetchSortDescriptor($0) } } catch { sortTranslationError = error }
    }
}

extension FetchPredicate {
    /// Translates a Foundation `Predicate` over a model class (what `#Predicate` builds).
    ///
    /// ```swift
    /// let rich = try FetchPredicate(#Predicate<Employee> { $0.salary > 100_000 })
    /// rich.predicateFormat   // "salary > 100000"
    /// ```
    /// - Throws: `.invalidArgument` naming a construct Strata cannot translate
    ///   (`PredicateExpressions.TypeCheck`); `.unknownKey` naming a key path the class does
    ///   not map (``ManagedObject/propertyName(for:)``).
    public init<Root: ManagedObject>(_ predicate: Predicate<Root>) throws {
        self = try SwiftPredicateTranslator.translate(predicate)
    }
}

extension FetchSortDescriptor {
    /// Translates a Foundation `SortDescriptor` over a model class: its key path to the
    /// property's name, its order, and its string comparator (none or `.lexical`:
    /// ``Comparison/binary``; localized comparators: ``Comparison/localized``).
    ///
    /// ```swift
    /// let order = try FetchSortDescriptor(SortDescriptor(\Employee.salary, order: .reverse))
    /// ```
    /// A key path through to-ones (`SortDescriptor(\Employee.department?.name)`) sorts by
    /// the dotted key (`department.name`) when every class on the way is an `@Entity`
    /// class (``ManagedObject/propertyKeyPaths()``).
    /// - Throws: `.unknownKey` naming a key path the class does not map (one through a
    ///   relationship of a class without `@Entity` is one: write
    ///   `FetchSortDescriptor("department.name")`); `.invalidArgument` for a descriptor
    ///   without a key path.
    public init<Root: ManagedObject>(_ descriptor: SortDescriptor<Root>) throws {
        guard let keyPath = descriptor.keyPath else {
            throw StrataError(.invalidArgument, "A SortDescriptor<\(Root.self)> without a key path cannot be translated to a fetch sort descriptor.",
                              context: .init { $0.entity = Root.entityName })
        }
        let name = try Root.propertyName(for: keyPath) ?? RelationshipKeyPath.name(of: keyPath, from: Root.self)
            ?? Root.requirePropertyName(for: keyPath, usedIn: "a SortDescriptor")
        let comparison: Comparison = switch descriptor.stringComparator {
        case nil: .binary
        case let comparator? where comparator == String.StandardComparator(.lexical, order: comparator.order): .binary
        case _?: .localized
        }
        self.init(name, ascending: descriptor.order == .forward, comparison: comparison)
    }
}
