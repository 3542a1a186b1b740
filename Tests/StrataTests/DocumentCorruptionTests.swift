import Foundation
import Testing
@testable import Strata

/// A document with three uncompacted segments (one insert, two updates), closed.
private func documentWithThreeSegments(in directory: TemporaryDirectory) throws -> URL {
    let url = directory.file()
    let stack = try DocumentStack.create(url, configuration: manualCompaction())
    let employee = try stack.context.insertObject(forEntityName: "Employee")
    try employee.setValue("Ada", forKey: "firstName")
    try employee.setValue("Lovelace", forKey: "lastName")
    try stack.context.save()
    for salary in [100, 200] as [Int64] {
        try employee.setValue(.integer(salary), forKey: "salary")
        try employee.setValue(.string("Lovelace " + String(repeating: "of Ockham ", count: salary == 100 ? 20 : 30)), forKey: "lastName")
        try stack.context.save()
    }
    try stack.store.close()
    return url
}

/// The stored body of a segment.
private func segmentBody(_ url: URL, _ sequence: Int64) throws -> [UInt8] {
    guard case .blob(let body)? = try sqlRows(url, "SELECT body FROM strata_segment WHERE seq = \(sequence)").first?.first else {
        throw StrataError(.invalidArgument, "no segment \(sequence)")
    }
    return body
}

/// Replaces a segment's body in the file, as a damaged disk or a buggy tool would.
private func replaceSegmentBody(_ url: URL, _ sequence: Int64, with body: [UInt8]) throws {
    let connection = try SQLiteConnection(path: url.path, flags: [.readWrite])
    defer { connection.close() }
    try connection.prepare("UPDATE strata_segment SET body = ? WHERE seq = ?").run([.blob(body), .integer(sequence)])
    #expect(connection.changes == 1)
}

private func fileBytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

@Suite struct DocumentCorruption {
    @Test func aFlippedByteInAStoredSegmentFailsTheOpenNamingTheSegmentAndOffset() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithThreeSegments(in: directory)
        var body = try segmentBody(url, 2)
        body[body.count / 2] ^= 0x5A
        try replaceSegmentBody(url, 2, with: body)
        let error = try #require(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel) })
        #expect(error.code == .corruptSegment)
        #expect(error.context.segment == 2)
        #expect(error.context.offset != nil, "\(error.context)")
        #expect(error.message.contains("Segment 2"))
    }

    @Test func aTruncatedSegmentFailsTheOpenNamingTheSegment() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithThreeSegments(in: directory)
        let body = try segmentBody(url, 3)
        for length in [0, 3, 7, body.count / 2, body.count - 1] {
            try replaceSegmentBody(url, 3, with: Array(body.prefix(length)))
            let error = try #require(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel) })
            #expect(error.code == .corruptSegment, "length \(length): \(error)")
            #expect(error.context.segment == 3, "length \(length)")
            #expect(error.context.offset != nil, "length \(length)")
        }
    }

    @Test func aDamagedRawBodyInsideAValidFrameIsReportedWithItsOffsetInTheBody() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithThreeSegments(in: directory)
        let raw = try LZ4Frame.decompress(try segmentBody(url, 2), maxContentSize: 1 << 20)
        // Cut the body short: the decoder runs out of bytes inside the last group.
        try replaceSegmentBody(url, 2, with: LZ4Frame.compress(Array(raw.dropLast(2))))
        let error = try #require(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel) })
        #expect(error.code == .corruptSegment)
        #expect(error.context.segment == 2)
        #expect(error.context.layer == .segmentBody, "the frame is fine; the body is not")
        let offset = try #require(error.context.offset)
        #expect(offset <= raw.count - 2)
        // A wrong magic is caught at byte 0.
        var wrongMagic = raw
        wrongMagic[0] = UInt8(ascii: "X")
        try replaceSegmentBody(url, 2, with: LZ4Frame.compress(wrongMagic))
        let magicError = try #require(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel) })
        #expect(magicError.code == .corruptSegment)
        #expect(magicError.context.offset == 0)
    }

    @Test func seededRandomDamageToSegmentsNeverCrashesTheOpen() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithThreeSegments(in: directory)
        let original = try segmentBody(url, 3)
        let seed = testSeed("DocumentCorruption")
        var generator = SeededGenerator(seed: seed)
        for round in 0..<60 {
            var body = original
            for _ in 0...Int.random(in: 0...3, using: &generator) {
                guard !body.isEmpty else { break }
                let index = Int.random(in: 0..<body.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: body[index] ^= UInt8.random(in: 1...255, using: &generator)
                case 1: body.removeSubrange(index...)
                default: body.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                }
            }
            try replaceSegmentBody(url, 3, with: body)
            do {
                let store = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: manualCompaction())
                try store.close()
                Issue.record("seed \(seed) round \(round): damaged segment opened")
            } catch let error as StrataError {
                #expect(error.code == .corruptSegment, "seed \(seed) round \(round): \(error)")
                #expect(error.context.segment == 3, "seed \(seed) round \(round)")
            }
        }
        try replaceSegmentBody(url, 3, with: original)
        let store = try DocumentStore(openingAt: url, model: sharedExampleModel)
        #expect(try store.info().objectCounts["Employee"] == 1)
        try store.close()
    }

    @Test(arguments: ["garbage", "empty", "plain sqlite", "directory"])
    func aFileThatIsNotAStrataDocumentIsRefusedAndLeftAlone(kind: String) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("not-a-document")
        switch kind {
        case "garbage":
            var generator = SeededGenerator(seed: 7)
            try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: url)
        case "empty":
            try Data().write(to: url)
        case "plain sqlite":
            let connection = try SQLiteConnection(path: url.path)
            try connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('hello')")
            connection.close()
        default:
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        }
        let before = kind == "directory" ? Data() : try fileBytes(url)
        let error = try #require(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel) })
        #expect(error.code == .corruptDocument, "\(error)")
        #expect(error.message.contains("not a Strata document"), "\(error.message)")
        #expect(error.context.path == url.path)
        #expect(strataError { _ = try DocumentStore.storedModel(at: url) }?.code == .corruptDocument)
        if kind != "directory" { #expect(try fileBytes(url) == before, "a refused open must not change the file") }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(leftovers == ["not-a-document"], "\(leftovers)")
    }

    @Test func aMissingFileIsAnIOErrorNamingThePath() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("missing.strata")
        let error = try #require(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel) })
        #expect(error.code == .io)
        #expect(error.context.path == url.path)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}

@Suite struct DocumentLZ4Export {
    @Test func aStoredSegmentBodyIsAnLZ4FrameTheLz4ToolDecompresses() throws {
        let tool = "/usr/bin/lz4"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "lz4 is not installed at \(tool)")
        let directory = try TemporaryDirectory()
        let url = try documentWithThreeSegments(in: directory)
        let store = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: manualCompaction())
        defer { try? store.close() }
        let records = try store.segmentRecords()
        #expect(records.map(\.sequence) == [1, 2, 3])
        for record in records {
            let frame = directory.file("segment-\(record.sequence).lz4")
            let raw = directory.file("segment-\(record.sequence).bin")
            try Data(record.body).write(to: frame)
            let result = try runProcess(tool, ["-d", "-f", "-q", frame.path, raw.path])
            #expect(result.status == 0, "lz4 failed: \(result.error)")
            let bytes = [UInt8](try Data(contentsOf: raw))
            #expect(bytes.count == record.rawSize)
            #expect(Array(bytes.prefix(4)) == Array("STRS".utf8))
            let decoded = try SegmentDecoder.decode(bytes, model: store.model, storeTag: store.tag, sequenceHint: record.sequence)
            #expect(decoded == (try store.decode(record)))
            #expect(decoded.sequence == record.sequence)
            #expect(decoded.groups.count == record.groupCount)
        }
    }
}
