import Foundation
import Strata
import Testing

/// `strata splice` and texts edited by several processes at once (issue 35; docs/TEXT.md).
@Suite(.serialized) struct TextSpliceCommands {
    static let model = #"""
        {"format": "strata-model", "formatVersion": 1, "entities": [
          {"name": "Note", "attributes": [
             {"name": "title", "type": "string", "text": true},
             {"name": "tag", "type": "string"}]}]}
        """#

    /// A directory with `notes.strata`, holding one note titled `title`; its reference.
    static func note(_ sandbox: TemporaryDirectory, title: String) throws -> (document: String, note: String) {
        try Data(model.utf8).write(to: sandbox.file("Notes.json"))
        let document = sandbox.path("notes.strata")
        let created = try CLI.strata("new", document, "--model", sandbox.path("Notes.json"))
        #expect(created.status == 0, "\(created.stderr)")
        let inserted = try CLI.strata("insert", document, "Note", "title=\(title)")
        #expect(inserted.status == 0, "\(inserted.stderr)")
        return (document, inserted.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func title(_ document: String, _ note: String) throws -> String {
        let got = try CLI.strata("get", document, note, "--json")
        let json = try #require(try got.json() as? [String: Any], "\(got.stdout)\(got.stderr)")
        let values = (json["values"] as? [String: Any]) ?? json
        return try #require(values["title"] as? String, "\(json)")
    }

    @Test func aSpliceEditsATextAndUndoRevertsIt() throws {
        let sandbox = try TemporaryDirectory()
        let (document, note) = try Self.note(sandbox, title: "Hello world")
        let splice = try CLI.strata("splice", document, note, "title", "--at", "6", "--delete", "5", "--insert", "there")
        #expect(splice.status == 0, "\(splice.stderr)")
        #expect(splice.stdout == "Hello there\n")
        let log = try CLI.strataLog("dump", document)
        #expect(log.stdout.contains(#"splice Note/p1.title  -"world" +"there""#), "\(log.stdout)")
        let undo = try CLI.strata("undo", document)
        #expect(undo.stdout == "Undid Typing\n", "\(undo.stdout)\(undo.stderr)")
        #expect(try Self.title(document, note) == "Hello world")

        let outside = try CLI.strata("splice", document, note, "title", "--at", "40", "--insert", "x")
        expectFailure(outside, mentions: ["has 11 characters", "40..<40"])
        let plain = try CLI.strata("splice", document, note, "tag", "--at", "0", "--insert", "x")
        expectFailure(plain, mentions: ["Note.tag is not a text attribute"])
        let nothing = try CLI.strata("splice", document, note, "title", "--at", "0")
        expectFailure(nothing, mentions: ["Nothing to do"])
    }

    /// Each `strata undo` and `strata redo` is a new process, as a reopened document is: it
    /// reads back from the log the characters earlier processes' undos put back, and deletes
    /// those, not the dead ones they stand for (docs/TEXT.md, "Undo"). Before, the second
    /// undo showed "Hello thereworld".
    @Test func undoAndRedoInNewProcessesReachTheCharactersEarlierUndosPutBack() throws {
        let sandbox = try TemporaryDirectory()
        let (document, note) = try Self.note(sandbox, title: "Hello world")
        let replace = try CLI.strata("splice", document, note, "title", "--at", "6", "--delete", "5", "--insert", "there")
        #expect(replace.status == 0, "\(replace.stderr)")
        let delete = try CLI.strata("splice", document, note, "title", "--at", "6", "--delete", "5")
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(try Self.title(document, note) == "Hello ")
        for (command, expected) in [("undo", "Hello there"), ("undo", "Hello world"), ("redo", "Hello there"), ("redo", "Hello "),
                                    ("undo", "Hello there"), ("undo", "Hello world")] {
            let run = try CLI.strata(command, document)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try Self.title(document, note) == expected, "after \(command)")
        }
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    /// Four processes at a time insert words at the start or the end of one title, in
    /// rounds (several at one place at once): every
    /// word survives once and whole (no interleaving), the document equals a replay of its
    /// log, and an undo removes exactly one process's word.
    @Test func processesTypingIntoOneTitleAtOnceLoseNoWord() throws {
        let sandbox = try TemporaryDirectory()
        let base = "shared"
        let (document, note) = try Self.note(sandbox, title: base)
        var random = SeededGenerator(seed: testSeed("TextSplice.processes"))
        var words: [String] = []
        for round in 0..<3 {
            var arguments: [[String]] = []
            // Places that are between words in whatever the process reads: the start and the
            // end (another process's word may be saved before this one reads the text).
            for writer in 0..<4 {
                let word = "<\(round)\(writer)\(String(repeating: "abcdefgh".randomElement(using: &random)!, count: 3))>"
                words.append(word)
                let place = Bool.random(using: &random) ? ["--at", "0"] : ["--end"]
                arguments.append(["splice", document, note, "title"] + place + ["--insert", word])
            }
            let results = try CLI.runAll("strata", arguments)
            #expect(results.allSatisfy { $0.status == 0 }, "round \(round): \(results.map(\.stderr))")
        }
        let title = try Self.title(document, note)
        for word in words {
            #expect(title.components(separatedBy: word).count == 2, "\(word) must be in \(title) exactly once and whole")
        }
        #expect(title.count == base.count + words.map(\.count).reduce(0, +))
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

        let undo = try CLI.strata("undo", document)
        #expect(undo.status == 0, "\(undo.stderr)")
        let after = try Self.title(document, note)
        let kept = words.filter { after.contains($0) }
        #expect(kept.count == words.count - 1, "an undo removes one process's word and nobody else's: \(after)")
        #expect(after.count == title.count - words.first { !after.contains($0) }!.count)
    }
}

/// Texts through file sync (docs/SYNC.md): three replicas splice one title apart and sync in
/// a seeded random order; they converge, every word survives once and whole, and an undo on
/// one replica removes its word everywhere (issue 35, item 7).
@Suite(.serialized) struct TextSyncConvergence {
    @Test func replicasSplicingOneTitleApartConverge() throws {
        let sandbox = try TemporaryDirectory()
        let (first, note) = try TextSpliceCommands.note(sandbox, title: "shared")
        let hub = sandbox.path("hub.strata-remote")
        #expect(try CLI.strata("push", first, hub).status == 0)
        let replicas = [first, sandbox.path("b.strata"), sandbox.path("c.strata")]
        for replica in replicas.dropFirst() {
            let clone = try CLI.strata("clone", hub, replica)
            #expect(clone.status == 0, "\(clone.stderr)")
        }
        var random = SeededGenerator(seed: testSeed("TextSync.replicas"))
        var words: [String] = []
        func syncAll(_ order: [String]) throws {
            for replica in order {
                let sync = try CLI.strata("sync", replica)
                #expect(sync.status == 0, "\(replica): \(sync.stderr)")
            }
        }
        for round in 0..<3 {
            for (index, replica) in replicas.enumerated() where Bool.random(using: &random) || index == round {
                let word = "<\(round)\(index)\("xyz".randomElement(using: &random)!)>"
                words.append(word)
                let place = Bool.random(using: &random) ? ["--at", "0"] : ["--end"]
                let splice = try CLI.run("strata", ["splice", replica, note, "title"] + place + ["--insert", word])
                #expect(splice.status == 0, "\(splice.stderr)")
            }
            try syncAll(replicas.shuffled(using: &random))
        }
        try syncAll(replicas)
        try syncAll(replicas)
        let titles = try replicas.map { try TextSpliceCommands.title($0, note) }
        #expect(Set(titles).count == 1, "the replicas converge: \(titles)")
        for word in words {
            #expect(titles[0].components(separatedBy: word).count == 2, "\(word) must be in \(titles[0]) once and whole")
        }
        for replica in replicas {
            let verify = try CLI.strataLog("verify", replica)
            #expect(verify.status == 0, "\(replica): \(verify.stdout)\(verify.stderr)")
        }

        // An undo on one replica removes that replica's last word, everywhere.
        let undoing = replicas[1]
        let undo = try CLI.strata("undo", undoing)
        #expect(undo.status == 0, "\(undo.stderr)")
        try syncAll(replicas)
        try syncAll(replicas)
        let after = try replicas.map { try TextSpliceCommands.title($0, note) }
        #expect(Set(after).count == 1, "the replicas converge after the undo: \(after)")
        #expect(words.filter { !after[0].contains($0) }.count == 1, "one word is gone: \(after[0])")
    }
}
