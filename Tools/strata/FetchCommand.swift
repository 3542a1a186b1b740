import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata fetch DOC ENTITY [--where P] [--sort KEY[:desc]]... [--limit N] [--offset N] [--format F] [--count]`,
/// and computed fetches: `[--select 'EXPR [AS name], …'] [--group-by 'EXPR, …'] [--having P] [--distinct]`.
struct FetchCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv, ids
    }

    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch objects of an entity with a predicate, an order and a window.",
        discussion: """
            --where takes an NSPredicate-format predicate (==, !=, <, >, BETWEEN, IN, \
            CONTAINS[cd], BEGINSWITH, LIKE, MATCHES, ANY/ALL, key paths through relationships, \
            @count/@sum/...). A malformed predicate is an error naming its column. Objects of \
            sub-entities are included. --sort KEY sorts ascending, KEY:desc descending \
            (repeat it for several keys; :c sorts case-insensitively, e.g. lastName:c:desc).

            Formats: table (for people; columns empty in every row are left out), json (an array of {"_uri", "_entity", property: \
            value...} in model order; to-ones are URIs or null, to-manys arrays of URIs), csv \
            (a header row, then one row per object), ids (one URI per line). --count prints \
            only the number of matching objects (after --offset and --limit).

            Objects are printed as they are read (one SQL cursor, in the --sort order), so \
            memory stays the same whatever their number: json, csv and ids read the \
            records once (csv twice when the entity has sub-entities, to find their \
            columns first); table reads them twice, measuring its columns first. The \
            --select, --group-by, --having and --distinct rows are computed whole and then \
            printed.

            Examples:
              strata fetch staff.strata Employee
              strata fetch staff.strata Employee --where 'salary > 100000'
              strata fetch staff.strata Employee --where 'department.name == "R&D"'
              strata fetch staff.strata Employee --sort lastName --sort salary:desc
              strata fetch staff.strata Employee --limit 10 --offset 20 --format json
              strata fetch staff.strata Department --where 'employees.@count >= 2' --count
              strata fetch staff.strata Employee --format csv > employees.csv

            Computed fetches (Core Data's dictionary results): --select lists what each row \
            holds, comma-separated: key paths and NSExpression-format expressions, each with \
            an optional AS name (AS name:type chooses the result type, e.g. AS mean:integer64; \
            otherwise it is inferred). Aggregates (sum:, count:, min:, max:, average:, median:, \
            mode:, stddev:) of a record's value reduce the rows: all of them into one row, or \
            each --group-by group into one row. --having filters groups by the selected names \
            or by aggregates; --sort may name a selected name; --distinct drops repeated rows. \
            Every selected item that is not an aggregate must be grouped by.
              strata fetch staff.strata Employee --group-by department.name \\
                --select 'department.name, sum:(salary) AS total' \\
                --having 'total > 100000' --sort total:desc
              strata fetch staff.strata Employee \\
                --select 'count:(salary) AS n, average:(salary) AS mean:integer64'
              strata fetch staff.strata Employee --format json \\
                --select 'lastName, salary * 1.1 AS raised'
              strata fetch staff.strata Employee --select department.name --distinct
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Argument(help: "The entity.")
    var entity: String
    @Option(name: .customLong("where"), help: "A predicate, e.g. 'salary > 100000'.")
    var predicate: String?
    @Option(help: "A sort key: KEY, KEY:desc or KEY:c[:desc]; repeatable.")
    var sort: [String] = []
    @Option(help: "The most objects to return (0: no limit).")
    var limit = 0
    @Option(help: "Objects to skip first.")
    var offset = 0
    @Option(name: .customLong("format"), help: "table, json, csv or ids.")
    var formatOption: Format = .table
    @Flag(help: "The same as --format json (as `info`, `history` and the other commands take it).")
    var json = false
    /// `--format`, or json with `--json`.
    var format: Format { json ? .json : formatOption }
    @Flag(help: "Print only the number of matching objects (of rows, with --select or --group-by).")
    var count = false
    @Option(help: "Computed columns: 'KEYPATH | EXPR [AS name[:type]], ...', e.g. 'department.name, sum:(salary) AS total'.")
    var select: String?
    @Option(name: .customLong("group-by"), help: "Group rows by these key paths or expressions: 'KEYPATH | EXPR, ...'.")
    var groupBy: String?
    @Option(help: "Keep the groups matching this predicate over selected names or aggregates, e.g. 'total > 100000'.")
    var having: String?
    @Flag(help: "With --select: drop rows equal to an earlier one.")
    var distinct = false

    /// Whether the fetch returns computed rows rather than objects.
    var isComputed: Bool { select != nil || groupBy != nil || having != nil || distinct }

    func validate() throws {
        if json, formatOption != .table, formatOption != .json {
            throw ValidationError("--json and --format \(formatOption.rawValue) disagree: give one of them.")
        }
        guard limit >= 0 else { throw ValidationError("--limit must not be negative.") }
        guard offset >= 0 else { throw ValidationError("--offset must not be negative.") }
        if isComputed, format == .ids { throw ValidationError("--format ids lists objects; --select, --group-by, --having and --distinct give rows.") }
        if having != nil, groupBy == nil { throw ValidationError("--having filters groups: it needs --group-by.") }
        if distinct, select == nil { throw ValidationError("--distinct needs --select.") }
    }

    /// The predicate as echoed in an error: whole when short, else the 60 characters
    /// around the error's column, so a hostile 100 KB predicate prints one short line.
    static func excerpt(_ text: String, column: Int?) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > 120 else { return text }
        let at = max(0, min(scalars.count, (column ?? 1) - 1))
        let start = max(0, at - 30), end = min(scalars.count, at + 30)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<end])
        return (start > 0 ? "…" : "") + String(view) + (end < scalars.count ? "…" : "")
    }

    func run() throws {
        let predicate = try predicate.map { text in
            do {
                return try FetchPredicate(format: text)
            } catch var error as StrataError {
                error.message = "Malformed predicate: \(error.message) (in: \(Self.excerpt(text, column: error.context.column)))"
                throw error
            }
        }
        let descriptors = try sort.map(Self.sortDescriptor)
        if isComputed { return try runComputed(predicate: predicate, descriptors: descriptors) }
        try DocumentSession.with(document, pageCacheSize: DocumentSession.onePassPageCacheSize) { session in
            let specification = FetchSpecification(
                entity: try session.entity(named: entity), predicate: predicate, sortDescriptors: descriptors,
                limit: limit, offset: offset)
            if count {
                print(try FetchBackend.count(specification, in: session))
                return
            }
            try printObjects(specification, in: session)
        }
    }

    static func sortDescriptor(_ text: String) throws -> FetchSortDescriptor {
        var parts = text.split(separator: ":").map(String.init)
        guard let key = parts.first, !key.isEmpty else { throw ValidationError("--sort needs a key: KEY, KEY:desc.") }
        parts.removeFirst()
        var descriptor = FetchSortDescriptor(key)
        for part in parts {
            switch part.lowercased() {
            case "desc", "descending": descriptor.ascending = false
            case "asc", "ascending": descriptor.ascending = true
            case "c", "i": descriptor.comparison = .caseInsensitive
            default: throw ValidationError("--sort \(input: text): \(input: part) is not asc, desc or c.")
            }
        }
        return descriptor
    }

    /// Every property of the fetched entity: the first columns of `table` and `csv`, before
    /// those of the sub-entities whose records appear (``addColumns(of:to:)``).
    static func baseColumns(of entity: EntityDescription) -> [String] {
        ToolRecordText.storedProperties(of: entity).map(\.property.name)
    }

    /// Adds the keys of a record not yet among `names`, in the record's order: the
    /// properties of a sub-entity, after those of the entities that appeared before it.
    static func addColumns(of record: JSONValue, to names: inout [String]) {
        guard case .object(let members) = record else { return }
        addColumns(members.map(\.key), to: &names)
    }

    /// Adds the keys among `keys` (a record's, `_uri` and `_entity` first) not yet among
    /// `names`, in order.
    static func addColumns(_ keys: [String], to names: inout [String]) {
        for key in keys.dropFirst(2) where !names.contains(key) { names.append(key) }
    }

    /// Whether a table column shows something for this value.
    static func fills(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: return false
        case .array(let items)?: return !items.isEmpty
        default: return true
        }
    }

    static func cell(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        switch value {
        case .string(let text): return text.hasPrefix("x-strata://") ? shortened(text) : text
        case .array(let items): return items.map { shortened($0.stringValue ?? "") }.joined(separator: " ")
        default: return value.rendered(pretty: false)
        }
    }

    private static func shortened(_ uri: String) -> String {
        let parts = uri.split(separator: "/")
        return parts.count >= 2 ? parts.suffix(2).joined(separator: "/") : uri
    }
}
