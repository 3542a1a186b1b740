import Foundation

/// One record during a custom migration stage: its values by property name, read in the
/// stage's source model (the transform's `old` record) and written in its destination
/// model (its `new` record).
public struct MigrationRecord: Sendable {
    /// The record's ID, in the model this side of the stage is in (relationships hold such IDs).
    public let objectID: ManagedObjectID
    var values: [PropertyValue]

    init(id: ManagedObjectID, values: [PropertyValue]) {
        objectID = id
        self.values = values
    }

    /// The entity of the record (in the model this side of the stage is in).
    public var entity: EntityDescription { objectID.entity }
    /// The record's primary key.
    public var primaryKey: Int64 { objectID.primaryKey }

    /// The value of a property (a relationship's: `.object` or `.objects` of record IDs);
    /// `.null` for a name the entity does not have. Only attributes are set here:
    /// relationships are set with ``MigrationContext/relate(_:_:to:)``.
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
/// next model version, inferred, or inferred and then completed by the app's code.
///
/// In a custom stage (``custom(to:transform:)``, ``mapping(to:migrate:)``) the inference
/// is lenient: an attribute whose type changes is not carried, and a new or newly
/// required attribute or to-one needs no default; the stage's code must give every record
/// its required values, which is checked before the stage commits.
public enum MigrationStage: Sendable {
    /// An inferred (lightweight) stage to `model`.
    case lightweight(to: ManagedObjectModel)
    /// An inferred stage to `model`, then `transform` for each migrated record, given the
    /// record as it was in the source model and the record in the destination model to
    /// change (attributes only: relationships follow the inferred mapping). Splitting an
    /// attribute, joining two, computing a new required value are custom stages.
    case custom(to: ManagedObjectModel, transform: @Sendable (_ old: MigrationRecord, _ new: inout MigrationRecord) throws -> Void)
    /// An inferred stage to `model`, then `migrate` with every record of the source model
    /// and of the destination model (``MigrationContext``): it inserts, changes, relates
    /// and deletes destination records — moving attributes into a new entity, merging two
    /// entities, anything the records' relationships call for.
    case mapping(to: ManagedObjectModel, migrate: @Sendable (MigrationContext) throws -> Void)

    /// The stage's destination model.
    public var model: ManagedObjectModel {
        switch self {
        case .lightweight(let model), .custom(let model, _), .mapping(let model, _): return model
        }
    }

    /// What runs after the inferred part.
    var code: MigrationStageCode {
        switch self {
        case .lightweight: return .inferred
        case .custom(_, let transform): return .transform(transform)
        case .mapping(_, let body): return .mapping(body)
        }
    }
}

/// The code of a migration stage, past its inferred part.
enum MigrationStageCode {
    /// Nothing: an inferred stage.
    case inferred
    /// A custom stage's change to each record.
    case transform(MigrationPlan.RecordTransform)
    /// A custom stage's code over all records.
    case mapping(@Sendable (MigrationContext) throws -> Void)
    /// Replaying across a custom stage: the records it wrote (its checkpoint), in the
    /// destination model.
    case checkpoint([ManagedObjectID: [PropertyValue]])

    /// Whether the app's code (or its recorded result) decides the records.
    var isCustom: Bool {
        if case .inferred = self { return false }
        return true
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
    /// - Throws: ``StrataStorage/StrataError`` `.modelIncompatible` when the stored model is neither a
    ///   stage's model nor inferably migratable to the first stage, or a stage cannot be
    ///   inferred, or a custom stage leaves a required value empty; the error a stage's code
    ///   throws (that stage is rolled back).
    @discardableResult
    public static func migrate(at url: URL, stages: [MigrationStage], configuration: Configuration = Configuration(),
                               progress: ((Int, Int, Int) -> Void)? = nil) throws -> [MigrationReport] {
        let stored = try storedModel(at: url, configuration: configuration).versionHash
        let start = (stages.lastIndex { $0.model.versionHash == stored }).map { $0 + 1 } ?? 0
        var reports: [MigrationReport] = []
        for index in start..<stages.count {
            let stage = stages[index]
            reports.append(try migrate(at: url, to: stage.model, configuration: configuration, code: stage.code,
                                       progress: { progress?(index, $0, $1) }))
        }
        return reports
    }
}
