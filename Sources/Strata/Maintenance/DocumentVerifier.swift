import Foundation

/// What `strata-log verify` found.
package struct VerificationReport: Sendable {
    /// Each problem, one sentence naming the segment, object or key.
    package var problems: [String] = []
    /// What was checked and held, one line each.
    package var passed: [String] = []
    /// Remarks that are not failures (an older document without an identity checksum).
    package var notes: [String] = []
    /// Whether every check held.
    package var isValid: Bool { problems.isEmpty }
}

/// Checks a document end to end (`strata-log verify`):
///
/// 1. every stored segment: LZ4 frame and content checksum, decoding, and agreement with
///    its log row (sequence, group and operation counts, raw size) and its group rows;
/// 2. the current state (snapshot ⊕ overlay): every record has its entity's slots, keys
///    are unique per entity hierarchy and within the key counters, relationship
///    destinations exist and have the right entity, every relationship's inverse points
///    back, and the per-entity counts of `info()` match the records;
/// 3. when the full history is retained (first segment is 1): replaying the whole log
///    from empty into a scratch in-memory table gives exactly the current records.
///
/// ```swift
/// let report = try DocumentVerifier.verify(url)
/// if !report.isValid { report.problems.forEach { print($0) } }
/// ```
package enum DocumentVerifier {
    /// Verifies the document at `url` without changing it: every read is through a
    /// read-only connection (``DocumentStore/Configuration/isReadOnly``).
    /// - Parameter settings: the busy timeout, largest segment and limits to read with.
    /// - Throws: `.io` or `.corruptDocument` when the file is not a document at all.
    package static func verify(_ url: URL, settings: DocumentStore.Configuration = DocumentStore.Configuration()) throws -> VerificationReport {
        var report = VerificationReport()
        let log = try DocumentLogFile(url, settings: settings)
        var records: [SegmentRecord] = []
        var damaged = 0
        do {
            records = try log.segmentRecords()
        } catch let error as StrataError where error.code == .corruptSegment {
            // A malformed row is a finding about its segment; the other rows are still checked.
            for sequence in try log.sequences() {
                do {
                    records += try log.segmentRecords(in: sequence...sequence)
                } catch let error as StrataError where error.code == .corruptSegment {
                    damaged += 1
                    report.problems.append(error.message)
                }
            }
        } catch let error as StrataError where error.code == .sqlite || error.code == .corruptDocument {
            // A damaged log table (its pages, or its schema entry) is a finding.
            report.problems.append("The log table cannot be read: \(error.message)")
            return report
        }
        // Read now: replaying needs them after the log's file is closed.
        _ = try? log.versionModels()
        let checkpoints = Self.checkpoints(log)
        var segments: [Segment] = []
        for record in records {
            do {
                let segment = try log.decode(record)
                segments.append(segment)
                let rows = try log.groupRows(of: record.sequence)
                let merged = Dictionary(segment.groups.map { ($0.id, $0.info) }, uniquingKeysWith: { first, _ in first })
                if rows.count != merged.count || rows.contains(where: { merged[$0.id] != $0 }) {
                    report.problems.append("Segment \(record.sequence): its group rows do not match the groups in its body.")
                }
            } catch let error as StrataError {
                damaged += 1
                report.problems.append(error.message)
            }
        }
        if damaged == 0 {
            report.passed.append("\(records.count) segments: checksums, decoding and log rows agree")
        }
        checkReverts(segments, report: &report)
        let contiguous = zip(records, records.dropFirst()).allSatisfy { $0.sequence + 1 == $1.sequence }
        if !contiguous { report.problems.append("The stored segments are not contiguous (a segment is missing).") }
        try DocumentIntegrity.check(log, report: &report)
        log.close()

        let store: DocumentStore
        do {
            var configuration = settings
            configuration.compactsOnClose = false
            configuration.turnOffAutomaticCompaction()
            configuration.isReadOnly = true
            configuration.checksIntegrityOnOpen = false
            store = try DocumentStore(openingAt: url, model: log.model, configuration: configuration)
        } catch let error as StrataError {
            report.problems.append("The document cannot be opened: \(error.message)")
            // The log can still say which segments are at fault (a duplicate insert names both).
            if let first = records.first, first.sequence == 1, damaged == 0, contiguous {
                checkReplay(segments, log: log, checkpoints: checkpoints, against: nil, report: &report)
            }
            return report
        }
        let checked = Result {
            try checkSnapshotLayout(store, report: &report)
            // Constraint indexes the recorded model does not declare (a newer model's) whose
            // records clash; the model's own constraints are checked over the records below.
            let declared = Set(store.schema.uniquenessIndexes().map(\.name))
            for index in try store.constraintIndexStatus() where !declared.contains(index.name) && !index.clashes.isEmpty {
                report.notes.append("Constraint index \(index.name) is not UNIQUE: records share keys, \(index.clashes.joined(separator: "; ")).")
            }
            return try checkState(store, log: log, report: &report)
        }
        try? store.close()
        let current: [ManagedObjectID: [PropertyValue]]
        do {
            current = try checked.get()
        } catch let error as StrataError where error.code != .documentBusy {
            // SQLite failing inside a table (a damaged page) is a finding, not a crash.
            report.problems.append("Reading the current records failed: \(error.message)")
            return report
        }

        if let first = records.first, first.sequence == 1, damaged == 0, contiguous {
            checkReplay(segments, log: log, checkpoints: checkpoints, against: current, report: &report)
        } else if let first = records.first, first.sequence != 1 {
            report.passed.append("replay skipped: history before segment \(first.sequence) was not retained")
        } else if records.isEmpty, log.compactedThrough > 0 {
            report.passed.append("replay skipped: no segments retained")
        } else if records.isEmpty {
            checkReplay([], log: log, checkpoints: checkpoints, against: current, report: &report)
        }
        return report
    }

    /// Checks that every snapshot table has the columns the document's format lays out
    /// (docs/FORMAT.md §11): a format 2 reader must not meet format 1 tables, or the reverse.
    private static func checkSnapshotLayout(_ store: DocumentStore, report: inout VerificationReport) throws {
        let schema = store.schema
        let problems = try store.withOpenState { state in
            try schema.layoutProblems(state.connection, formatVersion: state.meta.formatVersion)
        }
        if problems.isEmpty {
            report.passed.append("\(schema.tables.count) snapshot tables laid out as document format \(schema.layout.rawValue)")
        }
        report.problems += problems
    }

    /// Checks the current records; returns them by ID.
    private static func checkState(_ store: DocumentStore, log: DocumentLogFile, report: inout VerificationReport) throws -> [ManagedObjectID: [PropertyValue]] {
        let model = store.model
        var current: [ManagedObjectID: [PropertyValue]] = [:]
        let info = try store.info()
        var problems: [String] = []
        var keysByRoot: [Int: [Int64: ManagedObjectID]] = [:]
        for entity in model.entities where !entity.isAbstract {
            let ids = try store.objectIDs(for: entity, includingSubentities: false)
            if info.objectCounts[entity.name] != ids.count {
                problems.append("\(entity.name): info counts \(info.objectCounts[entity.name] ?? 0) objects, the records are \(ids.count).")
            }
            for id in ids {
                guard let values = try store.values(for: id) else {
                    problems.append("\(id): listed but its record cannot be read.")
                    continue
                }
                guard values.count == entity.slotCount else {
                    problems.append("\(id): has \(values.count) values for \(entity.slotCount) properties.")
                    continue
                }
                if id.primaryKey <= 0 { problems.append("\(id): key \(id.primaryKey) is not positive.") }
                let root = entity.rootEntity.index
                if let other = keysByRoot[root]?[id.primaryKey] {
                    problems.append("\(id) and \(other) share key \(id.primaryKey).")
                }
                keysByRoot[root, default: [:]][id.primaryKey] = id
                current[id] = values
            }
        }
        // A replica of a remote holds other replicas' keys too: only its own range has to
        // stay below its counters (docs/SYNC.md, "Keys").
        let ownKeys = try store.replicaKeyRange ?? Int64.min..<Int64.max
        for (root, keys) in keysByRoot {
            let name = model.entities[root].name
            if let largest = keys.keys.filter(ownKeys.contains).max(), largest > (log.keyCounters[name] ?? 0) {
                problems.append("\(name): key \(largest) is above the document's key counter \(log.keyCounters[name] ?? 0).")
            }
        }
        var relationshipCount = 0
        for (id, values) in current.sorted(by: { $0.key < $1.key }) {
            for (slot, relationship) in id.entity.storedRelationshipSlots {
                let destination = id.entity.destination(of: relationship)
                for target in values[slot].objectIDs {
                    relationshipCount += 1
                    let name = "\(id.shortReference).\(relationship.name)"
                    guard let targetValues = current[target] else {
                        problems.append("\(name) points to \(target.shortReference), which does not exist.")
                        continue
                    }
                    if !target.entity.isKind(of: destination) {
                        problems.append("\(name) points to \(withArticle(target.entity.name)); it holds \(destination.name) objects.")
                    }
                    if let inverse = relationship.inverseSlot, inverse < targetValues.count,
                       !targetValues[inverse].holds(id) {
                        let inverseName = target.entity.slotName(inverse)
                        problems.append("\(name) points to \(target.shortReference), but its inverse \(inverseName) does not point back.")
                    }
                }
            }
        }
        if problems.isEmpty {
            report.passed.append("\(current.count) records: keys unique, counts agree, \(relationshipCount) relationship links with inverses pointing back")
        }
        report.problems += problems
        checkUniqueness(current, model: model, report: &report)
        return current
    }

    /// Records that share a key of a uniqueness constraint the document's model declares:
    /// an error. Saves and batch inserts refuse such records (docs/SEMANTICS.md, "Batch
    /// inserts and uniqueness constraints"); a batch update can still write them, and a
    /// document whose records clashed before a newer model declared the constraint is
    /// checked against its recorded model, which does not (that case is the note about
    /// its non-unique index above). At most ``clashesNamed`` keys are named per constraint.
    private static func checkUniqueness(_ current: [ManagedObjectID: [PropertyValue]], model: ManagedObjectModel,
                                        report: inout VerificationReport) {
        var constraints: [UniquenessConstraint] = []
        for entity in model.entities {
            for constraint in entity.effectiveUniquenessConstraints where !constraints.contains(constraint) {
                constraints.append(constraint)
            }
        }
        guard !constraints.isEmpty else { return }
        var clashing = 0
        for constraint in constraints {
            var holders: [[PropertyValue]: [ManagedObjectID]] = [:]
            for (id, values) in current where id.entity.isKind(of: constraint.entity) {
                if let key = constraint.key(values) { holders[key, default: []].append(id) }
            }
            let clashes = holders.filter { $0.value.count > 1 }.map { (key: $0.key, ids: $0.value.sorted()) }.sorted { $0.ids[0] < $1.ids[0] }
            clashing += clashes.count
            for clash in clashes.prefix(clashesNamed) {
                let values = zip(constraint.names, clash.key).map { "\($0) = \(quoted($1))" }.joined(separator: ", ")
                let ids = clash.ids.prefix(5).map(\.shortReference).joined(separator: ", ") + (clash.ids.count > 5 ? " and \(clash.ids.count - 5) more" : "")
                report.problems.append("\(constraint.label) is broken: \(ids) share \(values).")
            }
            if clashes.count > clashesNamed {
                report.problems.append("\(constraint.label) is broken: \(clashes.count - clashesNamed) more keys are shared by several records.")
            }
        }
        if clashing == 0 { report.passed.append("\(constraints.count) uniqueness constraint\(constraints.count == 1 ? "" : "s"): no records share a key") }
    }

    /// How many shared keys verify names per constraint (a batch update can make thousands).
    static let clashesNamed = 10

    /// A key's value as verify prints it: strings quoted, cut to 32 characters.
    private static func quoted(_ value: PropertyValue) -> String {
        var text: String
        if case .string(let string) = value { text = "\"\(string)\"" } else { text = "\(value)" }
        if text.count > 32 { text = String(text.prefix(32)) + "…" }
        return text
    }

    /// Replays every segment from empty and compares the result with the current records
    /// (or, when the document cannot be opened, only reports where replaying fails).
    /// The records each custom migration stage wrote, by model version (nil: none kept),
    /// or the error reading them.
    private static func checkpoints(_ log: DocumentLogFile) -> Result<[Int: [ManagedObjectID: [PropertyValue]]], StrataError> {
        do {
            var found: [Int: [ManagedObjectID: [PropertyValue]]] = [:]
            for version in try log.modelVersions() where version.isCustom {
                if let records = try log.checkpoint(of: version) { found[version.version] = records }
            }
            return .success(found)
        } catch let error as StrataError {
            return .failure(error)
        } catch {
            return .failure(StrataError(.corruptDocument, "\(error)"))
        }
    }

    private static func checkReplay(_ segments: [Segment], log: DocumentLogFile,
                                    checkpoints: Result<[Int: [ManagedObjectID: [PropertyValue]]], StrataError>,
                                    against current: [ManagedObjectID: [PropertyValue]]?,
                                    report: inout VerificationReport) {
        var rows: [ManagedObjectID: [PropertyValue]] = [:]
        // The texts splices changed, carried from segment to segment as the overlay does.
        var texts: [TextKey: TextSequence] = [:]
        // The segment that last inserted each record, to name both sides of a duplicate, and
        // the one that last deleted it, to name both sides of a delete of a missing record.
        var insertedBy: [ManagedObjectID: UInt64] = [:]
        var deletedBy: [ManagedObjectID: UInt64] = [:]
        // Migrations happened between segments: the replayed records are migrated there
        // the way the document was (docs/MIGRATION.md, "History").
        var migrations: [(firstSegment: UInt64, plan: MigrationPlan, code: MigrationStageCode)] = []
        do {
            let versions = try log.versionModels(), records = try log.modelVersions()
            for (index, (old, new)) in zip(versions, versions.dropFirst()).enumerated() {
                let record = records[index + 1]
                guard record.isCustom else {
                    migrations.append((new.firstSegment, try MigrationPlan(from: old.model, to: new.model), .inferred))
                    continue
                }
                // A custom stage's code is not in the document; what it wrote is (its checkpoint).
                guard let saved = try checkpoints.get()[record.version] else {
                    report.passed.append("replay skipped: a custom migration stage made model version \(record.version) at segment \(record.firstSegment) before documents recorded what such a stage wrote, and replaying across it needs the stage's code")
                    return
                }
                migrations.append((new.firstSegment, try MigrationPlan(from: old.model, to: new.model, custom: true), .checkpoint(saved)))
                report.passed.append("replay crosses the custom migration stage of model version \(record.version) (segment \(record.firstSegment)) from the \(saved.count) records it wrote")
            }
        } catch let error as StrataError {
            report.problems.append("The model versions cannot be replayed: \(error.message)")
            return
        } catch {
            report.problems.append("The model versions cannot be replayed: \(error)")
            return
        }
        func migrate(before sequence: UInt64) throws {
            while let next = migrations.first, next.firstSegment <= sequence {
                migrations.removeFirst()
                rows = try next.plan.migrate(rows, keyCounters: [:], storeTag: log.storeTag, code: next.code).records
            }
        }
        for segment in segments {
            do {
                try migrate(before: segment.sequence)
            } catch let error as StrataError {
                report.problems.append("Migrating the replayed records before segment \(segment.sequence) failed: \(error.message)")
                return
            } catch {
                return
            }
            var patch = OverlayPatch()
            do {
                for group in segment.groups {
                    for operation in group.operations {
                        // A save never writes a delete of a record that is not there (a
                        // delete on both sides is dropped): such a delete contradicts the log.
                        if case .delete(let id, _) = operation, try !patch.holds(id, base: { rows[$0] }) {
                            throw StrataError(.corruptDocument, Self.missingDelete(id, in: segment.sequence, deletedBy: deletedBy[id]),
                                              context: .init { $0.segment = segment.sequence; $0.object = id.description })
                        }
                        // Taken out of `rows`, not copied: a relate of a department with
                        // 100,000 employees in each of many segments copied them each time.
                        for key in patch.textsToSeed(for: operation) { patch.seedText(key, texts[key]) }
                        try patch.apply(operation, base: { rows.removeValue(forKey: $0) }, giveBack: { rows[$0] = $1 })
                        switch operation {
                        case .insert(let id, _): insertedBy[id] = segment.sequence
                        case .delete(let id, _): deletedBy[id] = segment.sequence
                        default: break
                        }
                    }
                }
            } catch let error as StrataError {
                if error.context.kind == .duplicateInsert, let id = error.context.object,
                   let first = insertedBy.first(where: { $0.key.description == id })?.value {
                    report.problems.append(
                        "Segments \(first) and \(segment.sequence) both insert \(id) (no delete between): two writers were given the same key.")
                } else if error.context.segment == segment.sequence {
                    report.problems.append(error.message)
                } else {
                    report.problems.append("Replaying segment \(segment.sequence) failed: \(error.message)")
                }
                return
            } catch {
                report.problems.append("Replaying segment \(segment.sequence) failed: \(error)")
                return
            }
            patch.writeTextStrings()
            for id in patch.deleted { rows[id] = nil }
            for (id, row) in patch.rows { rows[id] = row }
            for (key, text) in patch.texts { texts[key] = text }
        }
        do {
            try migrate(before: UInt64.max)
        } catch let error as StrataError {
            report.problems.append("Migrating the replayed records failed: \(error.message)")
            return
        } catch {
            return
        }
        guard let current else { return }
        var problems: [String] = []
        for (id, row) in rows where current[id] == nil {
            _ = row
            problems.append("Replay: \(id) exists after replaying the log but not in the document.")
        }
        for (id, values) in current.sorted(by: { $0.key < $1.key }) {
            guard var replayed = rows[id] else {
                problems.append("Replay: \(id) is in the document but not in the replayed log.")
                continue
            }
            replayed = replayed.map { value in
                guard case .objects(let members) = value else { return value }
                return .objects(members.filter { rows[$0] != nil })
            }
            for slot in values.indices where slot < replayed.count && !RowTable.isTransient(slot, of: id.entity) {
                if !same(values[slot], replayed[slot], ordered: OverlayPatch.isOrdered(slot, of: id.entity)) {
                    problems.append("Replay: \(id).\(id.entity.slotName(slot)) is \(values[slot]) in the document but \(replayed[slot]) after replaying the log.")
                }
            }
        }
        if problems.isEmpty {
            report.passed.append("replaying \(segments.count) segments from empty gives exactly the \(current.count) current records")
        }
        report.problems += problems
    }

    /// What a delete of a record that is not there says: the segment holding it and, when
    /// the log deleted the record before, the segment that did.
    static func missingDelete(_ id: ManagedObjectID, in sequence: UInt64, deletedBy earlier: UInt64?) -> String {
        let before = earlier.map { "segment \($0) already deleted it" } ?? "no earlier segment inserts it"
        return "Segment \(sequence) deletes \(id), which does not exist: \(before). A save never writes such a delete (the log contradicts itself here: two writers reverted or deleted one record)."
    }

    private static func same(_ lhs: PropertyValue, _ rhs: PropertyValue, ordered: Bool) -> Bool {
        switch (lhs, rhs) {
        case (.objects(let a), .objects(let b)): return ordered ? a == b : Set(a) == Set(b)
        case (.double(let a), .double(let b)) where a.isNaN && b.isNaN: return true
        default: return lhs == rhs
        }
    }
}
