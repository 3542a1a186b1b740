import Foundation

/// The command line: the parent runs every selected unit in child processes, aggregates,
/// prints the table and writes JSON; a child (`--child ID`) runs one unit once and prints
/// its figures as one JSON line.
///
/// ```
/// StrataBenchmarks [--quick] [--only W1,w3-sqlite] [--json FILE] [--markdown FILE]
///                  [--compare FILE] [--python PATH] [--peers DIR] [--data DIR]
///                  [--repetitions N] [--objects N] [--edits N] ...
/// StrataBenchmarks --list
/// StrataBenchmarks document [--quick]     (a standalone workload, WorkloadRegistry.commands)
/// StrataBenchmarks inspector [--quick]    (the inspector's requests; declared with STRATA_INSPECTOR=1)
/// StrataBenchmarks --w11-writer ...       (one of W11's writers, ManyWriterProcess)
/// ```
struct BenchRunner {
    var arguments: [String]

    func value(_ flag: String) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    var tier: Tier {
        Tier.parse(arguments, base: arguments.contains("--smoke") ? .smoke : arguments.contains("--quick") ? .quick : .full)
    }

    var environment: BenchEnvironment {
        let data = URL(fileURLWithPath: value("--data") ?? ".build-bench/data")
        try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let python = value("--python") ?? ProcessInfo.processInfo.environment["STRATA_BENCH_PYTHON"]
        return BenchEnvironment(
            tier: tier, dataDirectory: data, python: python,
            peersDirectory: URL(fileURLWithPath: value("--peers") ?? "Tools/Benchmarks/peers"))
    }

    /// What `--help` prints: the forms above, with what each does.
    static let usage = """
        usage: strata-benchmarks [--smoke|--quick] [--only W1,w3-sqlite,...] [--json FILE] [--markdown FILE]
                                 [--compare FILE] [--python PATH] [--peers DIR] [--data DIR] [--repetitions N] [sizes...]
               strata-benchmarks --list                 the units, one a line (id, workload, subject)
               strata-benchmarks --child ID [sizes...]  one Swift unit once, its figures as one JSON line
               strata-benchmarks document|fetch|w1-memory [--quick]   a standalone workload
               strata-benchmarks inspector [--quick] [--data DIR]   the inspector's requests (STRATA_INSPECTOR=1)

        Without --smoke or --quick it runs the full tier (docs/BENCHMARKS.md: an hour and more).
        Tools/Benchmarks/run builds it in release and passes the peers and the Python with Loro.
        """

    func main() -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(Self.usage)
            return 0
        }
        if arguments.contains("--list") {
            for unit in WorkloadRegistry.units { print("\(unit.id)\t\(unit.workload)\t\(unit.subject)") }
            return 0
        }
        if let id = value("--child") { return runChild(id) }
        if let index = arguments.firstIndex(of: "--w11-writer") { return ManyWriterProcess.main(Array(arguments[(index + 1)...])) }
        if let name = arguments.dropFirst().first, let command = WorkloadRegistry.commands[name] {
            do {
                try command(arguments.contains("--quick"))
                return 0
            } catch {
                note("\(name): \(error)")
                return 1
            }
        }
        do {
            return try runParent() ? 0 : 1
        } catch {
            note("benchmarks: \(error)")
            return 1
        }
    }

    // MARK: Child

    func runChild(_ id: String) -> Int32 {
        guard let unit = WorkloadRegistry.unit(id), case .swift(let body) = unit.body else {
            note("no Swift unit named \(id)")
            return 2
        }
        do {
            let figures = try body(environment)
            let data = try JSONSerialization.data(withJSONObject: ["figures": figures], options: [.sortedKeys])
            FileHandle.standardOutput.write(data + Data("\n".utf8))
            return 0
        } catch {
            note("\(id) failed: \(error)")
            return 1
        }
    }

    // MARK: Parent

    func selectedUnits() -> [BenchUnit] {
        guard let only = value("--only") else { return WorkloadRegistry.units }
        let wanted = Set(only.split(separator: ",").map { $0.lowercased() })
        return WorkloadRegistry.units.filter { wanted.contains($0.id.lowercased()) || wanted.contains($0.workload.lowercased()) }
    }

    /// Runs the selected units; false when one of them failed.
    func runParent() throws -> Bool {
        let env = environment
        let started = Date()
        let machine = MachineInfo.current()
        var values: [String: [Double]] = [:]
        var notes: [String] = []
        var failed = false
        print("Strata benchmarks, \(env.tier.name) tier — \(machine.cpu), \(machine.cores) cores, load \(machine.loadAverageAtStart)")
        for unit in selectedUnits() {
            let unitTier = unit.scale?(env.tier) ?? env.tier
            if let note = sizeNote(unit, unitTier, env.tier) { notes.append(note) }
            for repetition in 1...max(unit.repetitions(env.tier), 1) {
                let start = Clock.now
                do {
                    let figures = try ChildProcess.run(unit, tier: unitTier, environment: env)
                    for (name, value) in figures {
                        guard let dot = name.firstIndex(of: ".") else { continue }
                        values["\(name[..<dot]).\(unit.subject)\(name[dot...])", default: []].append(value)
                    }
                    print(String(format: "  %@ #%d: %.1f s", unit.id, repetition, Clock.seconds(since: start)))
                    fflush(nil)  // progress appears at once when piped to a log
                } catch let failure as ChildProcess.Failure where failure.isSkip {
                    print("  \(unit.id): \(failure)")
                    notes.append("\(unit.id) \(failure)")
                    break
                } catch {
                    print("  \(unit.id) #\(repetition): FAILED (\(error))")
                    notes.append("\(unit.id) failed: \(error)")
                    failed = true
                    break
                }
            }
        }
        var finished = machine
        finished.loadAverageAtEnd = MachineInfo.loadAverage()
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let commit = shell(["git", "rev-parse", "HEAD"], directory: root)
        let dirty = !shell(["git", "status", "--porcelain", "--untracked-files=no"], directory: root).isEmpty
        let figures = values.mapValues(FigureStats.init)
        var results = BenchResults(
            tier: env.tier.name, date: ISO8601DateFormatter().string(from: started),
            durationSeconds: Date().timeIntervalSince(started),
            command: "Tools/Benchmarks/run" + (env.tier.name == "full" ? "" : " --\(env.tier.name)"),
            machine: finished, commit: commit.isEmpty ? "unknown" : commit, commitIsDirty: dirty,
            sizes: ["objects": env.tier.objects, "editObjects": env.tier.editObjects, "edits": env.tier.edits,
                    "editsPerGroup": env.tier.editsPerGroup, "groupsPerSegment": env.tier.groupsPerSegment,
                    "smallSaves": env.tier.smallSaves, "textKeystrokes": env.tier.textKeystrokes,
                    "stringKeystrokes": env.tier.stringKeystrokes, "repetitions": env.tier.repetitions,
                    "bulkRepetitions": env.tier.bulkRepetitions],
            notes: notes, figures: figures, targets: [])
        results.targets = Targets.all.map { $0.evaluate(results.medians) }

        let report = ResultTable.header(results) + "\n\n" + ResultTable.markdown(results) + "\n\n"
            + "Ratios in parentheses: Strata ÷ peer (times and sizes: below 1× Strata is ahead; rates: above 1×).\n\n"
            + ResultTable.targetsMarkdown(results)
        print("")
        print(report)
        let json = URL(fileURLWithPath: value("--json") ?? ".build-bench/results-\(env.tier.name).json")
        try results.write(to: json)
        print("\nJSON: \(json.path)")
        if let markdown = value("--markdown") {
            try Data((report + "\n").utf8).write(to: URL(fileURLWithPath: markdown))
            print("Markdown: \(markdown)")
        }
        if let previous = value("--compare") {
            print("")
            print(ResultTable.comparison(results, with: try BenchResults.read(from: URL(fileURLWithPath: previous))))
        }
        if failed { print("\nSome units FAILED (see above).") }
        return !failed
    }

    func sizeNote(_ unit: BenchUnit, _ unitTier: Tier, _ tier: Tier) -> String? {
        var changes: [String] = []
        if unitTier.objects != tier.objects { changes.append("\(unitTier.objects) objects") }
        if unitTier.edits != tier.edits { changes.append("\(unitTier.edits) edits over \(unitTier.editObjects) objects") }
        guard !changes.isEmpty else { return nil }
        return "\(unit.id) ran at \(changes.joined(separator: ", ")) (\(unit.scaleReason ?? "the tier's size takes too long for this peer"))"
    }
}
