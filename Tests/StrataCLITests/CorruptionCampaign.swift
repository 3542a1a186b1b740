import Foundation
import Testing
@testable import Strata

/// A document the corruption campaign damages, with what it holds when intact: every
/// record's values, every stored segment's body, and where each body lies in the file
/// (small bodies sit whole in one page, so a flipped byte there is a damaged body).
struct CampaignDocument {
    let name: String
    let bytes: Data
    let records: [String: String]
    let segments: [UInt64: [UInt8]]
    /// Each segment body's byte range in the file (nil when it spans pages).
    let bodyRanges: [UInt64: Range<Int>]
    /// The segments the snapshot already holds.
    let compactedThrough: UInt64

    init(name: String, path: String) throws {
        self.name = name
        bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        records = try Self.records(path)
        let log = try Self.segments(path)
        segments = log.segments
        compactedThrough = log.compactedThrough
        var ranges: [UInt64: Range<Int>] = [:]
        for (sequence, body) in segments {
            if let found = bytes.range(of: Data(body)) { ranges[sequence] = found.lowerBound..<found.upperBound }
        }
        bodyRanges = ranges
    }

    /// The segments whose stored body a change at `position` (or, for a cut, everything
    /// from `position` on) touches; a body spanning pages counts as touched.
    func damagedBodies(at position: Int, cut: Bool) -> Set<UInt64> {
        Set(segments.keys.filter { sequence in
            guard let range = bodyRanges[sequence] else { return true }
            return cut ? range.upperBound > position : range.contains(position)
        })
    }

    /// Every record of the document at `path`, "Entity/key" → its values, read through a
    /// read-only store with the document's own model.
    static func records(_ path: String) throws -> [String: String] {
        let url = URL(fileURLWithPath: path)
        var configuration = DocumentStore.Configuration()
        configuration.isReadOnly = true
        configuration.compactsOnClose = false
        let store = try DocumentStore(openingAt: url, model: try DocumentStore.storedModel(at: url, configuration: configuration),
                                      configuration: configuration)
        defer { try? store.close() }
        var records: [String: String] = [:]
        for entity in store.model.entities where !entity.isAbstract {
            for id in try store.objectIDs(for: entity, includingSubentities: false) {
                records["\(entity.name)/\(id.primaryKey)"] = "\(try store.values(for: id) ?? [])"
            }
        }
        return records
    }

    /// The stored segment bodies and the compaction mark of the document at `path`.
    static func segments(_ path: String) throws -> (segments: [UInt64: [UInt8]], compactedThrough: UInt64) {
        let connection = try SQLiteConnection(path: path, flags: [.readOnly], busyTimeout: 1)
        defer { connection.close() }
        var segments: [UInt64: [UInt8]] = [:]
        for row in try connection.prepare("SELECT seq, body FROM strata_segment").rows() {
            if case .integer(let sequence) = row[0], case .blob(let body) = row[1] { segments[UInt64(sequence)] = body }
        }
        var compacted: UInt64 = 0
        if case .integer(let value)? = try connection.prepare("SELECT value FROM strata_meta WHERE key = 'compactedThrough'").rows().first?.first {
            compacted = UInt64(value)
        }
        return (segments, compacted)
    }
}

/// One case of the campaign: a byte XORed at a position, or the file cut there.
struct CampaignDamage: CustomStringConvertible {
    var position: Int
    var mask: UInt8?

    var description: String { mask.map { "byte \(position) ^ 0x\(String($0, radix: 16))" } ?? "cut at byte \(position)" }

    func apply(to bytes: Data) -> Data {
        guard let mask else { return bytes.prefix(position) }
        var damaged = bytes
        damaged[position] ^= mask
        return damaged
    }

    /// Seeded: mostly flips anywhere, some in the first page (SQLite's header and the
    /// schema), some cuts.
    static func random(in size: Int, using generator: inout SeededGenerator) -> CampaignDamage {
        switch Int.random(in: 0..<20, using: &generator) {
        case 0..<3: CampaignDamage(position: Int.random(in: 0..<min(size, 4096), using: &generator), mask: UInt8.random(in: 1...255, using: &generator))
        case 3..<6: CampaignDamage(position: Int.random(in: 0..<size, using: &generator), mask: nil)
        default: CampaignDamage(position: Int.random(in: 0..<size, using: &generator), mask: UInt8.random(in: 1...255, using: &generator))
        }
    }
}

/// What the campaign counts: how each damaged file fared under verify, a write and recover.
struct CampaignTally: CustomStringConvertible {
    var counts: [String: Int] = [:]
    var acceptedWrites: [String] = []

    mutating func count(_ outcome: String) { counts[outcome, default: 0] += 1 }

    var description: String {
        counts.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }.joined(separator: "\n")
    }
}
