/// Rows a fetch read, kept column by column (``FetchedColumn``) and shared by the
/// objects made from them: each clean fetched object reads its values here, by its row,
/// until it changes one (``ObjectValues``) — as Core Data's objects read a shared row
/// snapshot until they change.
///
/// Immutable once built. What keeps a batch alive is its objects: each fetched object
/// that neither changed a value nor turned into a fault holds a reference, so the batch
/// goes with the last of them. A batch holds at most ``rowLimit`` rows, so one object
/// kept from a big fetch keeps that many rows, not the whole fetch's (docs/ARCHITECTURE.md,
/// "Objects' values: owned or a row of a fetched batch").
final class FetchedRowBatch {
    /// The most rows one batch holds.
    static let rowLimit = 4_096

    /// Each row's number of slots (its entity's).
    let slotCount: Int
    /// Rows held.
    let rowCount: Int
    private let columns: [FetchedColumn]

    init(slotCount: Int, columns: [FetchedColumn]) {
        self.slotCount = slotCount
        self.columns = columns
        self.rowCount = columns.first?.count ?? 0
    }

    /// The most rows any column has room for: ``rowCount`` or a little more (malloc's
    /// rounding), never the room a bigger batch would have had.
    var capacity: Int { columns.map(\.capacity).max() ?? 0 }

    /// Slot `slot` of row `row`.
    @inline(__always)
    func value(slot: Int, row: Int) -> PropertyValue {
        columns[slot].value(at: row)
    }

    /// Row `row` as a list of values by slot.
    func row(_ row: Int) -> [PropertyValue] {
        var values: [PropertyValue] = []
        values.reserveCapacity(slotCount)
        for column in columns { values.append(column.value(at: row)) }
        return values
    }
}

/// Builds ``FetchedRowBatch``es from rows of one entity, appended in order: a new batch
/// every ``FetchedRowBatch/rowLimit`` rows.
struct FetchedRowBatchBuilder {
    let slotCount: Int
    private var columns: [FetchedColumn]
    private var rows = 0
    private let capacity: Int

    /// A builder of rows of `slotCount` slots; `expected` rows (if known) size the first
    /// batch's columns.
    init(slotCount: Int, expected: Int = FetchedRowBatch.rowLimit) {
        self.slotCount = slotCount
        self.columns = Array(repeating: FetchedColumn(), count: slotCount)
        self.capacity = max(1, min(expected, FetchedRowBatch.rowLimit))
    }

    /// Whether the batch being built is full (``finish()`` it before appending more).
    var isFull: Bool { rows >= FetchedRowBatch.rowLimit }
    /// Whether no row was appended since the last batch.
    var isEmpty: Bool { rows == 0 }

    /// Appends a row (its values by slot, `slotCount` of them).
    mutating func append(_ values: [PropertyValue]) {
        precondition(values.count == slotCount && !isFull, "a fetched row of another size, or a full batch")
        for slot in 0..<slotCount {
            if rows == 0 { columns[slot].reserveCapacity(capacity, for: values[slot]) }
            columns[slot].append(values[slot])
        }
        rows += 1
    }

    /// The batch of the rows appended since the last; the builder starts a new one.
    mutating func finish() -> FetchedRowBatch {
        for slot in 0..<slotCount { columns[slot].shrink() }
        let batch = FetchedRowBatch(slotCount: slotCount, columns: columns)
        columns = Array(repeating: FetchedColumn(), count: slotCount)
        rows = 0
        return batch
    }
}
