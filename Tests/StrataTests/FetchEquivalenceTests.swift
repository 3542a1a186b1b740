import Foundation
import Testing
@testable import Strata

/// Issue 4's check: one seeded random Employee/Department/Project data set, built by the
/// same edits (a) in an in-memory store and in a document that is (b) partly in the
/// snapshot and partly in uncompacted segments (the overlay), then reopened (the overlay
/// replayed from the log), (c) compacted, (d) reopened — and (e) with random unsaved
/// changes on top in the contexts of (a) and of the document — must answer hundreds of
/// random fetch requests (predicates, sorts, offsets, limits, counts) identically.
///
/// Results are compared as ordered lists: every fetch's order is total (sort keys, then the
/// object ID, which both stores break ties with), so windows are exact too. Objects are
/// compared by labels (`Employee3`: the script's index), since IDs carry their store.
@Suite struct FetchEquivalenceTests {
    @Test func randomFetchesAnswerAlikeInMemoryInOverlaidCompactedAndReopenedDocumentsAndWithPendingChanges() throws {
        let seed = explorationSeed()
        print("FetchEquivalenceTests seed \(seed) (set STRATA_SEED to replay)")
        for runSeed: UInt64 in [1, 7, 2024, seed] {
            try EquivalenceRun(seed: runSeed).run(requests: 150)
        }
    }

    /// A generated expression that failed to parse would be the same error in both worlds
    /// and test nothing.
    @Test func everyGeneratedExpressionParses() throws {
        let stack = Stack()
        let world = EquivalenceWorld(name: "memory", context: stack.context)
        var generator = EquivalenceGenerator(seed: 5)
        for _ in 0..<400 {
            let format = generator.expressionAtom(world)
            #expect(throws: Never.self, "\(format)") { _ = try FetchPredicate(format: format) }
        }
        for _ in 0..<100 {
            let format = generator.departmentAtom(world)
            #expect(throws: Never.self, "\(format)") { _ = try FetchPredicate(format: format) }
        }
    }

    /// The fast path of `PredicateText.fold` must be Foundation's folding exactly, or SQL
    /// and memory would disagree with other implementations of the rule.
    @Test func theASCIIFoldingShortcutEqualsFoundationsFolding() {
        var random = SeededGenerator(seed: 99)
        var samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        for _ in 0..<2_000 {
            samples.append(String((0..<Int(random.next() % 12)).map { _ in Character(UnicodeScalar(UInt8(random.next() % 128))) }))
        }
        for options: FetchComparison.Options in [.caseInsensitive, .diacriticInsensitive, .caseDiacriticInsensitive] {
            var folding: String.CompareOptions = []
            if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
            if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
            for text in samples {
                #expect(PredicateText.fold(text, options: options) == text.folding(options: folding, locale: nil), "\(Array(text.utf8)) \(options)")
            }
        }
        #expect(PredicateText.asciiFolded("Émile", lowercasing: true) == nil)
        #expect(PredicateText.fold("ÉMILE", options: .caseDiacriticInsensitive) == "emile")
    }
}

/// One run of the equivalence check for one seed.
final class EquivalenceRun {
    let seed: UInt64
    var generator: EquivalenceGenerator
    let memory: EquivalenceWorld
    let memoryStack: Stack
    let document: DocumentStack
    let documentWorld: EquivalenceWorld
    var script: [EquivalenceStep] = []
    var failures = 0

    init(seed: UInt64) throws {
        self.seed = seed
        generator = EquivalenceGenerator(seed: seed)
        memoryStack = Stack()
        memory = EquivalenceWorld(name: "memory", context: memoryStack.context)
        document = try DocumentStack(configuration: manualCompaction())
        documentWorld = EquivalenceWorld(name: "document", context: document.context)
    }

    func apply(_ step: EquivalenceStep) throws {
        script.append(step)
        try memory.apply(step)
        try documentWorld.apply(step)
    }

    /// Random edits (saves among them unless `saving` is false).
    func edit(_ count: Int, saving: Bool) throws {
        var done = 0
        while done < count {
            let step = generator.step(in: memory)
            if case .save = step, !saving { continue }
            try apply(step)
            done += 1
        }
    }

    func run(requests count: Int) throws {
        for _ in 0..<4 { try apply(.insertDepartment(name: generator.pick(EquivalenceGenerator.groupNames), budget: generator.decimal())) }
        for _ in 0..<4 { try apply(.insertProject(name: generator.pick(EquivalenceGenerator.groupNames), deadline: generator.date())) }
        try edit(90, saving: true)
        try apply(.save)
        try document.store.compact()
        try edit(90, saving: true)
        try apply(.save)
        #expect(try document.store.logPosition.last > document.store.logPosition.compactedThrough, "seed \(seed): no overlay")

        let requests = (0..<count).map { _ in generator.request(in: memory) }
        let saved = requests.map { $0.run(in: memory) }
        try compare(requests, saved, phase: "(b) snapshot + overlay")

        try document.reopen(configuration: manualCompaction())
        documentWorld.adopt(document.context)
        try compare(requests, saved, phase: "(b) reopened, overlay replayed")

        let mark = script.count
        try edit(25, saving: false)
        try compare(requests, requests.map { $0.run(in: memory) }, phase: "(e) pending changes on the overlay", since: mark)
        memory.context.rollback()
        documentWorld.context.rollback()
        #expect(requests.map { $0.run(in: memory) } == saved, "seed \(seed): rollback changed the in-memory answers")

        try document.store.compact()
        try compare(requests, saved, phase: "(c) compacted")
        try document.reopen(configuration: manualCompaction())
        documentWorld.adopt(document.context)
        try compare(requests, saved, phase: "(d) compacted, reopened")

        let mark2 = script.count
        try edit(25, saving: false)
        try compare(requests, requests.map { $0.run(in: memory) }, phase: "(e) pending changes on the snapshot", since: mark2)
    }

    /// The primary keys and sort key values of the labelled objects in both worlds.
    func diagnose(_ request: EquivalenceRequest, _ text: String) -> String {
        let labels = Set(text.split(separator: " ").map(String.init).filter { $0.first?.isUppercase == true })
        var lines: [String] = []
        for label in labels.sorted() {
            var parts = [label]
            for world in [memory, documentWorld] {
                guard let id = world.labels().first(where: { $0.value == label })?.key else { continue }
                let object = world.context.object(with: id)
                let keys = request.sorts.map { sort in (try? object.value(forKeyPath: sort.0)).map { "\($0)" } ?? "?" }
                parts.append("\(world.name) pk \(id.primaryKey)\(id.isTemporaryID ? "t" : "") \(keys.joined(separator: ","))")
            }
            lines.append("  " + parts.joined(separator: " | "))
        }
        return lines.joined(separator: "\n")
    }

    func compare(_ requests: [EquivalenceRequest], _ expected: [String], phase: String, since mark: Int? = nil) throws {
        for (index, request) in requests.enumerated() {
            let got = request.run(in: documentWorld)
            guard got != expected[index] else { continue }
            failures += 1
            if failures > 5 { continue }
            var why = "seed \(seed), \(phase), request \(index): \(request)\n memory:   \(expected[index])\n document: \(got)"
            if let mark { why += "\n pending: " + script[mark...].map(\.description).joined(separator: "; ") }
            why += "\n" + diagnose(request, expected[index] + " " + got)
            Issue.record(Comment(rawValue: why))
        }
    }
}
