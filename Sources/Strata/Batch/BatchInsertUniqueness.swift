import Foundation
import OrderedCollections

/// Keeps a batch insert's rows to the entity's uniqueness constraints, as a save keeps its
/// objects (docs/SEMANTICS.md, "Batch inserts and uniqueness constraints"). For each chunk
/// of rows, before it is written:
///
/// - its keys are looked up in the store (one fetch per 256 keys and constraint, through
///   the constraint's index) and among the records this request already wrote;
/// - a row whose key a record, or an earlier row of the request, holds is a conflict. Under
///   ``MergePolicy/error`` the request throws `.constraintConflict` naming the rows (at most
///   ``namedConflicts``), the constraint and the holders, and nothing is written. Under the
///   other policies the row is merged into the holder, which keeps its identity — an
///   upsert, as Core Data's `NSBatchInsertRequest` does over constrained entities: the
///   object-trump policies take the row's values (``MergePolicy/overwrite``: every attribute;
///   ``MergePolicy/mergeByPropertyObjectTrump``: those differing from the model's default,
///   as a save merges a new object), ``MergePolicy/mergeByPropertyStoreTrump`` only fills
///   the holder's nil attributes and ``MergePolicy/rollback`` drops the row.
///
/// A row that would merge must not name relationships or take a reserved ID: the merge
/// moves attribute values only, and such a row is refused rather than losing them.
///
/// **Memory.** Records written by earlier chunks may not be visible to the store's fetch
/// until the request commits (a document holds them in its write), so the request keeps,
/// per constraint, the hash of every key it wrote and the record holding it: one
/// dictionary entry (about 32 bytes) per row and constraint, for constrained entities
/// only (docs/LIMITS.md, "Batch inserts").
struct BatchInsertUniqueness {
    /// How many conflicting rows an error names; the rest are counted.
    static let namedConflicts = 5
    /// How many characters of one value an error quotes.
    static let quotedCharacters = 32

    let entity: EntityDescription
    let constraints: [UniquenessConstraint]
    let policy: MergePolicy
    /// A record's values as the write sees them, or nil when it does not exist.
    let values: (ManagedObjectID) throws -> [PropertyValue]?
    /// The store's fetch (records written before the request, and those of earlier
    /// chunks the store already shows).
    let fetch: (StoreFetchRequest) throws -> [ManagedObjectID]
    /// Per constraint: a key's hash → the record this request wrote it to.
    private var written: [[Int: ManagedObjectID]]
    /// Per constraint: further records whose keys share a hash (collisions, and records
    /// whose key a later merge changed).
    private var collided: [[Int: [ManagedObjectID]]]

    /// The checker for `entity`'s rows; nil when no uniqueness constraint applies to it.
    init?(entity: EntityDescription, policy: MergePolicy, values: @escaping (ManagedObjectID) throws -> [PropertyValue]?,
          fetch: @escaping (StoreFetchRequest) throws -> [ManagedObjectID]) {
        let constraints = entity.effectiveUniquenessConstraints
        guard !constraints.isEmpty else { return nil }
        self.entity = entity
        self.constraints = constraints
        self.policy = policy
        self.values = values
        self.fetch = fetch
        written = Array(repeating: [:], count: constraints.count)
        collided = Array(repeating: [:], count: constraints.count)
    }

    /// Who holds a key: a record (stored, or written by an earlier chunk), or a row of
    /// the chunk by index.
    private enum Holder: Hashable {
        case record(ManagedObjectID)
        case row(Int)
    }

    /// One conflict an error names.
    private struct Conflict {
        let constraint: UniquenessConstraint
        let text: String
        let number: Int
    }

    /// Resolves the chunk's conflicts by the policy: rows merged into others leave the
    /// chunk; records they merge into get update operations.
    /// - Returns: The update operations and the records they change.
    /// - Throws: `.constraintConflict` under ``MergePolicy/error``, or for a row that cannot
    ///   merge (it names relationships or a reserved ID, its keys are held by different
    ///   records, or the merge would make a key no row or record had).
    mutating func resolve(_ chunk: inout BatchInsertChunk) throws -> (operations: [ChangeOperation], updated: Set<ManagedObjectID>) {
        let rowKeys = constraints.map { constraint in chunk.rows.map { constraint.key($0) } }
        var records: OrderedDictionary<ManagedObjectID, (old: [PropertyValue], new: [PropertyValue])> = [:]
        var owners: [[[PropertyValue]: Holder]] = []
        for index in constraints.indices {
            owners.append(try holders(of: Set(rowKeys[index].compactMap { $0 }), constraint: index, records: &records))
        }
        var conflicts: [Conflict] = []
        var conflictCount = 0
        var dropped: [Int] = []
        for row in chunk.rows.indices {
            var targets: [Holder] = []
            var first: (constraint: Int, holder: Holder)?
            for index in constraints.indices {
                guard let key = rowKeys[index][row], let holder = owners[index][key] else { continue }
                if first == nil { first = (index, holder) }
                if !targets.contains(holder) { targets.append(holder) }
            }
            guard let first else {
                for index in constraints.indices { if let key = rowKeys[index][row] { owners[index][key] = .row(row) } }
                continue
            }
            let number = chunk.numbers[row]
            guard policy != .error else {
                conflictCount += 1
                if conflicts.count < Self.namedConflicts {
                    conflicts.append(conflict(number, constraint: first.constraint, key: rowKeys[first.constraint][row]!,
                                              holder: first.holder, chunk: chunk))
                }
                continue
            }
            let target = targets[0]
            guard targets.count == 1 else {
                throw refusal(number, "its keys are held by different records (\(targets.prefix(2).map { name(of: $0, chunk: chunk) }.joined(separator: " and "))), and it can merge into one only")
            }
            guard chunk.ids[row] == nil else {
                throw refusal(number, "\(name(of: target, chunk: chunk)) holds its key, and a row with a reserved ID keeps it rather than merge")
            }
            if let relationship = entity.relationships.first(where: { !$0.isTransient && !chunk.rows[row][$0.slot].objectIDs.isEmpty }) {
                throw refusal(number, "\(name(of: target, chunk: chunk)) holds its key, and the row sets the relationship '\(relationship.name)', which a merge does not move; insert it with a save")
            }
            let before: [PropertyValue], targetEntity: EntityDescription
            switch target {
            case .row(let index): (before, targetEntity) = (chunk.rows[index], entity)
            case .record(let id): (before, targetEntity) = (records[id]!.new, id.entity)
            }
            let merged = merge(chunk.rows[row], into: before, of: targetEntity)
            // A constraint's slots mean its attributes only in its entity's tree (a
            // sibling sub-entity lays other attributes there).
            for index in constraints.indices where targetEntity.isKind(of: constraints[index].entity) {
                let old = constraints[index].key(before), new = constraints[index].key(merged)
                guard old != new else { continue }
                if let new, new != rowKeys[index][row] {
                    throw refusal(number, "merging it into \(name(of: target, chunk: chunk)) would give that record the new key \(Self.text(constraints[index], new)), which was looked up for no row")
                }
                if let old, owners[index][old] == target { owners[index][old] = nil }
                if let new { owners[index][new] = target }
            }
            switch target {
            case .row(let index): chunk.rows[index] = merged
            case .record(let id): records[id]!.new = merged
            }
            dropped.append(row)
        }
        if !conflicts.isEmpty { throw conflictError(conflicts, count: conflictCount) }
        chunk.remove(rowsAt: dropped)

        var operations: [ChangeOperation] = []
        var updated: Set<ManagedObjectID> = []
        for (id, record) in records where record.old != record.new {
            let changes = record.new.indices.filter { record.old[$0] != record.new[$0] }
                .map { SlotChange(slot: $0, old: record.old[$0], new: record.new[$0]) }
            operations.append(.update(id, changes: SlotChanges(changes)))
            updated.insert(id)
            note(record.new, of: id)
        }
        return (operations, updated)
    }

    /// Remembers the keys a written record holds, for the chunks after it.
    mutating func note(_ values: [PropertyValue], of id: ManagedObjectID) {
        for (index, constraint) in constraints.enumerated() where id.entity.isKind(of: constraint.entity) {
            guard let key = constraint.key(values) else { continue }
            let hash = key.hashValue
            if let other = written[index][hash], other != id {
                collided[index][hash, default: []].append(id)
            } else {
                written[index][hash] = id
            }
        }
    }

    /// The records holding each of `keys` (the smallest ID where several do): the store's
    /// and this request's, each confirmed by its current values. Read records join
    /// `records`, unchanged so far.
    private func holders(of keys: Set<[PropertyValue]>, constraint index: Int,
                         records: inout OrderedDictionary<ManagedObjectID, (old: [PropertyValue], new: [PropertyValue])>) throws -> [[PropertyValue]: Holder] {
        guard !keys.isEmpty else { return [:] }
        let constraint = constraints[index]
        let list = Array(keys)
        var candidates: Set<ManagedObjectID> = []
        let step = ManagedObjectContext.uniquenessKeysPerQuery
        for start in stride(from: 0, to: list.count, by: step) {
            candidates.formUnion(try fetch(constraint.storeFetch(holding: list[start..<min(start + step, list.count)])))
        }
        for key in list {
            let hash = key.hashValue
            if let id = written[index][hash] { candidates.insert(id) }
            candidates.formUnion(collided[index][hash] ?? [])
        }
        var found: [[PropertyValue]: ManagedObjectID] = [:]
        for id in candidates.sorted() where id.entity.isKind(of: constraint.entity) {
            let current: [PropertyValue]
            if let record = records[id] {
                current = record.new
            } else {
                guard let read = try values(id) else { continue }
                current = read
                records[id] = (read, read)
            }
            guard let key = constraint.key(current), keys.contains(key), found[key] == nil else { continue }
            found[key] = id
        }
        return found.mapValues { .record($0) }
    }

    /// The holder's values after the row merged into it, by the policy (attributes by name,
    /// as ``ManagedObjectContext`` merges a save's objects).
    private func merge(_ row: [PropertyValue], into holder: [PropertyValue], of target: EntityDescription) -> [PropertyValue] {
        var merged = holder
        for attribute in entity.attributes where !attribute.isTransient {
            guard let other = target.attributesByName[attribute.name], !other.isTransient,
                  other.attributeType == attribute.attributeType else { continue }
            let mine = row[attribute.slot], theirs = merged[other.slot]
            let takes = switch policy {
            case .overwrite: true
            case .mergeByPropertyObjectTrump: mine != attribute.defaultValue
            case .mergeByPropertyStoreTrump: theirs == .null && mine != .null
            case .rollback, .error: false
            }
            if takes { merged[other.slot] = mine }
        }
        return merged
    }

    private func name(of holder: Holder, chunk: BatchInsertChunk) -> String {
        switch holder {
        case .record(let id): id.shortReference
        case .row(let index): "row \(chunk.numbers[index])"
        }
    }

    private func conflict(_ number: Int, constraint index: Int, key: [PropertyValue], holder: Holder, chunk: BatchInsertChunk) -> Conflict {
        let constraint = constraints[index]
        let value = Self.text(constraint, key)
        switch holder {
        case .record(let id):
            return Conflict(constraint: constraint, text: "row \(number)'s \(value) is taken by \(id.shortReference)", number: number)
        case .row(let other):
            return Conflict(constraint: constraint, text: "row \(number) repeats row \(chunk.numbers[other])'s \(value)", number: number)
        }
    }

    /// The error under ``MergePolicy/error``: the constraints, the first conflicting rows,
    /// how many more the chunk holds.
    private func conflictError(_ conflicts: [Conflict], count: Int) -> StrataError {
        var labels: [String] = []
        for conflict in conflicts where !labels.contains(conflict.constraint.label) { labels.append(conflict.constraint.label) }
        let more = count - conflicts.count
        let list = conflicts.map(\.text).joined(separator: "; ") + (more > 0 ? "; and at least \(more) more row\(more == 1 ? "" : "s")" : "")
        // The rows are listed in the message only: with problems as well, the description
        // would quote their values twice (an error echoes at most ~200 characters of input).
        return StrataError(
            .constraintConflict,
            "The batch insert of \(entity.name) would break the uniqueness constraint\(labels.count == 1 ? "" : "s") \(labels.joined(separator: ", ")): \(list). Nothing was written; remove the duplicate rows or set a merge policy (the trump policies update the records holding the keys).",
            context: .init { $0.entity = entity.name; $0.rows = conflicts.map(\.number); $0.constraint = conflicts[0].constraint.names.joined(separator: ",") })
    }

    private func refusal(_ number: Int, _ reason: String) -> StrataError {
        StrataError(.constraintConflict, "Row \(number) of the batch insert of \(entity.name) cannot merge under the \(policy) merge policy: \(reason). Nothing was written.",
                    context: .init { $0.entity = entity.name; $0.rows = [number] })
    }

    /// `code = "a"`, each value cut to ``quotedCharacters``.
    private static func text(_ constraint: UniquenessConstraint, _ key: [PropertyValue]) -> String {
        zip(constraint.names, key).map { name, value in
            var text: String
            if case .string(let string) = value { text = "\"\(string)\"" } else { text = "\(value)" }
            if text.count > quotedCharacters { text = String(text.prefix(quotedCharacters)) + "…" }
            return "\(name) = \(text)"
        }.joined(separator: ", ")
    }
}
