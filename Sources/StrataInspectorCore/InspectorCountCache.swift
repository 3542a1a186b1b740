/// The object counts the objects view showed, by request and save: every page of a table
/// shows the same count, and counting a million rows is the page's dearest part. A key
/// holds the document's last sequence, so a save makes new keys; the oldest entries go
/// first past ``limit``.
struct InspectorCountCache {
    /// How many counts are kept.
    static let limit = 64
    private var entries: [(key: String, count: Int)] = []

    /// The count remembered for `key`, if any.
    func value(for key: String) -> Int? {
        entries.last { $0.key == key }?.count
    }

    /// Remembers `count` for `key`.
    mutating func insert(_ count: Int, for key: String) {
        entries.removeAll { $0.key == key }
        entries.append((key, count))
        if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
    }
}
