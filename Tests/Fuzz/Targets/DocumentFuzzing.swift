import Foundation
import Strata

/// Opening a damaged document: the input patches bytes of a small document
/// (Tests/Fuzz/document-base.strata, ``DocumentPatch``), which is then opened with its
/// stored model, every object fetched with every property, its undo history rebuilt, closed
/// and verified (`strata-log verify`).
enum DocumentFuzzing {
    static let base: [UInt8] = {
        guard let data = FileManager.default.contents(atPath: FuzzTarget.folder.appendingPathComponent("document-base.strata").path) else {
            preconditionFailure("Tests/Fuzz/document-base.strata is missing")
        }
        return [UInt8](data)
    }()

    static func run(_ bytes: [UInt8]) throws {
        let url = try FuzzScratch.folder().appendingPathComponent("patched.strata")
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        try Data(DocumentPatch.apply(bytes, to: base)).write(to: url)
        var firstError: (any Error)?
        do {
            try read(url)
        } catch {
            firstError = error
        }
        do {
            _ = try DocumentVerifier.verify(url)
        } catch {
            firstError = firstError ?? error
        }
        if let firstError { throw firstError }
    }

    private static func read(_ url: URL) throws {
        let store = try DocumentStore(openingAt: url)
        defer { try? store.close() }
        let coordinator = PersistentStoreCoordinator(model: store.model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        for entity in store.model.entities {
            for object in try context.fetch(FetchRequest(entityName: entity.name)) {
                for key in entity.propertyNames {
                    _ = try object.value(forKey: key)
                }
            }
        }
        try context.restoreUndoHistory()
    }
}

/// How a fuzz input changes a document: 4-byte records, each a 24-bit big-endian offset
/// (taken modulo the file's size) and a byte written there; a record whose offset has its
/// top bit set instead cuts the file at the remaining 23 bits (modulo its size). A trailing
/// partial record is ignored.
enum DocumentPatch {
    static func apply(_ patch: [UInt8], to base: [UInt8]) -> [UInt8] {
        var file = base
        var index = 0
        while index + 4 <= patch.count, !file.isEmpty {
            let offset = Int(patch[index]) << 16 | Int(patch[index + 1]) << 8 | Int(patch[index + 2])
            if offset & 0x80_0000 != 0 {
                file.removeSubrange((offset & 0x7F_FFFF) % file.count..<file.count)
            } else {
                file[offset % file.count] = patch[index + 3]
            }
            index += 4
        }
        return file
    }
}
