import Foundation

/// The identity checksum (`strata_meta.identityChecksum`, docs/FORMAT.md "Identity
/// checksum"): one SHA-256 over the meta fields a document's identity depends on, so a
/// flipped byte in the store identifier (which would silently change every object URI) or
/// in the stored model is caught when the document opens.
///
/// The checksum is `sha256:` and the hex SHA-256 of one line per field, in ``fields``
/// order: `NAME=` then the hex SHA-256 of the field's text (an integer as decimal digits,
/// a missing field as the empty text). Hashing each field first keeps a repair search cheap:
/// trying every single-byte change of the 36-character identifier re-hashes 36 bytes, not
/// the whole model.
enum DocumentIdentity {
    /// The meta keys covered, in checksum order.
    static let fields = ["format", "formatVersion", "storeIdentifier", "model", "modelHash", "createdAt"]
    /// The meta key holding the checksum.
    static let key = "identityChecksum"
    /// The meta key holding a second copy of the covered fields (a JSON object of their
    /// texts), from which recovery restores a field a damaged byte changed — the model
    /// above all, which nothing else in the file could give back.
    static let copyKey = "identityCopy"

    /// The copy of the covered fields of `values`, as stored under ``copyKey``.
    static func copy(_ values: [String: SQLiteValue]) -> String {
        var object: [String: String] = [:]
        for field in fields { object[field] = text(values[field]) }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The fields of a stored copy whose checksum is `expected`, or nil when the copy is
    /// missing, unreadable or damaged too.
    static func fields(fromCopy value: SQLiteValue?, expected: String) -> [String: SQLiteValue]? {
        guard case .text(let text)? = value,
              let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: String] else { return nil }
        var values: [String: SQLiteValue] = [:]
        for field in fields {
            guard let fieldText = object[field] else { return nil }
            values[field] = field == "formatVersion" ? (Int64(fieldText).map { .integer($0) } ?? .text(fieldText)) : .text(fieldText)
        }
        return checksum(values) == expected ? values : nil
    }

    /// The text of a meta value as the checksum reads it.
    static func text(_ value: SQLiteValue?) -> String {
        switch value {
        case .text(let text)?: return text
        case .integer(let number)?: return String(number)
        case .real(let number)?: return String(number)
        case .blob(let bytes)?: return String(decoding: bytes, as: UTF8.self)
        case .null?, nil: return ""
        }
    }

    /// The digest of one field's text.
    static func fieldDigest(_ text: String) -> String { SHA256Digest.hex(of: Array(text.utf8)) }

    /// The checksum of the covered fields of `values` (meta key → value).
    static func checksum(_ values: [String: SQLiteValue]) -> String {
        checksum(digests: fields.map { fieldDigest(text(values[$0])) })
    }

    /// The checksum from per-field digests in ``fields`` order.
    static func checksum(digests: [String]) -> String {
        var lines = ""
        for (name, digest) in zip(fields, digests) { lines += "\(name)=\(digest)\n" }
        return "sha256:" + SHA256Digest.hex(of: Array(lines.utf8))
    }

    /// A single-byte repair of one short field that makes the checksum match, if exactly
    /// one exists (at most ~100 bytes per field are tried, so the model is never searched):
    /// the field name and its repaired text.
    static func singleByteRepair(_ values: [String: SQLiteValue], expected: String) -> (field: String, text: String)? {
        var digests = fields.map { fieldDigest(text(values[$0])) }
        var found: [(String, String)] = []
        for (index, field) in fields.enumerated() where field != "model" {
            let original = Array(text(values[field]).utf8)
            guard !original.isEmpty, original.count <= 100 else { continue }
            let saved = digests[index]
            let alphabet = repairAlphabet(field)
            for position in original.indices {
                for byte in alphabet where byte != original[position] {
                    var candidate = original
                    candidate[position] = byte
                    digests[index] = SHA256Digest.hex(of: candidate)
                    if checksum(digests: digests) == expected { found.append((field, String(decoding: candidate, as: UTF8.self))) }
                }
            }
            digests[index] = saved
        }
        return found.count == 1 ? found[0] : nil
    }

    /// The bytes a repair of `field` may put in: those its valid texts are made of (an
    /// undamaged field is, so its lost byte is among them). Trying only these, not every
    /// printable byte, keeps the search to about 2,800 candidates instead of 12,800; each
    /// costs two SHA-256 passes, which made a verify of a small document with a damaged
    /// identity take 2.5 s of processor time in a debug build (found by the `document`
    /// fuzz target, docs/RELIABILITY.md "Fuzzing").
    static func repairAlphabet(_ field: String) -> [UInt8] {
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        let digits = bytes("0123456789"), hex = digits + bytes("abcdefABCDEF")
        switch field {
        case "format": return bytes("abcdefghijklmnopqrstuvwxyz-")
        case "formatVersion": return digits
        case "storeIdentifier": return hex + bytes("-")
        case "modelHash": return hex
        case "createdAt": return digits + bytes("-:.TZ+")
        default: return Array(UInt8(0x20)...UInt8(0x7E))
        }
    }
}
