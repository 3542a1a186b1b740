import Foundation

/// The rows of a batch insert as a store takes them: one at a time, each already checked
/// against the model (types coerced, required values, bounds, lengths, patterns,
/// relationship destination entities and counts) and laid out by slot, with the model's
/// defaults for the properties the row leaves out.
///
/// A store pulls rows with ``next()`` while it writes, so a handler-driven request never
/// holds more than the store's chunk of rows. Not thread-safe: the store runs it on the
/// thread that executes the request (``ManagedObjectContext/executeBatch(_:)-(BatchInsertRequest)``).
public final class StoreBatchInsert: @unchecked Sendable, Hashable {
    /// One row: its values by slot, and the ID the request gave it, if any.
    public struct Row: Sendable, Hashable {
        /// The permanent ID reserved for the row (``ManagedObjectContext/reserveObjectIDs(forEntityName:count:)``),
        /// or nil for the store to allocate a key.
        public var objectID: ManagedObjectID?
        /// The values, one per slot of the entity.
        public var values: [PropertyValue]

        /// Creates a row.
        public init(objectID: ManagedObjectID? = nil, values: [PropertyValue]) {
            self.objectID = objectID
            self.values = values
        }
    }

    /// The entity whose records are inserted.
    public let entity: EntityDescription
    /// The number of the last row ``next()`` returned (from 1); 0 before the first.
    public private(set) var rowNumber = 0
    /// Which inserted IDs the store collects: all of them, in order (the default, for
    /// ``BatchResultType/objectIDs``), only the set contexts merge (`.count`), or none
    /// (`.statusOnly`: per-row memory stays bounded by a chunk however many rows come).
    var listing = InsertedIDListing.ordered
    /// How rows whose keys a uniqueness constraint of the entity already holds are
    /// resolved: the executing context's policy (``BatchInsertUniqueness``).
    var mergePolicy = MergePolicy.error
    private let produce: () throws -> Row?

    /// Creates a row source from a closure returning checked rows (nil when done).
    public init(entity: EntityDescription, rows: @escaping () throws -> Row?) {
        self.entity = entity
        self.produce = rows
    }

    /// The next row, or nil when there are no more.
    /// - Throws: the row's validation error, naming its number.
    public func next() throws -> Row? {
        guard let row = try produce() else { return nil }
        rowNumber += 1
        return row
    }

    /// Which inserted IDs a batch insert keeps for its result.
    enum InsertedIDListing: Sendable {
        /// None: the result gives the count only, and ``BatchResult/changes`` lists no inserts.
        case none
        /// The set, for ``BatchResult/changes``.
        case set
        /// The set and the list in insertion order, for ``BatchResult/objectIDs``.
        case ordered
    }

    /// Identity: two sources are equal only when they are the same source.
    public static func == (lhs: StoreBatchInsert, rhs: StoreBatchInsert) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Checks batch insert rows against the model and lays them out by slot.
struct BatchInsertRowChecker {
    let entity: EntityDescription
    /// The row every row starts from: attribute defaults, empty relationships.
    let template: [PropertyValue]
    /// Per slot, what the check of a stored attribute needs, read from the model once: the
    /// check copied the slot's ``AttributeDescription`` (a large struct) for every value
    /// of every row (docs/ARCHITECTURE.md, "Batch requests and merges"). Nil for other
    /// slots.
    private let attributeChecks: [AttributeCheck?]

    /// A stored attribute's type, and whether it has constraints beyond being required.
    private struct AttributeCheck {
        let type: AttributeType
        let isOptional: Bool
        let isConstrained: Bool
    }

    init(entity: EntityDescription) {
        self.entity = entity
        var template = [PropertyValue](repeating: .null, count: entity.slotCount)
        for slot in template.indices {
            switch entity.slotKinds[slot] {
            case .attribute(let index):
                let attribute = entity.attributes[index]
                template[slot] = attribute.isTransient ? .null : attribute.defaultValue
            case .relationship(let index):
                template[slot] = entity.relationships[index].isToMany ? .objects([]) : .null
            }
        }
        self.template = template
        attributeChecks = entity.slotKinds.map { kind in
            guard case .attribute(let index) = kind, !entity.attributes[index].isTransient else { return nil }
            let attribute = entity.attributes[index]
            let isConstrained = attribute.minValue != nil || attribute.maxValue != nil || attribute.minLength != nil
                || attribute.maxLength != nil || attribute.regularExpression != nil
            return AttributeCheck(type: attribute.attributeType, isOptional: attribute.isOptional, isConstrained: isConstrained)
        }
    }

    /// The row of a dictionary, checked; its ``BatchInsertRequest/objectIDKey`` entry gives
    /// the row's ID.
    func row(_ values: [String: PropertyValue], number: Int) throws -> StoreBatchInsert.Row {
        var row = template
        var objectID: ManagedObjectID?
        for (key, value) in values {
            if key == BatchInsertRequest.objectIDKey {
                objectID = try reservedID(value, number: number)
                continue
            }
            guard let slot = entity.slot(forKey: key) else {
                throw StrataError(.unknownKey, "Row \(number) of the batch insert sets \(input: key), which is not a property of entity '\(entity.name)'.",
                                  context: context(number, key))
            }
            row[slot] = value
        }
        try check(&row, number: number) { values[$0] != nil }
        return StoreBatchInsert.Row(objectID: objectID, values: row)
    }

    /// A row laid out by slot, checked; its ID must be a reserved one of the entity.
    func row(slots row: StoreBatchInsert.Row, number: Int) throws -> StoreBatchInsert.Row {
        var row = row
        guard row.values.count == template.count else {
            throw StrataError(.invalidArgument, "Row \(number) of the batch insert has \(row.values.count) values; entity '\(entity.name)' has \(template.count) slots.",
                              context: .init { $0.entity = entity.name; $0.row = number })
        }
        if let id = row.objectID { row.objectID = try reservedID(.object(id), number: number) }
        try check(&row.values, number: number)
        return row
    }

    /// Whether `ModelValueRules.coerce(value, to: type)` gives `value` itself: null, or a
    /// value of the type's own kind (in range for an integer, double precision for a double).
    @inline(__always)
    private static func isExact(_ value: PropertyValue, _ type: AttributeType) -> Bool {
        switch (type.valueKind, value) {
        case (_, .null), (.string, .string), (.boolean, .boolean), (.date, .date), (.data, .data), (.uuid, .uuid),
             (.uri, .uri), (.decimal, .decimal):
            return true
        case (.integer, .integer(let number)):
            return type == .integer64 || type.integerRange?.contains(number) == true
        case (.double, .double):
            return !type.isSinglePrecision
        default:
            return false
        }
    }

    private func reservedID(_ value: PropertyValue, number: Int) throws -> ManagedObjectID {
        let key = BatchInsertRequest.objectIDKey
        guard case .object(let id) = value else {
            throw StrataError(.typeMismatch, "Row \(number) of the batch insert gives \(input: key) \(withArticle(ModelValueRules.kindName(value))) value; it takes .object(ID) of a reserved \(entity.name) ID.",
                              context: context(number, key))
        }
        guard id.entity === entity, !id.isTemporaryID else {
            throw invalid(number, key, "\(id) is not a permanent \(entity.name) ID (reserve them with reserveObjectIDs(forEntityName:count:))")
        }
        return id
    }

    /// Checks and coerces a slot-ordered row in place. `sets`: whether the row set a key (nil:
    /// a non-null value says so), so that a transient key is refused only when the row set it.
    func check(_ row: inout [PropertyValue], number: Int, sets: ((String) -> Bool)? = nil) throws {
        for slot in row.indices {
            switch entity.slotKinds[slot] {
            case .attribute(let index):
                if let plan = attributeChecks[slot] {
                    // A value already of the attribute's kind (what an import's cells
                    // become) stays as it is: not copied out and written back.
                    if !plan.isConstrained, Self.isExact(row[slot], plan.type) {
                        if plan.isOptional || !row[slot].isNull { continue }
                    }
                    // The common case without a copy of the attribute; an error (or a
                    // constraint to check) reads it from the model.
                    if let coerced = ModelValueRules.coerce(row[slot], to: plan.type),
                       !plan.isConstrained, plan.isOptional || !coerced.isNull {
                        row[slot] = coerced
                        continue
                    }
                }
                let attribute = entity.attributes[index]
                if attribute.isTransient {
                    if sets?(attribute.name) ?? !row[slot].isNull {
                        throw StrataError(.invalidArgument, "Row \(number) of the batch insert sets the transient attribute '\(entity.name).\(attribute.name)', which the store does not hold.",
                                          context: context(number, attribute.name))
                    }
                    row[slot] = .null
                    continue
                }
                if attribute.isDerived {
                    // Computed when the row is written (BatchDerivations), whatever the row says.
                    row[slot] = .null
                    continue
                }
                guard let coerced = ModelValueRules.coerce(row[slot], to: attribute.attributeType) else {
                    throw StrataError(
                        .typeMismatch,
                        "Row \(number) of the batch insert sets '\(entity.name).\(attribute.name)' to \(withArticle(ModelValueRules.kindName(row[slot]))) value (\(row[slot])); the attribute is \(withArticle(attribute.attributeType.rawValue)).",
                        context: context(number, attribute.name))
                }
                row[slot] = coerced
                let problems = AttributeConstraints.problems(of: coerced, for: attribute)
                if !problems.isEmpty {
                    throw invalid(number, attribute.name, problems.joined(separator: "; "))
                }
            case .relationship(let index):
                let relationship = entity.relationships[index]
                if relationship.isTransient {
                    row[slot] = relationship.isToMany ? .objects([]) : .null
                    continue
                }
                try checkRelationship(relationship, &row[slot], number: number)
            }
        }
    }

    private func checkRelationship(_ relationship: RelationshipDescription, _ value: inout PropertyValue, number: Int) throws {
        let destination = entity.destination(of: relationship)
        let ids: [ManagedObjectID]
        switch (relationship.isToMany, value) {
        case (false, .null): ids = []
        case (false, .object(let id)): ids = [id]
        case (true, .null):
            value = .objects([])
            ids = []
        case (true, .objects(let members)): ids = Array(members)
        default:
            throw StrataError(
                .typeMismatch,
                "Row \(number) of the batch insert sets the \(relationship.isToMany ? "to-many" : "to-one") relationship '\(entity.name).\(relationship.name)' to \(withArticle(ModelValueRules.kindName(value))) value; it takes \(relationship.isToMany ? ".objects([IDs])" : ".object(ID)") of \(destination.name) records.",
                context: context(number, relationship.name))
        }
        for id in ids {
            guard id.entity.isKind(of: destination) else {
                throw StrataError(.typeMismatch, "Row \(number) of the batch insert sets '\(entity.name).\(relationship.name)' to \(id), \(withArticle(id.entity.name)); the relationship holds \(destination.name) records.",
                                  context: context(number, relationship.name))
            }
            guard !id.isTemporaryID else {
                throw invalid(number, relationship.name, "\(id) is a temporary ID; a batch insert takes IDs of saved records")
            }
        }
        let count = ids.count
        if !relationship.isToMany {
            if !relationship.isOptional && count == 0 { throw invalid(number, relationship.name, "\(withArticle(destination.name)) is required") }
            return
        }
        if count == 0, !relationship.isOptional {
            throw invalid(number, relationship.name, "at least \(max(relationship.minCount, 1)) destination(s) required, found none")
        }
        if count > 0, count < relationship.minCount {
            throw invalid(number, relationship.name, "has \(count) destinations, fewer than the minimum \(relationship.minCount)")
        }
        if relationship.maxCount > 0, count > relationship.maxCount {
            throw invalid(number, relationship.name, "has \(count) destinations, more than the maximum \(relationship.maxCount)")
        }
    }

    private func context(_ number: Int, _ key: String) -> StrataError.Context {
        .init { $0.entity = entity.name; $0.key = key; $0.row = number }
    }

    func invalid(_ number: Int, _ key: String, _ reason: String) -> StrataError {
        StrataError(.validation, "Row \(number) of the batch insert has an invalid '\(entity.name).\(key)': \(reason).",
                    problems: [StrataError.Problem(entityName: entity.name, object: "row \(number)", key: key, reason: reason)],
                    context: context(number, key))
    }
}
