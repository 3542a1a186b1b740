import Foundation

/// Every version of a model, as a versioned model file holds them: an Xcode
/// `.xcdatamodeld` folder (one `.xcdatamodel` per version, the current one named by its
/// `.xccurrentversion`), or a Strata JSON version list (docs/MODEL-FORMAT.md, "Model
/// versions"). Migration needs only the current version — a document stores the model it
/// was written with — the others are for checking and for staged migrations.
///
/// ```swift
/// let versions = try ManagedObjectModel.versions(at: URL(fileURLWithPath: "Model.xcdatamodeld"))
/// let store = try DocumentStore(openingAt: url, model: versions.current, configuration: migrating)
/// ```
public struct ModelVersionSet: Sendable {
    /// The version names, oldest first (Xcode's folder names without `.xcdatamodel`, or
    /// the JSON list's names, in its order).
    public let names: [String]
    /// The models, in the order of ``names``.
    public let models: [ManagedObjectModel]
    /// The name of the current version.
    public let currentName: String

    /// The current version's model.
    public var current: ManagedObjectModel { models[names.firstIndex(of: currentName) ?? models.count - 1] }

    /// The model of the version named `name`, if there is one.
    public func model(named name: String) -> ManagedObjectModel? {
        names.firstIndex(of: name).map { models[$0] }
    }
}

extension ManagedObjectModel {
    /// Reads every version of a versioned model file.
    /// - Parameter url: an `.xcdatamodeld` folder, or a JSON version list; any other model
    ///   file is one version named after the file.
    /// - Throws: ``StrataStorage/StrataError`` `.modelFile` naming the file and the version that cannot
    ///   be read; `.invalidModel` when a version is inconsistent.
    public static func versions(at url: URL) throws -> ModelVersionSet {
        if url.pathExtension.lowercased() == "xcdatamodeld", _isDirectory(url) {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
                .filter { $0.lowercased().hasSuffix(".xcdatamodel") }
                .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
            guard !names.isEmpty else {
                throw StrataError(.modelFile, "The folder \(url.path) holds no .xcdatamodel version.", context: .init { $0.path = url.path })
            }
            let current = try _currentVersionFolder(in: url).lastPathComponent
            let models = try names.map { try ManagedObjectModel(xcdatamodelAt: url.appendingPathComponent($0)) }
            let strip = { (name: String) in String(name.dropLast(".xcdatamodel".count)) }
            return ModelVersionSet(names: names.map(strip), models: models, currentName: strip(current))
        }
        let data = try _readModelFile(url)
        if let list = try _versionList(data, at: url) {
            let models = try list.files.map { try ManagedObjectModel(contentsOf: $0) }
            return ModelVersionSet(names: list.names, models: models, currentName: list.current)
        }
        let name = url.deletingPathExtension().lastPathComponent
        return ModelVersionSet(names: [name], models: [try ManagedObjectModel(contentsOf: url)], currentName: name)
    }

    /// The versions of a JSON version list — `{"versions": [{"name": N, "file": F}, ...],
    /// "current": N}`, each file relative to the list — or nil when `data` is not one.
    static func _versionList(_ data: Data, at url: URL) throws -> (names: [String], files: [URL], current: String)? {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let versions = root["versions"] else { return nil }
        func fail(_ why: String) -> StrataError {
            StrataError(.modelFile, "The model version list \(url.path) \(why).", context: .init { $0.path = url.path })
        }
        guard let entries = versions as? [[String: Any]], !entries.isEmpty else { throw fail("needs a non-empty \"versions\" array of objects") }
        var names: [String] = [], files: [URL] = []
        for (index, entry) in entries.enumerated() {
            guard let name = entry["name"] as? String, !name.isEmpty, let file = entry["file"] as? String, !file.isEmpty else {
                throw fail("has a version \(index) without a \"name\" and a \"file\"")
            }
            guard !names.contains(name) else { throw fail("names version '\(name)' twice") }
            guard !file.hasPrefix("/") else { throw fail("gives version '\(name)' an absolute file; files are relative to the list") }
            let fileURL = url.deletingLastPathComponent().appendingPathComponent(file)
            // A version that is itself a list would let two lists name each other forever.
            if fileURL.pathExtension.lowercased() != "xcdatamodel", fileURL.pathExtension.lowercased() != "xcdatamodeld",
               !_isDirectory(fileURL), let inner = try? _readModelFile(fileURL),
               let object = (try? JSONSerialization.jsonObject(with: inner)) as? [String: Any], object["versions"] != nil {
                throw fail("gives version '\(name)' a file that is a version list itself")
            }
            names.append(name)
            files.append(fileURL)
        }
        let current = root["current"] as? String ?? names[names.count - 1]
        guard names.contains(current) else { throw fail("names a current version '\(current)' it does not list") }
        return (names, files, current)
    }
}
