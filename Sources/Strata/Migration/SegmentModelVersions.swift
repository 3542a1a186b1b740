import Foundation

/// Which model version decodes each segment of a document, and where what an older segment
/// names lives in the current model (docs/MIGRATION.md, "History").
///
/// A migration changes no segment: each names entities and slots by position in the model
/// it was written with, so it decodes only with that model (decoding a segment saved
/// before an attribute was added with the current model reads one slot too many). Which
/// version wrote a segment follows from the version table (`strata_model_version`), whose
/// rows give the first segment each version wrote.
struct SegmentModelVersions {
    /// The current model.
    let current: ManagedObjectModel
    /// The first segment the current model wrote.
    let currentSince: UInt64
    /// The earlier versions, oldest first, each with the first segment it wrote.
    private let earlier: [(firstSegment: UInt64, version: Int, model: ManagedObjectModel)]
    /// For each earlier version (by position in ``earlier``), where its entities and
    /// slots went in the current model; nil when the migrations cannot be inferred again.
    private let maps: [VersionMap?]

    /// Reads the version table of a document.
    /// - Throws: `.corruptDocument` naming a stored model version that cannot be read.
    init(_ connection: SQLiteConnection, meta: DocumentFile.Meta, current: ManagedObjectModel, path: String) throws {
        self.current = current
        currentSince = meta.modelSince
        guard meta.modelSince > 1 else {
            earlier = []
            maps = []
            return
        }
        let versions = try ModelVersionHistory.versions(connection, meta: meta)
        var earlier: [(firstSegment: UInt64, version: Int, model: ManagedObjectModel)] = []
        // Every earlier version, also one that wrote no segment (staged migrations with no
        // save between them), so that each step below is one migration as it was made.
        for version in versions.dropLast() {
            do {
                earlier.append((version.firstSegment, version.version, try Self.parsed(version.modelJSON)))
            } catch let error as StrataError {
                throw DocumentOpenFailure.damaged(path, "the stored model version \(version.version) is damaged: \(error.message)")
            }
        }
        self.earlier = earlier
        // Each step's mapping, newest last; the current model closes the chain.
        let customs = versions.map(\.isCustom)
        var steps: [MigrationPlan?] = []
        for index in earlier.indices {
            let destination = index + 1 < earlier.count ? earlier[index + 1].model : current
            let custom = customs.indices.contains(index + 1) ? customs[index + 1] : false
            steps.append(try? MigrationPlan(from: earlier[index].model, to: destination, custom: custom))
        }
        var maps: [VersionMap?] = Array(repeating: nil, count: earlier.count)
        var later: VersionMap? = VersionMap.identity(current)
        for index in earlier.indices.reversed() {
            later = later.flatMap { next in steps[index].map { VersionMap(step: $0).then(next) } }
            maps[index] = later
        }
        self.maps = maps
    }

    /// The model segment `sequence` was written with.
    func model(forSegment sequence: UInt64) -> ManagedObjectModel {
        guard sequence < currentSince else { return current }
        return earlier.last(where: { $0.firstSegment <= sequence })?.model ?? current
    }

    /// The version number of the model segment `sequence` was written with (nil: the current one).
    func version(forSegment sequence: UInt64) -> Int? {
        guard sequence < currentSince else { return nil }
        return earlier.last(where: { $0.firstSegment <= sequence })?.version
    }

    /// The ID in the current model of a record an older segment names: the same key, in
    /// the entity its entity became (renaming identifiers followed). An ID of an entity a
    /// migration removed, or of a model whose migrations cannot be inferred again, stays
    /// as it is.
    func currentID(_ id: ManagedObjectID, storeTag: UInt32) -> ManagedObjectID {
        guard let map = mapping(of: id.entity),
              let index = map.entities[id.entity.index] else { return id }
        return ManagedObjectID(entity: current.entities[index], storeTag: storeTag, primaryKey: id.primaryKey)
    }

    /// The name in the current model of slot `slot` of an older model's entity: its
    /// current name when the property was carried (renamed or not), else its own name.
    func currentSlotName(_ slot: Int, of entity: EntityDescription) -> String? {
        guard let map = mapping(of: entity), let index = map.entities[entity.index],
              let slots = map.slots[entity.index], slots.indices.contains(slot), let target = slots[slot] else { return nil }
        return current.entities[index].slotName(target)
    }

    private func mapping(of entity: EntityDescription) -> VersionMap? {
        guard let position = earlier.firstIndex(where: { $0.model.entities.indices.contains(entity.index)
                  && $0.model.entities[entity.index] === entity }) else { return nil }
        return maps[position]
    }

    /// Stored models parsed once per process (a model is immutable): history reads decode
    /// many segments of one version.
    private static let parsedModels = Locked<[Data: ManagedObjectModel]>([:])

    private static func parsed(_ json: Data) throws -> ManagedObjectModel {
        if let model = parsedModels.withLock({ $0[json] }) { return model }
        let model = try ManagedObjectModel(jsonData: json)
        parsedModels.withLock { cache in
            if cache.count >= 32 { cache.removeAll() }
            cache[json] = model
        }
        return model
    }
}

/// Where one model version's entities and slots went in a later one: by source entity
/// index, the destination entity index (nil: removed), and by source slot the
/// destination slot (nil: dropped).
private struct VersionMap {
    var entities: [Int?]
    var slots: [[Int?]?]

    static func identity(_ model: ManagedObjectModel) -> VersionMap {
        VersionMap(entities: model.entities.map(\.index), slots: model.entities.map { entity in (0..<entity.slotCount).map { $0 } })
    }

    /// The forward map of one migration, from its plan (which maps backwards: each
    /// destination entity and slot to its source).
    init(step plan: MigrationPlan) {
        entities = Array(repeating: nil, count: plan.source.entities.count)
        slots = Array(repeating: nil, count: plan.source.entities.count)
        for (destination, source) in plan.sourceEntity.enumerated() {
            guard let source else { continue }
            entities[source] = destination
            var forward: [Int?] = Array(repeating: nil, count: plan.source.entities[source].slotCount)
            for (slot, from) in plan.sourceSlot[destination].enumerated() {
                if let from, forward.indices.contains(from) { forward[from] = slot }
            }
            slots[source] = forward
        }
    }

    private init(entities: [Int?], slots: [[Int?]?]) {
        self.entities = entities
        self.slots = slots
    }

    /// This map followed by `next`.
    func then(_ next: VersionMap) -> VersionMap {
        var entities: [Int?] = []
        var slots: [[Int?]?] = []
        for (source, middle) in self.entities.enumerated() {
            guard let middle, next.entities.indices.contains(middle), let target = next.entities[middle] else {
                entities.append(nil)
                slots.append(nil)
                continue
            }
            entities.append(target)
            let nextSlots = next.slots[middle] ?? []
            slots.append((self.slots[source] ?? []).map { slot in
                slot.flatMap { nextSlots.indices.contains($0) ? nextSlots[$0] : nil }
            })
        }
        return VersionMap(entities: entities, slots: slots)
    }
}

extension DocumentStore {
    /// The model versions the document has used, oldest first (one for a document never
    /// migrated), read through this store's own connection: what
    /// ``modelVersions(at:configuration:)`` returns, without opening the file again (a
    /// reader on a full disk may hold it alone; docs/RELIABILITY.md, "Full disks").
    /// - Throws: the errors of reading the version table.
    public func modelVersions() throws -> [ModelVersionRecord] {
        try withOpenState { try ModelVersionHistory.versions($0.connection, meta: $0.meta) }
    }

    /// The model versions of this document's segments.
    func segmentModelVersions() throws -> SegmentModelVersions {
        try withOpenState { state in
            try SegmentModelVersions(state.connection, meta: state.meta, current: model, path: url.path)
        }
    }

    /// The model segment `sequence` was written with: the current one, or for a segment
    /// saved before a migration the version it was saved in.
    func model(forSegment sequence: UInt64) throws -> ManagedObjectModel {
        guard sequence < (try withOpenState { $0.meta.modelSince }) else { return model }
        return try segmentModelVersions().model(forSegment: sequence)
    }
}
