import Foundation

/// One record during a custom migration stage: its values by property name, read in the
/// stage's source model (the transform's `old` record) and written in its destination
/// model (its `new` record).
public struct MigrationRecord: Sendable {
    /// The entity of the record (in the model this side of the stage is in).
    public let entity: EntityDescription
    /// The record's primary key.
    public let primaryKey: Int64
    var values: [PropertyValue]

    /// The value of a property; `.null` for a name the entity does not have.
    public subscript(_ name: String) -> PropertyValue {
        get { entity.slotIndex(of: name).map { values[$0] } ?? .null }
        set {
            guard let slot = entity.slotIndex(of: name), !RowTable.isTransient(slot, of: entity),
                  entity.attributesByName[name] != nil else { return }
            values[slot] = newValue
        }
    }
}

/// A stage of a staged migration (Core Data's `NSStagedMigrationManager` idea): to the
/// next model version, inferred, or inferred and then adjusted record by record.
public enum MigrationStage: Sendable {
    /// An inferred (lightweight) stage to `model`.
    case lightweight(to: ManagedObjectModel)
    /// An inferred stage to `model`, then `transform` for each migrated record, given the
    /// record as it was in the source model and the record in the destination model to
    /// change (attributes only: relationships follow the inferred mapping). Splitting an
    /// attribute, joining two, computing a new required value are custom stages.
    case custom(to: ManagedObjectModel, transform: @Sendable (_ old: MigrationRecord, _ new: inout MigrationRecord) throws -> Void)

    /// The stage's destination model.
    public var model: ManagedObjectModel {
        switch self {
        case .lightweight(let model), .custom(let model, _): return model
        }
    }
}

extension DocumentStore {
    /// Migrates the document at `url` through `stages` in order, each stage its own
    /// transaction recorded as a model version. Resumable: the stages up to the one whose
    /// model the document already stores are skipped, so running the same list again after
    /// a crash continues where the last committed stage left off.
    ///
    /// ```swift
    /// try DocumentStore.migrate(at: url, stages: [
    ///     .lightweight(to: v2),
    ///     .custom(to: v3) { old, new in new["lastName"] = old["fullName"] },
    /// ])
    /// ```
    /// - Parameters:
    ///   - url: the document's file.
    ///   - stages: the model versions to go through, in order, each with how to reach it.
    ///   - configuration: how the document is opened for each stage.
    ///   - progress: (stage index, records done, records in all).
    /// - Returns: the report of each stage run.
    /// - Throws: ``StrataError`` `.modelIncompatible` when the stored model is neither a
    ///   stage's model nor inferably migratable to the first stage, or a stage cannot be
    ///   inferred; the error a transform throws (that stage is rolled back).
    @discardableResult
    public static func migrate(at url: URL, stages: [MigrationStage], configuration: Configuration = Configuration(),
                               progress: ((Int, Int, Int) -> Void)? = nil) throws -> [MigrationReport] {
        let stored = try storedModel(at: url, configuration: configuration).versionHash
        let start = (stages.lastIndex { $0.model.versionHash == stored }).map { $0 + 1 } ?? 0
        var reports: [MigrationReport] = []
        for index in start..<stages.count {
            let stage = stages[index]
            var transform: MigrationPlan.RecordTransform?
            if case .custom(_, let body) = stage { transform = body }
            reports.append(try migrate(at: url, to: stage.model, configuration: configuration, transform: transform,
                                       progress: { progress?(index, $0, $1) }))
        }
        return reports
    }
}
