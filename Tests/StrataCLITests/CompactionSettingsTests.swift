import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The tools' automatic compaction thresholds: the library's defaults, or
/// `STRATA_COMPACTION` (docs/LIMITS.md).
@Suite struct CompactionSettings {
    /// The document's compaction mark.
    private func compactedThrough(_ path: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: path, flags: [.readOnly])
        defer { connection.close() }
        let mark = try connection.prepare("SELECT value FROM strata_meta WHERE key = 'compactedThrough'").rows().first?.first
        guard case .integer(let value)? = mark else { return -1 }
        return value
    }

    @Test("a save over STRATA_COMPACTION's operations is folded; under them, and by default, it is not")
    func savesRespectTheThresholds() throws {
        let sandbox = try TemporaryDirectory()
        let byDefault = try sandbox.employees("default.strata")
        let before = try compactedThrough(byDefault)
        #expect(try CLI.run("strata", ["insert", byDefault, "Department", "name=Small"]).status == 0)
        #expect(try compactedThrough(byDefault) == before, "one insert is under the default thresholds")

        let folded = try sandbox.employees("folded.strata")
        let low = try CLI.run("strata", ["insert", folded, "Department", "name=Small"], environment: ["STRATA_COMPACTION": "operations=1"])
        #expect(low.status == 0, "\(low.stderr)")
        #expect(try compactedThrough(folded) > before, "one operation passes 1: the save is folded right after it")

        let off = try sandbox.employees("off.strata")
        let mark = try compactedThrough(off)
        let never = try CLI.run("strata", ["insert", off, "Department", "name=Small"],
                                environment: ["STRATA_COMPACTION": "operations=0,segments=0, bytes=0,decodedBytes=0"])
        #expect(never.status == 0, "\(never.stderr)")
        #expect(try compactedThrough(off) == mark, "every threshold off")
    }

    @Test("a STRATA_COMPACTION value the tools cannot use is refused naming it")
    func badValuesAreRefused() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        for (value, message) in [("operations=x", "STRATA_COMPACTION: operations='x' is not a number ≥ 0."),
                                 ("things=3", "STRATA_COMPACTION: 'things=3' is not one of"),
                                 ("segments=-1", "STRATA_COMPACTION: segments='-1' is not a number ≥ 0.")] {
            let refused = try CLI.run("strata", ["fetch", document, "Department", "--count"], environment: ["STRATA_COMPACTION": value])
            expectFailure(refused, mentions: [message])
        }
    }
}
