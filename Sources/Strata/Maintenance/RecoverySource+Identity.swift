import Foundation

extension RecoverySource {
    /// Checks the identity fields against their checksum and restores them when damaged:
    /// a checksum one byte off from the fields' is itself the damage; otherwise a backup
    /// beside the document (`DOC.bak*`) with an intact identity, or the one single-byte
    /// repair of a short field that the checksum confirms. Then reads the model and
    /// decodes the segments.
    /// - Throws: `.corruptDocument` saying what cannot be restored (nothing is changed).
    mutating func restoreIdentity(besides url: URL, report: inout RecoveryReport) throws {
        if case .text(let stored)? = values[DocumentIdentity.key] {
            let computed = DocumentIdentity.checksum(values)
            if computed != stored {
                if differsInOneByte(computed, stored) {
                    values[DocumentIdentity.key] = .text(computed)
                    report.repairs.append("rewrote the identity checksum (it was damaged; the fields it covers are intact)")
                } else if let copy = DocumentIdentity.fields(fromCopy: values[DocumentIdentity.copyKey], expected: stored) {
                    let changed = DocumentIdentity.fields.filter { DocumentIdentity.text(values[$0]) != DocumentIdentity.text(copy[$0]) }
                    for field in DocumentIdentity.fields { values[field] = copy[field] }
                    report.repairs.append("restored \(changed.joined(separator: ", ")) from the document's identity copy (the identity checksum confirms it)")
                } else if let restored = fromBackup(besides: url, checksum: stored) {
                    for field in DocumentIdentity.fields { values[field] = restored.values[field] }
                    report.repairs.append("restored the identity (store identifier, model, format, creation date) from \(restored.path)")
                } else if let repair = DocumentIdentity.singleByteRepair(values, expected: stored) {
                    values[repair.field] = repair.field == "formatVersion" ? (Int64(repair.text).map { .integer($0) } ?? .text(repair.text)) : .text(repair.text)
                    report.repairs.append("restored \(repair.field) to \(repair.text) (one byte was damaged; the identity checksum confirms the repair)")
                } else {
                    connection.close()
                    throw DocumentOpenFailure.damaged(
                        url.path,
                        "its identity (store identifier \(identifier), model, format or creation date) does not match its identity checksum, and it cannot be restored: its identity copy is damaged too, no backup beside it (\(url.lastPathComponent).bak*) has an intact identity and no single-byte repair matches. Nothing was changed; restore the document from a backup of your own", advice: false)
                }
            }
        } else {
            report.repairs.append("the document has no identity checksum (older document); the rebuilt file has one")
        }
        guard UUID(uuidString: identifier) != nil else {
            connection.close()
            throw DocumentOpenFailure.damaged(url.path, "its store identifier '\(identifier)' is not a UUID and no checksum or backup can restore it; restore the document from a backup of your own", advice: false)
        }
        do {
            model = try ManagedObjectModel(jsonData: Data(DocumentIdentity.text(values["model"]).utf8))
        } catch {
            connection.close()
            throw DocumentOpenFailure.damaged(url.path, "its stored model cannot be read (\(error)) and no identity copy or backup beside it holds an intact one; the log cannot be decoded without it. Restore the document from a backup of your own", advice: false)
        }
        decodeSegments()
    }

    private func differsInOneByte(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        return left.count == right.count && zip(left, right).filter { $0 != $1 }.count == 1
    }

    /// A backup beside the document whose identity checksum holds and equals `checksum`.
    private func fromBackup(besides url: URL, checksum: String) -> (path: String, values: [String: SQLiteValue])? {
        let folder = url.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names.sorted().reversed()
        where name.hasPrefix(url.lastPathComponent + ".bak") && !name.hasSuffix("-wal") && !name.hasSuffix("-shm") {
            let path = folder.appendingPathComponent(name).path
            guard let connection = try? SQLiteConnection.openExisting(path: path, flags: [.readWrite], busyTimeout: 1,
                                                                      probe: "SELECT key FROM strata_meta") else { continue }
            defer { connection.close() }
            var found: [String: SQLiteValue] = [:]
            for row in (try? connection.prepare("SELECT key, value FROM strata_meta").rows()) ?? [] where row.count == 2 {
                if case .text(let key) = row[0] { found[key] = row[1] }
            }
            if DocumentIdentity.checksum(found) == checksum { return (path, found) }
        }
        return nil
    }
}
