import Foundation
import Testing
@testable import Strata

/// Runs of undo groups (docs/FORMAT.md §20): a segment's consecutive groups of one kind and
/// action name that revert nothing are one `strata_group_run` row, and every reader of the
/// log tables sees the same groups as from a row each.
@Suite struct GroupRunTests {
    static func info(_ id: UInt64, _ kind: ChangeGroupKind = .user, reverts: UInt64? = nil, _ action: String = "Typing") -> ChangeGroupInfo {
        ChangeGroupInfo(id: id, kind: kind, revertsGroup: reverts, actionName: action)
    }

    /// Segment 1: groups 10–14 typing, 15 an undo of 14, 16–17 typing, 18 "Paste", 19 typing.
    /// Segment 2: group 19 again (a group continued across a save), 20–22 typing.
    static let segments: [(UInt64, [ChangeGroupInfo])] = [
        (1, [info(10), info(11), info(12), info(13), info(14), info(15, .undo, reverts: 14), info(16), info(17), info(18, .user, "Paste"), info(19)]),
        (2, [info(19), info(20), info(21), info(22)]),
    ]

    static func makeLog(runs: Bool) throws -> (TemporaryDirectory, SQLiteConnection) {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.file().path)
        try connection.execute(LogTables.segmentTable.sql)
        try connection.execute(LogTables.groupTable.sql)
        for (sequence, groups) in segments {
            let record = SegmentRecord(sequence: sequence, timestamp: Date(timeIntervalSince1970: Double(sequence)), groupCount: groups.count,
                                       operationCount: groups.count, rawSize: 1, body: [0], isCompacted: false)
            let wrote = try LogTables.append(connection, record, groups: groups, runs: runs)
            #expect(wrote == runs)
        }
        return (directory, connection)
    }

    @Test func runsHoldTheGroupsEveryReaderReadsFromARowEach() throws {
        let (plainDirectory, plain) = try Self.makeLog(runs: false)
        let (packedDirectory, packed) = try Self.makeLog(runs: true)
        defer { plain.close(); packed.close(); _ = (plainDirectory, packedDirectory) }
        // 10–14, 16–17 and 20–22 are runs; 15 reverts, 18 stands alone, 19 is alone in each.
        let runs = try packed.prepare("SELECT seq, id, count FROM strata_group_run ORDER BY seq, id").rows()
        #expect(runs == [[.integer(1), .integer(10), .integer(5)], [.integer(1), .integer(16), .integer(2)],
                         [.integer(2), .integer(19), .integer(4)]], "\(runs)")
        #expect(try LogTables.hasGroupRuns(packed) && !LogTables.hasGroupRuns(plain))
        for sequence: UInt64 in [1, 2] {
            #expect(try LogTables.groups(packed, of: sequence) == LogTables.groups(plain, of: sequence))
        }
        #expect(try LogTables.groupRecords(packed) == LogTables.groupRecords(plain))
        for id: UInt64 in [10, 14, 15, 17, 18, 19, 22, 23] {
            #expect(try LogTables.sequences(packed, ofGroup: id) == LogTables.sequences(plain, ofGroup: id), "group \(id)")
        }
        #expect(try LogTables.sequences(packed, ofGroup: 19) == [1, 2])
        #expect(try LogTables.largestGroupID(packed) == 22 && LogTables.largestGroupID(plain) == 22)
        #expect(try LogTables.largestGroupID(packed, in: 0..<21) == 20)
        #expect(try LogTables.reverter(of: 14, packed).map { [$0.sequence, $0.group] } == [1, 15])
        #expect(try LogTables.largestGroupID(packed, in: 0..<17) == LogTables.largestGroupID(plain, in: 0..<17))
        #expect(try LogTables.totals(packed).groups == LogTables.totals(plain).groups)
        // Retention deletes a segment's runs with it.
        _ = try LogTables.delete(packed, through: 1)
        _ = try LogTables.delete(plain, through: 1)
        #expect(try LogTables.groupRecords(packed) == LogTables.groupRecords(plain))
        #expect(try packed.prepare("SELECT count(*) FROM strata_group_run WHERE seq = 1").rows() == [[.integer(0)]])
    }

    @Test func aMalformedRunRowIsAnErrorNamingItsSegment() throws {
        let (directory, connection) = try Self.makeLog(runs: true)
        defer { connection.close(); _ = directory }
        try connection.execute("UPDATE strata_group_run SET count = 1 WHERE seq = 2")
        let error = try #require(strataError { _ = try LogTables.groups(connection, of: 2) })
        #expect(error.code == .corruptSegment && error.context.segment == 2, "\(error)")
        #expect(error.message == "A group run row of segment 2 is malformed.")
    }
}
