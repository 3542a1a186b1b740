import Foundation

/// One slot's values for every row of a ``FetchedRowBatch``, kept by type: integers,
/// doubles, dates and to-one keys 8 bytes a row, booleans 1, strings 16 (a short string
/// inside, no allocation of its own), NULLs one bit. A slot whose rows hold values of
/// more than one kind (or a kind without a column of its own: decimals, data, UUIDs,
/// URIs, to-many members, to-ones of several entities) keeps `PropertyValue`s.
///
/// Reading a row gives back exactly the value appended for it.
struct FetchedColumn {
    /// What the column holds, decided by the first value that is not NULL.
    enum Kind: UInt8 {
        case undecided, integers, doubles, dates, booleans, strings, objects, values
    }

    private(set) var kind = Kind.undecided
    /// Rows appended.
    private(set) var count = 0
    private var integers: [Int64] = []
    private var doubles: [Double] = []
    private var booleans: [Bool] = []
    private var strings: [String] = []
    private var values: [PropertyValue] = []
    /// The scope of a to-one column's IDs (one entity and store); the keys are in `integers`.
    private var scope: ObjectIDScope?
    /// One bit a row, set for NULL; empty while no row is.
    private var nulls: [UInt64] = []
    /// Rows appended before the kind was decided (all NULL).
    private var leadingNulls = 0

    init() {}

    /// The value of row `row`.
    @inline(__always)
    func value(at row: Int) -> PropertyValue {
        if !nulls.isEmpty, nulls[row &>> 6] & (1 &<< UInt64(row & 63)) != 0 { return .null }
        switch kind {
        case .integers: return .integer(integers[row])
        case .strings: return .string(strings[row])
        case .doubles: return .double(doubles[row])
        case .dates: return .date(Date(timeIntervalSinceReferenceDate: doubles[row]))
        case .booleans: return .boolean(booleans[row])
        case .objects: return .object(ManagedObjectID(scope: scope!, primaryKey: integers[row]))
        case .values: return values[row]
        case .undecided: return .null
        }
    }

    /// The most rows any of the column's lists has room for (what it holds on to).
    var capacity: Int {
        max(integers.capacity, doubles.capacity, booleans.capacity, strings.capacity, values.capacity)
    }

    /// Makes room for `capacity` rows of the kind decided (or about to be).
    mutating func reserveCapacity(_ capacity: Int, for value: PropertyValue) {
        switch value {
        case .integer, .object: integers.reserveCapacity(capacity)
        case .double, .date: doubles.reserveCapacity(capacity)
        case .boolean: booleans.reserveCapacity(capacity)
        case .string: strings.reserveCapacity(capacity)
        default: break
        }
    }

    /// Appends the next row's value.
    mutating func append(_ value: PropertyValue) {
        defer { count += 1 }
        if case .null = value {
            markNull(count)
            appendPlaceholder()
            return
        }
        if kind == .undecided { decide(for: value) }
        switch (kind, value) {
        case (.integers, .integer(let number)): integers.append(number)
        case (.strings, .string(let text)): strings.append(text)
        case (.doubles, .double(let number)): doubles.append(number)
        case (.dates, .date(let date)): doubles.append(date.timeIntervalSinceReferenceDate)
        case (.booleans, .boolean(let flag)): booleans.append(flag)
        case (.objects, .object(let id)) where id.scope === scope: integers.append(id.primaryKey)
        case (.values, _): values.append(value)
        default:
            becomeValues()
            values.append(value)
        }
    }

    /// Frees the capacity appending left unused (a small fetch's batch, kept by its
    /// objects, holds its rows and no more).
    mutating func shrink() {
        func trimmed<Element>(_ list: inout [Element]) {
            // A full batch's columns (malloc's rounding aside) are left as they are.
            guard list.capacity > list.count + list.count / 8 + 16 else { return }
            // `Array(list)` would share the buffer: copy into one of the right size.
            var exact: [Element] = []
            exact.reserveCapacity(list.count)
            exact.append(contentsOf: list)
            list = exact
        }
        trimmed(&integers); trimmed(&doubles); trimmed(&booleans); trimmed(&strings); trimmed(&values); trimmed(&nulls)
    }

    private mutating func decide(for value: PropertyValue) {
        switch value {
        case .integer: kind = .integers
        case .string: kind = .strings
        case .double: kind = .doubles
        case .date: kind = .dates
        case .boolean: kind = .booleans
        case .object(let id): kind = .objects; scope = id.scope
        default: kind = .values
        }
        for _ in 0..<leadingNulls { appendPlaceholder() }
        leadingNulls = 0
    }

    private mutating func appendPlaceholder() {
        switch kind {
        case .undecided: leadingNulls += 1
        case .integers, .objects: integers.append(0)
        case .strings: strings.append("")
        case .doubles, .dates: doubles.append(0)
        case .booleans: booleans.append(false)
        case .values: values.append(.null)
        }
    }

    private mutating func markNull(_ row: Int) {
        let word = row &>> 6
        if nulls.count <= word { nulls.append(contentsOf: repeatElement(0, count: word + 1 - nulls.count)) }
        nulls[word] |= 1 &<< UInt64(row & 63)
    }

    /// Turns the column into one of `PropertyValue`s, the rows so far kept.
    private mutating func becomeValues() {
        var converted: [PropertyValue] = []
        converted.reserveCapacity(count + 1)
        for row in 0..<count { converted.append(value(at: row)) }
        values = converted
        integers = []; doubles = []; booleans = []; strings = []; scope = nil; leadingNulls = 0
        kind = .values
    }
}
