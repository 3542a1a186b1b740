import Foundation
import Testing

/// Whole-document passes are linear in the data even when one to-many holds 100,000
/// members (issue 12, item 5): `import` and `verify` were quadratic in the size of
/// Department.employees (61 s to import 100,000 employees into one department in a release
/// build; verify of 100,000 did not finish).
///
/// Two checks, neither a tight timing:
/// - each pass at 100,000 members finishes within a generous wall-clock bound;
/// - the processor time of a pass grows less than 8 times when the data grows 4 times
///   (linear gives about 4, quadratic about 16). Processor time is the child's own, as the
///   shell's `times` reports it, so other tests running in parallel do not skew the ratio.
@Suite("Linear whole-document passes", .serialized)
struct LinearScalingTests {
    /// A debug build took about 10 s to import and 9 s to verify 100,000 employees on a
    /// busy two-core machine, and under 60 s each while the whole suite ran beside it;
    /// 120 s leaves room for slower CI hosts, while the quadratic import took a minute of
    /// processor time even in a release build.
    static let wallBound: TimeInterval = 120
    static let growthBound = 8.0

    @Test("import, verify, get and undo of 100,000 employees in one department scale linearly")
    func oneHugeToManyScalesLinearly() throws {
        let small = try measure(employees: 25_000)
        let large = try measure(employees: 100_000)
        for (pass, seconds) in large.wall {
            #expect(seconds < Self.wallBound, "\(pass) of 100,000 took \(seconds) s")
        }
        for (pass, cpu) in large.cpu {
            // The small run's fixed costs (process start, model) make linear passes look
            // better than 4, never worse.
            let ratio = cpu / max(small.cpu[pass] ?? 0, 0.01)
            #expect(ratio < Self.growthBound,
                    "\(pass): \(small.cpu[pass] ?? 0) s of processor time for 25,000 members, \(cpu) s for 100,000 (×\(ratio))")
        }
    }

    private struct Measurement {
        var wall: [String: TimeInterval] = [:]
        var cpu: [String: Double] = [:]
    }

    /// Builds a document with one department and `count` employees in it (one CSV import),
    /// then verifies it, reads the department and undoes the import, timing each.
    private func measure(employees count: Int) throws -> Measurement {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let department = try sandbox.insert(document, "Department", "name=Research")
        var csv = "firstName,lastName,salary,department\n"
        csv.reserveCapacity(count * 80)
        for index in 0..<count { csv += "F\(index),L\(index),\(1000 + index),\(department)\n" }
        let rows = sandbox.path("rows.csv")
        try csv.write(toFile: rows, atomically: true, encoding: .utf8)

        var measurement = Measurement()
        func pass(_ name: String, _ tool: String, _ arguments: String...) throws -> String {
            let started = Date()
            let (result, cpu) = try timed(tool, arguments)
            measurement.wall[name] = Date().timeIntervalSince(started)
            measurement.cpu[name] = cpu
            #expect(result.status == 0, "\(name) failed: \(result.stderr)")
            return result.stdout
        }
        let imported = try pass("import", "strata", "import", document, rows, "--entity", "Employee")
        #expect(imported.contains("Imported \(count) objects"))
        let verified = try pass("verify", "strata-log", "verify", document)
        // Every employee's department, and the department's employees back.
        #expect(verified.contains("\(2 * count) relationship links"), "\(verified)")
        let got = try pass("get", "strata", "get", document, department, "--json")
        #expect(got.components(separatedBy: "/Employee/p").count - 1 == count)
        _ = try pass("undo", "strata", "undo", document)
        let after = try CLI.strata("get", document, department, "--json")
        #expect(!after.stdout.contains("/Employee/p"))
        return measurement
    }

    /// Runs a tool through `sh`, whose `times` prints the processor time of its finished
    /// children; returns the tool's result (without that line) and its user + system seconds.
    private func timed(_ tool: String, _ arguments: [String]) throws -> (CommandResult, Double) {
        let script = "\"$0\" \"$@\"; status=$?; times >&2; exit $status"
        var result = try CLI.run("/bin/sh", ["-c", script, CLI.binary(tool).path] + arguments)
        // `times` prints two lines: the shell's own times, then its children's.
        var lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        let children = lines.popLast() ?? ""
        _ = lines.popLast()
        result.stderr = lines.joined(separator: "\n")
        let seconds = children.split(separator: " ").map { Self.seconds(String($0)) }.reduce(0, +)
        return (result, seconds)
    }

    /// "1m2.500s" → 62.5.
    private static func seconds(_ text: String) -> Double {
        let parts = text.trimmingCharacters(in: CharacterSet(charactersIn: "s")).split(separator: "m")
        guard parts.count == 2, let minutes = Double(parts[0]), let seconds = Double(parts[1]) else { return 0 }
        return minutes * 60 + seconds
    }
}
