import Foundation

extension ManagedObjectModel {
    /// The largest model file read (64 MiB); a real model is a few hundred kilobytes.
    static let maximumModelFileSize = 64 << 20

    /// Imports a model that Xcode's Core Data model editor wrote.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(xcdatamodelAt: URL(fileURLWithPath: "Model.xcdatamodeld"))
    /// ```
    /// - Parameter url: a `.xcdatamodeld` folder (the current version is the one its
    ///   `.xccurrentversion` property list names under `_XCCurrentVersionName`; without it, the
    ///   only version, or the last by name with numbers compared numerically), a
    ///   `.xcdatamodel` folder (its `contents` file is read), or a bare `contents` XML file.
    /// - Throws: ``StrataStorage/StrataError`` `.modelFile` when a file is missing or unreadable, the XML is
    ///   malformed (with `line` and `column`) or uses something Strata cannot model, such as a
    ///   "Composite" attribute (naming the file, line, entity and property);
    ///   `.invalidModel` when the model it describes is inconsistent.
    public convenience init(xcdatamodelAt url: URL) throws {
        let contents = try Self._xcodeContentsFile(at: url)
        try self.init(xcodeModelContents: Self._readModelFile(contents), file: contents.path)
    }

    /// Reads the XML of an Xcode model's `contents` file already in memory; `file` is the
    /// name errors give it. ``init(xcdatamodelAt:)`` reads the file and calls this; the
    /// fuzzers (Tests/Fuzz) call it with mutated bytes.
    /// - Throws: As ``init(xcdatamodelAt:)``, for the one file.
    package convenience init(xcodeModelContents data: Data, file: String) throws {
        let root = try XcodeModelElement.parse(data, file: file)
        let declaration = try XcodeModelReader(file: file).declaration(from: root)
        do {
            try self.init(declaration: declaration)
        } catch var error as StrataError {
            error.context.path = file
            throw error
        }
    }

    /// Loads a model file of any supported kind, chosen by the extension: `.json` (the
    /// Strata JSON format), `.xcdatamodel` or `.xcdatamodeld` (Xcode); for any other file
    /// the first non-blank character decides (`{` JSON, `<` XML).
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(contentsOf: Bundle.main.url(forResource: "Model", withExtension: "json")!)
    /// ```
    /// - Throws: ``StrataStorage/StrataError`` `.modelFile` or `.invalidModel`, as
    ///   ``init(jsonData:)`` and ``init(xcdatamodelAt:)`` do.
    public convenience init(contentsOf url: URL) throws {
        switch url.pathExtension.lowercased() {
        case "xcdatamodel", "xcdatamodeld":
            try self.init(xcdatamodelAt: url)
            return
        case "json":
            try self.init(jsonFileAt: url)
            return
        default:
            break
        }
        if Self._isDirectory(url) {
            try self.init(xcdatamodelAt: url)
            return
        }
        let data = try Self._readModelFile(url)
        switch data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) {
        case UInt8(ascii: "{"):
            try self.init(jsonFileAt: url)
        case UInt8(ascii: "<"):
            try self.init(xcdatamodelAt: url)
        default:
            throw StrataError(.modelFile, "\(url.path) is neither a JSON nor an XML model file.",
                              context: .init { $0.path = url.path })
        }
    }

    private convenience init(jsonFileAt url: URL) throws {
        let data = try Self._readModelFile(url)
        // A version list (docs/MODEL-FORMAT.md, "Model versions") stands for its current version.
        if let list = try Self._versionList(data, at: url), let index = list.names.firstIndex(of: list.current) {
            try self.init(contentsOf: list.files[index])
            return
        }
        do {
            try self.init(jsonData: data)
        } catch var error as StrataError {
            error.context.path = url.path
            throw error
        }
    }

    static func _isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Reads a whole model file, refusing missing files, files that are not regular files
    /// (FIFOs, devices) and files over the size limit.
    static func _readModelFile(_ url: URL) throws -> Data {
        let path = url.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw StrataError(.modelFile, "The model file \(path) does not exist or cannot be read.", context: .init { $0.path = path })
        }
        // A FIFO would block the read below forever and /dev/zero never end (its size is 0).
        if case .other(let what) = FileKind(of: path) {
            throw StrataError(.modelFile, "The model file \(path) is \(what), not a regular file.",
                              context: .init { $0.path = path; $0.kind = .notRegularFile })
        }
        if let size = (attributes[.size] as? NSNumber)?.intValue, size > maximumModelFileSize {
            throw StrataError(.modelFile, "The model file \(path) is \(size) bytes, over the \(maximumModelFileSize)-byte limit.",
                              context: .init { $0.path = path })
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw StrataError(.modelFile, "The model file \(path) cannot be read: \(error.localizedDescription)",
                              context: .init { $0.path = path })
        }
    }

    /// The `contents` XML file for an `.xcdatamodeld`, `.xcdatamodel` or bare file URL.
    static func _xcodeContentsFile(at url: URL) throws -> URL {
        guard _isDirectory(url) else { return url }
        let contents = url.appendingPathComponent("contents")
        let kind = url.pathExtension.lowercased()
        if kind != "xcdatamodeld", FileManager.default.fileExists(atPath: contents.path) {
            return contents
        }
        if kind == "xcdatamodel" {
            throw StrataError(.modelFile, "The model version \(url.path) has no contents file.",
                              context: .init { $0.path = contents.path })
        }
        let version = try _currentVersionFolder(in: url)
        let versionContents = version.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: versionContents.path) else {
            throw StrataError(.modelFile, "The model version \(version.path) has no contents file.",
                              context: .init { $0.path = versionContents.path })
        }
        return versionContents
    }

    /// The current version's `.xcdatamodel` folder inside an `.xcdatamodeld` folder.
    static func _currentVersionFolder(in bundle: URL) throws -> URL {
        let marker = bundle.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: marker.path) {
            let data = try _readModelFile(marker)
            let plist: Any
            do {
                plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } catch {
                throw StrataError(.modelFile, "\(marker.path) is not a valid property list: \(error.localizedDescription)",
                                  context: .init { $0.path = marker.path })
            }
            if let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String {
                guard !name.contains("/"), name != "..", name != "." else {
                    throw StrataError(.modelFile, "\(marker.path) names an invalid version '\(name)'.",
                                      context: .init { $0.path = marker.path; $0.model = name })
                }
                let folder = bundle.appendingPathComponent(name)
                guard _isDirectory(folder) else {
                    throw StrataError(.modelFile, "The current model version '\(name)' named in \(marker.path) does not exist.",
                                      context: .init { $0.path = marker.path; $0.model = name })
                }
                return folder
            }
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? [])
            .filter { $0.lowercased().hasSuffix(".xcdatamodel") }
            .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
        guard let last = names.last else {
            throw StrataError(.modelFile, "The folder \(bundle.path) holds no .xcdatamodel version.",
                              context: .init { $0.path = bundle.path })
        }
        return bundle.appendingPathComponent(last)
    }
}
