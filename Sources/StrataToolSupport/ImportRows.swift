import Foundation
import Strata

/// One object to import: its entity, its old URI, and its property values.
package struct ImportRow {
    /// A value as the file holds it.
    package enum Value {
        /// A JSON value (JSON import files).
        case json(JSONValue)
        /// A CSV cell (an empty cell is null).
        case text(String)
    }
    /// The row's number in the file, from 1, for errors.
    package var number: Int
    /// The `_entity` the row names, if any.
    package var entity: String?
    /// The `_uri` the row names, if any: other rows of the file may refer to it.
    package var uri: String?
    /// The property values, in the file's order.
    package var values: [(key: String, value: Value)]
}

/// Where `strata import` puts objects: a context, and how entity names and references to
/// objects already there resolve. `strata`'s document session is one; the fuzzers
/// (Tests/Fuzz) use an in-memory store.
package protocol ImportDestination {
    /// The context the objects are inserted into.
    var context: ManagedObjectContext { get }
    /// The entity with a name.
    /// - Throws: `.unknownKey` naming it.
    func entity(named name: String) throws -> EntityDescription
    /// The ID a URI or `Entity/pKEY` reference names.
    /// - Throws: `.invalidObjectID`, `.objectNotFound` naming the reference.
    func objectID(_ reference: String) throws -> ManagedObjectID
}

/// The rows of an import file, one at a time: a JSON array of objects, or CSV with a
/// header row of property names. Memory holds one row (and the reader's chunk).
package struct ImportRowReader {
    /// The bytes being read (progress: `bytesConsumed` of `totalBytes`).
    package let source: ImportByteSource
    private var csv: CSVReader?
    private var json: JSONArrayReader?
    private var header: [String]?
    private var number = 0

    /// A reader of `source`, as CSV or as a JSON array.
    /// - Parameters:
    ///   - limits: the import limits a row is held to (``StrataLimits/maxImportFieldBytes``,
    ///     ``StrataLimits/maxImportRecordBytes``, ``StrataLimits/maxImportRecordValues``).
    ///   - replacesInvalidUTF8: CSV only: store U+FFFD for bytes that are not UTF-8 instead
    ///     of failing (JSON text must be UTF-8).
    package init(_ source: ImportByteSource, csv isCSV: Bool, limits: StrataLimits = .current, replacesInvalidUTF8: Bool = false) {
        self.source = source
        if isCSV {
            csv = CSVReader(source, limits: limits, replacesInvalidUTF8: replacesInvalidUTF8)
        } else {
            json = JSONArrayReader(source, limits: limits)
        }
    }

    /// The next row, or nil after the last.
    /// - Throws: `.invalidArgument` naming an item that is not an object or a CSV row whose
    ///   field count differs from the header's; the readers' errors (with line numbers).
    package mutating func next() throws -> ImportRow? {
        if json != nil { return try nextJSON() }
        return try nextCSV()
    }

    private mutating func nextJSON() throws -> ImportRow? {
        guard let item = try json?.nextItem() else { return nil }
        number += 1
        guard case .object(let members) = item else {
            throw StrataError(.invalidArgument, "Item \(number) of the import file is not an object.", context: .init { $0.row = number })
        }
        var row = ImportRow(number: number, entity: nil, uri: nil, values: [])
        for member in members {
            switch member.key {
            case "_entity": row.entity = member.value.stringValue
            case "_uri": row.uri = member.value.stringValue
            default:
                // A composite attribute is a nested object: its elements are `key.element`
                // (a nested composite's `key.nested.element`).
                func flatten(_ key: String, _ value: JSONValue) {
                    if case .object(let elements) = value {
                        for element in elements { flatten(key + "." + element.key, element.value) }
                    } else {
                        row.values.append((key, .json(value)))
                    }
                }
                flatten(member.key, member.value)
            }
        }
        return row
    }

    private mutating func nextCSV() throws -> ImportRow? {
        guard let header = try csvHeader(), let count = try nextCSVRecord(columns: header.count) else { return nil }
        var row = ImportRow(number: number, entity: nil, uri: nil, values: [])
        row.values.reserveCapacity(count)
        for (index, key) in header.enumerated() {
            let field = try csvField(index)
            switch key {
            case "_entity": row.entity = field.isEmpty ? nil : field
            case "_uri": row.uri = field.isEmpty ? nil : field
            default: row.values.append((key, .text(field)))
            }
        }
        return row
    }

    /// A CSV file's header, its column names (read first, once); nil for JSON or an empty file.
    /// - Throws: the reader's errors; `.invalidArgument` for a column named twice.
    package mutating func csvHeader() throws -> [String]? {
        if let header { return header }
        guard csv != nil, let first = try Self.located(row: nil, header: nil, { try csv?.nextRecord() }) else { return nil }
        try Self.checkHeader(first)
        header = first
        return first
    }

    /// Reads the next CSV row, whose fields ``csvField(_:)`` and ``withCSVFieldBytes(_:_:)``
    /// then give, and returns its field count (the header's), or nil after the last row.
    /// Blank lines count as rows (the numbers match the file's records) but hold nothing:
    /// they are skipped. ``rowNumber`` is the row's number.
    /// - Throws: `.invalidArgument` naming a row whose field count differs from the header's
    ///   (`columns`); the reader's errors, located by row and column.
    package mutating func nextCSVRecord(columns: Int) throws -> Int? {
        while let count = try Self.located(row: number + 1, header: header, { try csv?.readRecord() }) {
            number += 1
            if count == 1, csv?.fieldLength(0) == 0 { continue }
            guard count == columns else {
                throw StrataError(.invalidArgument, "CSV row \(number) has \(count) fields; the header has \(columns).",
                                  context: .init { $0.row = number })
            }
            return count
        }
        return nil
    }

    /// The number of the row read last, from 1.
    package var rowNumber: Int { number }

    /// Field `index` of the CSV row read last, as text.
    /// - Throws: `.invalidArgument` for bytes that are not UTF-8, naming the row and column.
    /// (`mutating` only so that the reader is read where it lies: a non-mutating call on
    /// the reader its caller holds copied it, a retain of each of its buffers, per cell.)
    package mutating func csvField(_ index: Int) throws -> String {
        try Self.located(row: number, header: header) { try csv?.fieldText(index) ?? "" }
    }

    /// Lends the bytes of field `index` of the CSV row read last to `body` (a cell that
    /// holds a number or a boolean converts without a `String`).
    /// (`mutating` as ``csvField(_:)``.)
    package mutating func withCSVFieldBytes<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        try csv?.withFieldBytes(index, body)
    }

    /// Refuses a header that names a column twice: each row would set the property twice,
    /// and only the last value would stay.
    private static func checkHeader(_ names: [String]) throws {
        var first: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            if let earlier = first[name] {
                throw StrataError(.invalidArgument,
                                  "The CSV header names the column \(quoted(name)) twice (columns \(earlier + 1) and \(index + 1)); name each column once.",
                                  context: .init { $0.row = 0; $0.columnName = String(name.prefix(200)) })
            }
            first[name] = index
        }
    }

    /// A CSV reader's error about one field, with the row (nil: the header) and the
    /// column's name: "CSV row 3, column 'name' (line 4): the field is not valid UTF-8…".
    private static func located<T>(row: Int?, header: [String]?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as StrataError {
            guard let reason = error.context.reason, let field = error.context.fieldIndex else { throw error }
            let place = row.map { "CSV row \($0)" } ?? "The CSV header"
            let column = header.flatMap { field < $0.count ? $0[field] : nil }.map { "column \(Self.quoted($0))" } ?? "column \(field + 1)"
            error.message = "\(place), \(column) (line \(error.context.line.map(String.init) ?? "?")): \(reason)."
            error.context.row = row ?? 0
            if let name = header.flatMap({ field < $0.count ? $0[field] : nil }) { error.context.columnName = String(name.prefix(200)) }
            throw error
        }
    }

    /// A column name for a message, quoted and cut to 60 characters.
    private static func quoted(_ name: String) -> String {
        "'" + (name.count > 60 ? String(name.prefix(60)) + "…" : name) + "'"
    }
}

/// Reading import files (JSON arrays, CSV) and inserting their objects into a context.
package enum ImportRows {
    /// The rows of a JSON import file: an array of objects.
    /// - Throws: `.invalidArgument` naming the item that is not an object; the JSON
    ///   reader's errors (with line and column).
    package static func json(_ data: Data) throws -> [ImportRow] {
        try all(ImportRowReader(ImportByteSource(bytes: [UInt8](data)), csv: false))
    }

    /// The rows of a CSV import file: a header of property names, then one row per object.
    /// - Throws: `.invalidArgument` naming a row whose field count differs from the header's.
    package static func csv(_ data: Data) throws -> [ImportRow] {
        try all(ImportRowReader(ImportByteSource(bytes: [UInt8](data)), csv: true))
    }

    private static func all(_ reader: ImportRowReader) throws -> [ImportRow] {
        var reader = reader
        var rows: [ImportRow] = []
        while let row = try reader.next() { rows.append(row) }
        return rows
    }

    /// Creates every object, then links relationships; the caller saves (as one undo group
    /// named by the returned action).
    /// - Returns: How many objects were created and the undo action name ("Import ENTITY").
    /// - Throws: The first bad row's error, its message starting "Import row N".
    package static func insert(
        _ rows: [ImportRow], defaultEntity: String?, into session: some ImportDestination
    ) throws -> (count: Int, action: String) {
        var iterator = rows.makeIterator()
        return try insert(next: { iterator.next() }, progress: nil, defaultEntity: defaultEntity, into: session)
    }

    /// Creates an object per row as rows come, keeping only the rows that link
    /// relationships, then links those in a second pass; the caller saves.
    /// - Parameter progress: the bytes read and the file's size, for the progress bar's
    ///   "Reading" phase (no bar without it).
    package static func insert(
        next: () throws -> ImportRow?, progress: (() -> (done: Int, total: Int))?,
        defaultEntity: String?, into session: some ImportDestination
    ) throws -> (count: Int, action: String) {
        let fallback = try defaultEntity.map(session.entity(named:))
        let bar = progress.map { _ in ToolProgressBar(.reading) }
        var links: [(row: ImportRow, object: ManagedObject)] = []
        var byOldURI: [String: ManagedObjectID] = [:]
        var names = Set<String>()
        var count = 0
        while let row = try next() {
            try rowContext(row) {
                let entity = try ImportValues.entity(of: row, fallback: fallback, in: session)
                let object = try session.context.insertObject(of: entity)
                var linksRelationships = false
                for (key, value) in row.values {
                    if entity.relationshipsByName[key] != nil { linksRelationships = true; continue }
                    try object.setValue(try ImportValues.attribute(value, key: key, of: entity), forKey: key)
                }
                if let uri = row.uri { byOldURI[uri] = object.objectID }
                if linksRelationships { links.append((row, object)) }
                names.insert(entity.name)
                count += 1
            }
            if let progress, count % 256 == 0 {
                let (done, total) = progress()
                bar?.update(rows: count, fraction: total > 0 ? Double(done) / Double(total) : nil)
            }
        }
        for entry in links {
            try rowContext(entry.row) {
                let entity = entry.object.entity
                for (key, value) in entry.row.values {
                    guard let relationship = entity.relationshipsByName[key] else { continue }
                    let ids = try ImportValues.references(value, key: key).map { reference -> ManagedObjectID in
                        if let id = byOldURI[reference] { return id }
                        return try ImportValues.existing(reference, key: key, in: session)
                    }
                    try entry.object.setValue(try ImportValues.relationshipValue(ids, relationship), forKey: key)
                }
            }
        }
        bar?.finish(rows: count)
        let action = "Import " + (names.count == 1 ? (names.first ?? "Objects") : (fallback?.name ?? "Objects"))
        return (count, action)
    }

    /// Runs `body`, prefixing a thrown error's message with "Import row N (URI): ".
    package static func rowContext(_ row: ImportRow, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch var error as StrataError {
            error.message = "Import row \(row.number)\(row.uri.map { " (\($0))" } ?? ""): \(error.message)"
            error.context.row = row.number
            throw error
        }
    }
}
