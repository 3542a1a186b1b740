/// The rows a dictionary fetch reaches through its key paths' relationships
/// (`department.name`, or `department` itself, whose destination must exist), each read
/// once: the destinations of the first relationship of every key path are read together in
/// one batch before the dictionaries are built, and any other row once, when first reached
/// (docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects").
///
/// Held by one ``ManagedObjectContext/fetchDictionaries(_:)`` call only: the store's rows
/// do not change under it.
final class ReachedRows {
    private var rows: [ManagedObjectID: [PropertyValue]?] = [:]
    private let read: (ManagedObjectID) throws -> [PropertyValue]?

    /// - Parameter read: how a row not read yet is read.
    init(read: @escaping (ManagedObjectID) throws -> [PropertyValue]?) {
        self.read = read
    }

    /// Keeps rows read in a batch (nil: the record does not exist).
    func keep(_ ids: [ManagedObjectID], _ values: [[PropertyValue]?]) {
        rows.reserveCapacity(rows.count + ids.count)
        // `.some`: a record that does not exist is kept as nil, not left unread.
        for (id, row) in zip(ids, values) { rows[id] = .some(row) }
    }

    /// A record's row: the one kept, else read now and kept.
    func values(for id: ManagedObjectID) throws -> [PropertyValue]? {
        if let known = rows[id] { return known }
        let row = try read(id)
        rows[id] = .some(row)
        return row
    }
}
