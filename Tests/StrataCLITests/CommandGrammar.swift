import Foundation
import StrataTestSupport

/// Command lines for `strata` and `strata-log` drawn from a grammar of their arguments over
/// the Employees example: mostly well-formed, with hostile parts mixed in at every level —
/// unknown names, malformed and deep predicates, expressions that divide by zero or call no
/// function, values out of range, quotes, control characters, long input — the way a user
/// at a shell, or a script with a bug in it, writes them (docs/RELIABILITY.md, "Bad input").
struct CommandGrammar {
    var random: SeededGenerator
    let document: String
    let scratch: TemporaryDirectory

    /// One command: the tool and its arguments.
    mutating func command() -> (tool: String, arguments: [String]) {
        switch int(0..<100) {
        case 0..<30: return ("strata", fetch())
        case 30..<40: return ("strata", insert())
        case 40..<50: return ("strata", update())
        case 50..<56: return ("strata", ["delete", document, uri()])
        case 56..<60: return ("strata", ["get", document, uri()])
        case 60..<66: return ("strata", [pick(["undo", "redo"]), document] + (chance(3) ? ["--steps", number()] : []))
        case 66..<70: return ("strata", ["history", document] + (chance(2) ? ["--json"] : []))
        case 70..<74: return ("strata", [pick(["info", "model"]), document] + (chance(2) ? ["--json"] : []))
        case 74..<80: return ("strata", importing())
        case 80..<84: return ("strata", ["export", document, "-o", scratch.path("export-\(int(0..<3)).json")])
        case 84..<90: return ("strata-log", [pick(["verify", "dump", "stats"]), document])
        case 90..<94: return ("strata-log", ["replay", document, "--to", number(), "--out", scratch.path("replay-\(int(0..<1000)).strata")])
        default: return ("strata", garbage())
        }
    }

    // MARK: Commands

    private mutating func fetch() -> [String] {
        var arguments = ["fetch", document, entity()]
        if chance(2) { arguments += ["--where", predicate(depth: 0)] }
        for _ in 0..<int(0..<3) { arguments += ["--sort", key() + pick(["", ":desc", ":c", ":c:desc", ":sideways"])] }
        if chance(4) { arguments += ["--limit", number()] }
        if chance(5) { arguments += ["--offset", number()] }
        if chance(4) { arguments += ["--format", pick(["table", "json", "csv", "ids", "yaml"])] }
        if chance(6) { arguments.append("--count") }
        if chance(4) {
            arguments += ["--select", (0..<int(1..<4)).map { _ in selectItem() }.joined(separator: ", ")]
            if chance(2) { arguments += ["--group-by", key()] }
            if chance(3) { arguments += ["--having", predicate(depth: 2)] }
            if chance(4) { arguments.append("--distinct") }
        }
        return arguments
    }

    private mutating func insert() -> [String] {
        ["insert", document, entity()] + (0..<int(0..<4)).map { _ in assignment() }
    }

    private mutating func update() -> [String] {
        if chance(2) {
            return ["update", document, entity(), "--where", predicate(depth: 1)]
                + (0..<int(1..<3)).map { _ in "\(key())=\(expression(depth: 0))" }
        }
        return ["update", document, uri()] + (0..<int(1..<4)).map { _ in assignment() }
    }

    private mutating func importing() -> [String] {
        let file = scratch.path("import-\(int(0..<1_000_000)).\(chance(2) ? "csv" : "json")")
        var lines: [String] = []
        if file.hasSuffix(".csv") {
            let header = (0..<int(1..<4)).map { _ in key() }
            lines.append(header.joined(separator: ","))
            for _ in 0..<int(0..<5) { lines.append(header.map { _ in csvCell() }.joined(separator: ",")) }
        } else {
            let objects = (0..<int(0..<4)).map { _ in "{\"\(key())\": \(jsonValue())}" }
            lines.append(chance(10) ? "[{" : "[" + objects.joined(separator: ",") + "]")
        }
        try? Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        var arguments = ["import", document, file, "--entity", entity()]
        if chance(3) { arguments += ["--merge-policy", pick(["error", "objectTrump", "storeTrump", "overwrite", "rollback", "keep"])] }
        return arguments
    }

    private mutating func garbage() -> [String] {
        pick([
            [pick(["fetchh", "Fetch", "", "--", "-x"]), document],
            ["fetch"],
            ["fetch", document],
            ["insert", document],
            ["fetch", document, entity(), "--where"],
            ["fetch", document, entity(), "--limit", pick(["-1", "x", "99999999999999999999999"])],
            ["get", document, pick(["", "/", "Employee/", "Employee/p", "x-strata://", "Employee/p-1", "Employee/p99999999999999999999"])],
            ["undo", document, "--steps", pick(["0", "-3", "1e3", "x"])],
            ["fetch", scratch.path("missing.strata"), "Employee"],
            ["fetch", scratch.path(""), "Employee"],
        ])
    }

    // MARK: Parts

    private static let entities = ["Employee", "Department", "Project", "Person"]
    private static let attributes = [
        "firstName", "lastName", "fullName", "salary", "startDate", "employeeID", "email", "active", "rating", "bonus",
        "badge", "homepage", "photo", "notes", "name", "budget", "deadline",
    ]
    private static let relationships = ["manager", "directReports", "department", "projects", "employees", "members"]

    private mutating func entity() -> String {
        chance(12) ? pick(["Employe", "employee", "Nothing", "", "Emp loyee", "Employee\u{7}", "sqlite_master", "strata_meta"])
            : pick(Self.entities)
    }

    private mutating func key() -> String {
        switch int(0..<20) {
        case 0..<12: return pick(Self.attributes)
        case 12..<15: return pick(Self.relationships) + (chance(2) ? "." + pick(Self.attributes) : "")
        case 15..<17: return pick(["employees.@count", "directReports.@count", "employees.@sum.salary", "members.@avg.rating"])
        case 17: return pick(["salry", "Salary", "_uri", "rowid", "Z_PK", "key", "1abc", "a b", "\"salary\""])
        case 18: return pick(["department.employees.department.name", "manager.manager.manager.salary", "self", "SELF"])
        default: return String(repeating: "a", count: int(1..<300))
        }
    }

    private mutating func uri() -> String {
        switch int(0..<10) {
        case 0..<7: return "\(pick(Self.entities))/p\(int(0..<12))"
        case 7: return "x-strata://00000000-0000-0000-0000-000000000000/Employee/p1"
        case 8: return pick(["Employee/t1", "Employee/p0", "Employee/pp1", "Nothing/p1", "Employee/p1/x", "@Employee/p1"])
        default: return String(repeating: "Employee/", count: int(1..<60)) + "p1"
        }
    }

    private mutating func number() -> String {
        pick(["0", "1", "2", "3", "10", "-1", "1000000", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
              "1.5", "1e309", "NaN", "0x10", "", " 1"])
    }

    private mutating func literal() -> String {
        switch int(0..<12) {
        case 0..<3: return number()
        case 3..<6: return pick(["'Ada'", "\"Research\"", "'O''Brien'", "'a\\'b'", "\"\"", "'日本'", "'%_'", "'\u{1}'", "'unterminated"])
        case 6: return pick(["nil", "NULL", "YES", "NO", "TRUE", "FALSE"])
        case 7: return pick(["CAST(0, 'NSDate')", "CAST('x', 'NSDate')", "now()", "CAST(700000000, \"NSDate\")"])
        case 8: return pick(["$name", "$", "%@", "%d", "%K"])
        case 9: return "{" + (0..<int(0..<4)).map { _ in number() }.joined(separator: ", ") + "}"
        case 10: return "'" + String(repeating: "x", count: int(100..<400)) + "'"
        default: return pick(["Employee/p1", "@Employee/p1", "x-strata://00000000-0000-0000-0000-000000000000/Employee/p1"])
        }
    }

    private mutating func predicate(depth: Int) -> String {
        if depth > 3 || chance(3) { return comparison() }
        switch int(0..<10) {
        case 0..<3: return "\(predicate(depth: depth + 1)) \(pick(["AND", "OR", "&&", "||", "and"])) \(predicate(depth: depth + 1))"
        case 3: return "NOT (\(predicate(depth: depth + 1)))"
        case 4: return "(\(predicate(depth: depth + 1)))"
        case 5: return "\(pick(["ANY", "ALL", "NONE", "SOME"])) \(pick(Self.relationships)).\(pick(Self.attributes)) \(comparisonOperator()) \(literal())"
        case 6: return "SUBQUERY(\(pick(Self.relationships)), $x, $x.\(pick(Self.attributes)) \(comparisonOperator()) \(literal())).@count > \(number())"
        case 7: return pick(["TRUEPREDICATE", "FALSEPREDICATE", "", "(", ")", "salary >", "AND", "== 1", "salary == == 1", "salary = 1 OR"])
        case 8: return String(repeating: "(", count: int(1..<3_000)) + comparison() + String(repeating: ")", count: int(0..<3_000))
        default: return (0..<int(2..<300)).map { _ in comparison() }.joined(separator: " OR ")
        }
    }

    private mutating func comparison() -> String {
        switch int(0..<8) {
        case 0: return "\(key()) \(pick(["IN", "BETWEEN"])) \(literal())"
        case 1: return "\(key()) \(pick(["CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES"]))\(pick(["", "[c]", "[cd]", "[x]"])) \(pick(["'a'", "'('", "'[z-a]'", "'*'", "'.*'", "'\\\\'"]))"
        case 2: return "\(expression(depth: 1)) \(comparisonOperator()) \(expression(depth: 1))"
        default: return "\(key()) \(comparisonOperator()) \(literal())"
        }
    }

    private mutating func comparisonOperator() -> String {
        pick(["==", "!=", "<", "<=", ">", ">=", "=", "<>", "=>", "=<", "===", "~"])
    }

    private mutating func expression(depth: Int) -> String {
        if depth > 2 || chance(2) { return chance(2) ? key() : literal() }
        switch int(0..<6) {
        case 0: return "\(expression(depth: depth + 1)) \(pick(["+", "-", "*", "/", "**", "%"])) \(expression(depth: depth + 1))"
        case 1: return "\(pick(["lowercase", "uppercase", "abs", "sqrt", "trunc", "length", "sum", "average", "noSuchFunction", "now"])):(\(expression(depth: depth + 1)))"
        case 2: return "TERNARY(\(comparison()), \(expression(depth: depth + 1)), \(expression(depth: depth + 1)))"
        case 3: return "\(key()) / 0"
        case 4: return "(\(expression(depth: depth + 1))"
        default: return "FUNCTION(\(key()), '\(pick(["length", "x", ""]))')"
        }
    }

    private mutating func selectItem() -> String {
        let item = chance(3)
            ? "\(pick(["sum", "count", "min", "max", "average", "median", "mode", "stddev", "nope"])):(\(key()))"
            : expression(depth: 1)
        return chance(2) ? "\(item) AS \(pick(["n", "total", "x:integer64", "y:double", "z:nonsense", "select", "1"]))" : item
    }

    private mutating func assignment() -> String {
        switch int(0..<10) {
        case 0..<6: return "\(key())=\(pick([literal(), "Ada", "", "null", "12", "2026-11-28T12:00:00Z", "@Department/p1"]))"
        case 6: return "\(pick(Self.relationships))\(pick(["+=", "-="]))@\(uri())"
        case 7: return pick(["=", "salary", "salary==1", "=1", "salary=\u{1b}[2J"])
        case 8: return "\(key())=\(String(repeating: "z", count: int(1..<5_000)))"
        default: return "photo=\(pick(["base64:AAAA", "base64:!!", "0x00ff"]))"
        }
    }

    private mutating func csvCell() -> String {
        pick(["Ada", "", "\"quoted, with comma\"", "\"unterminated", "12", "-1", "1e400", "true", "null", "\u{FEFF}bom", "a\"b",
              String(repeating: "c", count: int(1..<2_000))])
    }

    private mutating func jsonValue() -> String {
        pick(["\"Ada\"", "12", "null", "true", "[]", "{}", "1e400", "\"\\ud800\"", "\"2026-11-28T12:00:00Z\"", "-0", "\"\""])
    }

    // MARK: Randomness

    private mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
    private mutating func chance(_ oneIn: Int) -> Bool { int(0..<oneIn) == 0 }
    private mutating func pick<T>(_ choices: [T]) -> T { choices[int(0..<choices.count)] }
}
