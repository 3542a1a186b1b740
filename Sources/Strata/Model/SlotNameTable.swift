import Foundation

/// An entity's property names to storage slots, for the key lookups of key-value coding
/// (`setValue(_:forKey:)` runs one per call).
///
/// A small open-addressing table keyed by an FNV-1a hash of the name's UTF-8 bytes: no
/// per-process seed to mix and no SipHash rounds, which made the general `Dictionary`
/// lookup a fifth of an edit's cost. Names are fixed once the model resolves and come from
/// the model author, not from the document, so a seedless hash is safe here.
///
/// The table is a view of memory that ``SlotNameStorage`` owns: its fields are plain
/// pointers, so reading it out of an entity (on every lookup) retains and releases nothing,
/// where a table of arrays paid for two retains and releases per call. It is valid while
/// its storage lives; an entity keeps both.
struct SlotNameTable: @unchecked Sendable {
    /// Slot number per bucket, -1 for an empty bucket; `mask + 1` buckets, a power of two.
    fileprivate let buckets: UnsafePointer<Int32>?
    fileprivate let mask: Int
    /// Every name's UTF-8 bytes, one after another; name `slot` is
    /// `bytes[offsets[slot] ..< offsets[slot + 1]]`.
    fileprivate let bytes: UnsafePointer<UInt8>?
    fileprivate let offsets: UnsafePointer<Int32>?

    /// A table with no names.
    static let empty = SlotNameTable(buckets: nil, mask: 0, bytes: nil, offsets: nil)

    fileprivate init(buckets: UnsafePointer<Int32>?, mask: Int, bytes: UnsafePointer<UInt8>?, offsets: UnsafePointer<Int32>?) {
        self.buckets = buckets
        self.mask = mask
        self.bytes = bytes
        self.offsets = offsets
    }

    /// The slot of `name`, or nil.
    @inline(__always)
    func slot(_ name: String) -> Int? {
        guard let buckets, let bytes, let offsets else { return nil }
        var name = name
        return name.withUTF8 { key in
            var bucket = Self.hash(key) & mask
            while true {
                let slot = Int(buckets[bucket])
                if slot < 0 { return nil }
                let start = Int(offsets[slot])
                if Int(offsets[slot + 1]) - start == key.count,
                   key.isEmpty || memcmp(bytes + start, key.baseAddress!, key.count) == 0 {
                    return slot
                }
                bucket = (bucket + 1) & mask
            }
        }
    }

    fileprivate static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}

/// Owns the memory of a ``SlotNameTable`` built from a list of names, each mapped to its
/// index; frees it when released.
final class SlotNameStorage: @unchecked Sendable {
    /// The table, valid while this storage lives.
    let table: SlotNameTable
    private let buckets: UnsafeMutableBufferPointer<Int32>
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let offsets: UnsafeMutableBufferPointer<Int32>

    /// A table of `names`, each mapped to its index.
    init(_ names: [String]) {
        var capacity = 8
        while capacity < names.count * 2 { capacity *= 2 }
        buckets = .allocate(capacity: capacity)
        buckets.initialize(repeating: -1)
        let utf8 = names.map { Array($0.utf8) }
        bytes = .allocate(capacity: max(utf8.reduce(0) { $0 + $1.count }, 1))
        offsets = .allocate(capacity: names.count + 1)
        var offset = 0
        for (slot, name) in utf8.enumerated() {
            offsets[slot] = Int32(offset)
            for byte in name {
                bytes[offset] = byte
                offset += 1
            }
        }
        offsets[names.count] = Int32(offset)
        let mask = capacity - 1
        for (slot, name) in utf8.enumerated() {
            var bucket = name.withUnsafeBufferPointer(SlotNameTable.hash) & mask
            while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = Int32(slot)
        }
        table = SlotNameTable(buckets: UnsafePointer(buckets.baseAddress), mask: mask,
                              bytes: UnsafePointer(bytes.baseAddress), offsets: UnsafePointer(offsets.baseAddress))
        #if STRATA_INVARIANTS
        _checkInvariants()
        #endif
    }

    deinit {
        buckets.deallocate()
        bytes.deallocate()
        offsets.deallocate()
    }
}

#if STRATA_INVARIANTS
extension SlotNameStorage {
    /// Every broken invariant: a power-of-two bucket count above the name count (so a
    /// probe always meets an empty bucket), name offsets that start at 0 and never
    /// decrease, each slot in exactly one bucket, and each name found by a lookup.
    /// O(names); the table never changes after it is built, so it is checked once, then.
    func _invariantViolations() -> [String] {
        var problems: [String] = []
        let count = offsets.count - 1
        if buckets.count & (buckets.count - 1) != 0 || buckets.count <= count || table.mask != buckets.count - 1 {
            problems.append("\(buckets.count) buckets (mask \(table.mask)) for \(count) names")
        }
        if offsets[0] != 0 { problems.append("the first name starts at \(offsets[0])") }
        var bucketsOfSlot = [Int](repeating: 0, count: count)
        for slot in buckets where slot >= 0 {
            if Int(slot) < count { bucketsOfSlot[Int(slot)] += 1 } else { problems.append("a bucket holds slot \(slot) of \(count)") }
        }
        for slot in 0..<count {
            let start = Int(offsets[slot]), end = Int(offsets[slot + 1])
            guard start <= end, end <= bytes.count else {
                problems.append("name \(slot) spans \(start)..<\(end) of \(bytes.count) bytes")
                continue
            }
            if bucketsOfSlot[slot] != 1 { problems.append("slot \(slot) is in \(bucketsOfSlot[slot]) buckets") }
            let name = self.name(slot)
            // A duplicate name finds its first slot: what matters is that the name is found.
            if table.slot(name).map(self.name) != name {
                problems.append("the lookup of '\(name)' (slot \(slot)) fails")
            }
        }
        return problems
    }

    private func name(_ slot: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(offsets[slot])..<Int(offsets[slot + 1])]), as: UTF8.self)
    }

    /// Stops the process when an invariant is broken (once, when the table is built).
    func _checkInvariants() { checkInvariants(of: "SlotNameTable", _invariantViolations()) }

    /// Empties the bucket of slot 0, for the test that shows the check catches it.
    func _corruptForTesting() {
        if let bucket = buckets.firstIndex(of: 0) { buckets[bucket] = -1 }
    }
}
#endif
