import Foundation

/// What the decoder (and the streaming replay) needs to know about the slots of one
/// entity, resolved from the model once instead of once per value: looking a slot up
/// through the entity copies its attribute or relationship description, which costs more
/// than decoding the value. A class so that handing a plan around costs one retain;
/// immutable, so that the model keeps its plans for every decoder (``SegmentModelPlan``).
final class SegmentEntityPlan: Sendable {
    /// One slot's resolution.
    /// Trivial to copy (no references), as the decoder reads one per value.
    struct Slot {
        var isResolved: Bool
        var isTransient: Bool
        /// For attributes: bit `t` is set when a value with tag `t` fits the slot (§6.2),
        /// so that the check needs no decoded value. Zero for relationships, whose values
        /// are checked against the destination entity.
        var fittingTags: UInt32

        /// Whether a value of the slot can be stored in a segment.
        var isPersistent: Bool { isResolved && !isTransient }
    }

    let entity: EntityDescription
    let slots: [Slot]
    /// Each slot's shape, or nil when the model cannot resolve the slot.
    let shapes: [SegmentFormat.SlotShape?]
    /// Each slot's column in a format v2 insert run, or nil when the model cannot resolve
    /// the slot.
    let columns: [SegmentColumnKind?]
    /// Each slot's property name.
    let names: [String]
    /// The number of persistent slots (the value count of an insert or delete).
    let persistentCount: Int
    /// One value per slot: transient placeholders (§7), null elsewhere.
    let placeholders: [PropertyValue]

    init(entity: EntityDescription, model: ManagedObjectModel) {
        self.entity = entity
        var slots: [Slot] = []
        var shapes: [SegmentFormat.SlotShape?] = []
        var names: [String] = []
        var placeholders: [PropertyValue] = []
        var persistentCount = 0
        for slot in 0..<entity.slotCount {
            guard let info = SegmentFormat.slot(slot, of: entity, in: model) else {
                slots.append(Slot(isResolved: false, isTransient: false, fittingTags: 0))
                shapes.append(nil)
                names.append("")
                placeholders.append(.null)
                continue
            }
            var fitting: UInt32 = 0
            if case .attribute(let type) = info.shape {
                for (tag, sample) in Self.samples where SegmentFormat.fits(sample, type) {
                    fitting |= 1 << UInt32(tag.rawValue)
                }
            }
            slots.append(Slot(isResolved: true, isTransient: info.isTransient, fittingTags: fitting))
            shapes.append(info.shape)
            names.append(info.name)
            placeholders.append(SegmentFormat.transientPlaceholder(for: info.shape))
            if !info.isTransient { persistentCount += 1 }
        }
        self.slots = slots
        self.shapes = shapes
        self.columns = shapes.map { $0.map(SegmentColumnKind.init) }
        self.names = names
        self.firstUnresolvedSlot = slots.firstIndex { !$0.isResolved }
        self.placeholders = placeholders
        self.persistentCount = persistentCount
    }

    /// The first slot the model cannot resolve (an insert or delete of the entity cannot
    /// be decoded then), or nil.
    let firstUnresolvedSlot: Int?

    /// One value per attribute tag, for working out which tags fit an attribute with the
    /// same rule the encoder uses (``SegmentFormat/fits(_:_:)``).
    private static let samples: [(SegmentFormat.ValueTag, PropertyValue)] = [
        (.null, .null), (.integer, .integer(0)), (.double, .double(0)), (.decimal, .decimal(0)),
        (.string, .string("")), (.boolFalse, .boolean(false)), (.boolTrue, .boolean(true)),
        (.date, .date(Date(timeIntervalSinceReferenceDate: 0))), (.data, .data(Data())),
        (.uuid, .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))),
        (.uri, .uri(URL(fileURLWithPath: "/"))),
    ]
}

/// The entity plans of one model, built on first use of each entity and kept by the model
/// (``ManagedObjectModel/segmentPlans``): a decoder is made per segment, and a short
/// segment decodes in less time than building its entities' plans takes.
struct SegmentModelPlan {
    let model: ManagedObjectModel
    /// The model's entities by index (read once: the model's array is behind a class).
    let entities: [EntityDescription]
    private var plans: [SegmentEntityPlan?]

    init(model: ManagedObjectModel) {
        self.model = model
        self.entities = model.entities
        let kept = model.segmentPlans.withLock { $0 }
        self.plans = kept.count == entities.count ? kept : Array(repeating: nil, count: entities.count)
    }

    /// The plan of the entity at `index` (which must be in range).
    @inline(__always)
    mutating func plan(_ index: Int) -> SegmentEntityPlan {
        if let plan = plans[index] { return plan }
        return makePlan(index)
    }

    private mutating func makePlan(_ index: Int) -> SegmentEntityPlan {
        let plan = SegmentEntityPlan(entity: entities[index], model: model)
        plans[index] = plan
        let count = entities.count
        model.segmentPlans.withLock { kept in
            if kept.count != count { kept = Array(repeating: nil, count: count) }
            if kept[index] == nil { kept[index] = plan }
        }
        return plan
    }
}
