/// An object's values by storage slot, as ``ManagedObject`` keeps them: either a list of
/// its own, or one row of a batch of rows a fetch read (``FetchedRowBatch``), read from
/// there until the object changes a value (docs/ARCHITECTURE.md, "Objects' values: owned
/// or a row of a fetched batch").
///
/// A fetched object's values are read from the batch's typed columns, so a million
/// clean fetched objects cost their columns (an `Int64` column 8 bytes a row, a `String`
/// one 16) instead of a list of `PropertyValue`s each (24 bytes a slot and a 32-byte
/// header). The first write — a change, a refresh, a merge, undo — gives the object a
/// list of its own with the same values (copy on write), and its reference to the batch
/// goes; so does turning into a fault.
///
/// A collection of the slots' values: read it like the list it replaces.
struct ObjectValues: RandomAccessCollection, MutableCollection {
    /// Where the values are: the object's own list, or a shared batch (whose row the
    /// object keeps beside it, in the padding after its flags: docs/ARCHITECTURE.md).
    enum Form {
        case owned([PropertyValue])
        case fetched(FetchedRowBatch)
    }

    var form: Form
    /// The object's row in a fetched batch (0 when it owns its values).
    var row: UInt32

    init(form: Form, row: UInt32) {
        self.form = form
        self.row = row
    }

    /// Values of the object's own.
    init(_ values: [PropertyValue]) {
        self.form = .owned(values)
        self.row = 0
    }

    /// Row `row` of `batch`.
    init(batch: FetchedRowBatch, row: Int) {
        self.form = .fetched(batch)
        self.row = UInt32(row)
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch form {
        case .owned(let values): return values.count
        case .fetched(let batch): return batch.slotCount
        }
    }

    subscript(slot: Int) -> PropertyValue {
        get {
            switch form {
            case .owned(let values): return values[slot]
            case .fetched(let batch): return batch.value(slot: slot, row: Int(row))
            }
        }
        set {
            withOwned { $0[slot] = newValue }
        }
    }

    /// The batch the values are read from, while they are (nil once the object owns them).
    var batch: FetchedRowBatch? {
        if case .fetched(let batch) = form { return batch }
        return nil
    }

    /// The values as a list: the object's own without a copy, a fetched row's copied out.
    var array: [PropertyValue] {
        switch form {
        case .owned(let values): return values
        case .fetched(let batch): return batch.row(Int(row))
        }
    }

    /// Runs `body` on the object's own list, copying a fetched row into one first; the
    /// list is taken out of `form` while `body` runs, so a change to it does not copy it.
    mutating func withOwned<Result>(_ body: (inout [PropertyValue]) throws -> Result) rethrows -> Result {
        var values: [PropertyValue]
        switch form {
        case .owned(let own): values = own
        case .fetched(let batch): values = batch.row(Int(row))
        }
        form = .owned([])
        row = 0
        defer { form = .owned(values) }
        return try body(&values)
    }

    /// Calls `body` with the object's own list's buffer; a fetched row has none (an empty
    /// buffer): it shares no list with anything.
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<PropertyValue>) throws -> Result) rethrows -> Result {
        switch form {
        case .owned(let values): return try values.withUnsafeBufferPointer(body)
        case .fetched: return try body(UnsafeBufferPointer(start: nil, count: 0))
        }
    }
}

extension ObjectValues: ExpressibleByArrayLiteral {
    init(arrayLiteral elements: PropertyValue...) {
        self.init(elements)
    }
}

extension ObjectValues: Equatable {
    static func == (lhs: ObjectValues, rhs: ObjectValues) -> Bool { lhs.elementsEqual(rhs) }
    static func == (lhs: ObjectValues, rhs: [PropertyValue]) -> Bool { lhs.elementsEqual(rhs) }
    static func == (lhs: [PropertyValue], rhs: ObjectValues) -> Bool { lhs.elementsEqual(rhs) }
    static func != (lhs: ObjectValues, rhs: [PropertyValue]) -> Bool { !lhs.elementsEqual(rhs) }
    static func != (lhs: [PropertyValue], rhs: ObjectValues) -> Bool { !lhs.elementsEqual(rhs) }
}
