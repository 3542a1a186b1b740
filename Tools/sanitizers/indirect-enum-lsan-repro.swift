// LeakSanitizer reports the boxes of a Swift indirect enum held by a global as leaked.
// Build and run:
//   swiftc -sanitize=address -g Tools/sanitizers/indirect-enum-lsan-repro.swift -o /tmp/indirect-enum-lsan-repro
//   /tmp/indirect-enum-lsan-repro    # "Direct leak of ... byte(s)" for the boxes of `held`
// An indirect enum with several cases keeps each case's box pointer with the case number
// in the pointer's spare high bits, so the word in memory is not a pointer LeakSanitizer
// recognizes, and a value that stays reachable to the end (here a global, in the tests a
// model with derived attributes held by a global) is reported at exit.
// Tools/sanitizers/lsan.supp cites this program for the suppression.
indirect enum Expression {
    case constant(Int)
    case keyPath(String, on: Expression?)
    case aggregate(String, of: Expression, key: String?)
}

func build(_ names: [String]) -> [Expression] {
    names.map { .aggregate("@sum", of: .keyPath($0, on: nil), key: "salary") }
}

let held = build(CommandLine.arguments.count > 1 ? Array(CommandLine.arguments.dropFirst()) : ["employees", "projects", "reports"])
print(held.count)
