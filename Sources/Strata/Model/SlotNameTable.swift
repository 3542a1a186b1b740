/// An entity's property names to storage slots, for the key lookups of key-value coding
/// (`setValue(_:forKey:)` runs one per call).
///
/// A small open-addressing table keyed by an FNV-1a hash of the name's UTF-8 bytes: no
/// per-process seed to mix and no SipHash rounds, which made the general `Dictionary`
/// lookup a fifth of an edit's cost. Names are fixed once the model resolves and come from
/// the model author, not from the document, so a seedless hash is safe here.
struct SlotNameTable: Sendable {
    /// Slot number per bucket, -1 for an empty bucket; the count is a power of two.
    private var buckets: [Int32] = []
    private var names: [String] = []

    init() {}

    /// A table of `names`, each mapped to its index.
    init(_ names: [String]) {
        self.names = names
        var capacity = 8
        while capacity < names.count * 2 { capacity *= 2 }
        buckets = Array(repeating: -1, count: capacity)
        let mask = capacity - 1
        for (slot, name) in names.enumerated() {
            var bucket = Self.hash(name) & mask
            while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = Int32(slot)
        }
    }

    /// The slot of `name`, or nil.
    @inline(__always)
    func slot(_ name: String) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let mask = buckets.count - 1
        var bucket = Self.hash(name) & mask
        while true {
            let slot = Int(buckets[bucket])
            if slot < 0 { return nil }
            if names[slot] == name { return slot }
            bucket = (bucket + 1) & mask
        }
    }

    private static func hash(_ name: String) -> Int {
        var name = name
        return name.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return Int(truncatingIfNeeded: hash ^ (hash >> 29))
        }
    }
}
