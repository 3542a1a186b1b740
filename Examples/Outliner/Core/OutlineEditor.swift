import Foundation
import Strata

/// What an undo group remembers about the selection: the item selected before the key
/// command (restored on undo) and after it (restored on redo), by the items' URIs. It is
/// saved with the group (`setPersistentGroupMetadata`), so undo after reopening selects
/// the item too: every item has a permanent ID from its creation on, so its URI names it
/// in every later run.
public struct OutlineSelection: Sendable, Equatable, Codable {
    /// The URI of the item selected before the command.
    public var before: URL?
    /// The URI of the item selected after it.
    public var after: URL?

    /// The selection naming `before` and `after` by their URIs.
    public init(before: ManagedObjectID?, after: ManagedObjectID?) {
        self.before = before?.uriRepresentation()
        self.after = after?.uriRepresentation()
    }
}

/// The outliner without the terminal: key commands become model changes, one undo group per
/// command (typing coalesced into one step), saves after a pause and on quit, and a screen
/// model the terminal layer draws. Tests drive it with ``run(_:)``.
///
/// Everything happens on one thread: the view context is a confinement context.
public final class OutlineEditor {
    /// What the keys currently do.
    public enum Mode: Equatable {
        /// Editing the outline.
        case outline
        /// Typing a filter predicate after `/`.
        case filterPrompt(String)
        /// The list of saves after `h`; the index is the highlighted one.
        case history(index: Int)
        /// A read-only view of the document as it was after a save.
        case past(sequence: UInt64)
    }

    /// The open document.
    public let container: PersistentContainer
    /// The context every edit happens in.
    public let context: ManagedObjectContext
    /// Its undo manager.
    public let undo: ContextUndoManager
    /// The list: the top-level items (or, with a filter, every item matching it), kept
    /// current by the context's changes, undo, and other processes' saves merged by
    /// ``pollForRemoteChanges()``. Deeper levels are read through `children` as they are drawn.
    public internal(set) var controller: FetchedResultsController<ManagedObject>
    /// The invisible item whose children are the top level.
    var root: ManagedObject
    /// The selected item.
    public internal(set) var selected: ManagedObject?
    /// The first item drawn (the outline scrolls so that the selection stays on screen).
    var top: ManagedObject?
    /// Where the unfiltered outline was (its first row drawn and its selection) when a
    /// filter was applied: clearing the filter goes back there.
    var beforeFilter: (top: ManagedObject?, selected: ManagedObject?)?
    /// Whether keys add to the selected title (after a character, until another key).
    public internal(set) var isTyping = false
    /// The key mode.
    public internal(set) var mode: Mode = .outline
    /// The filter in effect, as typed.
    public internal(set) var filterText = ""
    /// A message for the status line (an error, a note); cleared by the next key.
    public internal(set) var message = ""
    /// Whether `q` was pressed (the document is saved and closed).
    public internal(set) var hasQuit = false
    /// How close together keystrokes are one undo step.
    let typingCoalescing: TimeInterval
    /// Seconds without an edit after which unsaved changes are saved.
    public var autosaveDelay: TimeInterval = 1
    /// When the last edit happened (for the autosave).
    var lastEdit = Date.distantPast
    /// The saves listed by `h`.
    public internal(set) var history: [HistoryEntry] = []
    /// The rows of the past view (`.past`).
    var pastRows: [Row] = []
    /// The history line the past view was opened from.
    var savedHistoryIndex = 0
    /// Whether the list changed since the last draw (other processes' saves included).
    public var needsDisplay = true
    let watcher = ChangeWatcher()
    var decoder = KeyDecoder()

    /// How the outliner opens documents: a confinement view context (one thread, no main
    /// queue needed) with its undo history restored.
    public static func options() -> PersistentContainer.Options {
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        return options
    }

    /// Opens the outline at `url`, creating it with the example outline when no file is
    /// there. `coalescing` is how close (in seconds) keystrokes must be to be one undo step.
    /// - Throws: the document store's errors (another model's document, a damaged file).
    public init(url: URL, coalescing: TimeInterval = 1.5) throws {
        let existed = FileManager.default.fileExists(atPath: url.path)
        container = try PersistentContainer(name: "Outline", model: .outline(), url: url, options: Self.options())
        context = container.viewContext
        guard let undo = context.undoManager else {
            throw StrataError(.invalidArgument, "The view context of \(url.path) has no undo manager.")
        }
        self.undo = undo
        typingCoalescing = coalescing
        if !existed {
            try ExampleOutline.insert(into: context)
            try context.save()
        }
        let roots = FetchRequest(entityName: "Item", predicate: try FetchPredicate(format: "parent == nil"),
                                 sortDescriptors: [FetchSortDescriptor("created")])
        guard let root = try context.fetch(roots).first else {
            throw StrataError(.invalidArgument, "\(url.path) is not an outline: it has no root item.", context: .init { $0.path = url.path })
        }
        self.root = root
        controller = try Self.makeController(context, predicate: try Self.topLevel(root), watcher: watcher)
        selected = root.childItems.first
        top = selected
        watcher.onChange = { [weak self] in self?.needsDisplay = true }
    }

    /// The top level: the root's children.
    static func topLevel(_ root: ManagedObject) throws -> FetchPredicate {
        try FetchPredicate(format: "parent == %@", .value(.object(root.objectID)))
    }

    /// A controller over the items matching `predicate`, in creation order, read in batches
    /// of faults: opening a big outline loads only what is drawn.
    static func makeController(_ context: ManagedObjectContext, predicate: FetchPredicate, watcher: ChangeWatcher) throws -> FetchedResultsController<ManagedObject> {
        let request = FetchRequest(entityName: "Item", predicate: predicate,
                                   sortDescriptors: [FetchSortDescriptor("created")])
        request.fetchBatchSize = 100
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        controller.delegate = watcher
        try controller.performFetch()
        return controller
    }

    /// The number of items: those matching the filter when there is one (the controller's
    /// count), else every item but the root (counted by the store, nothing loaded).
    public var itemCount: Int {
        guard filterText.isEmpty else { return controller.numberOfSections == 0 ? 0 : controller.numberOfObjects(inSection: 0) }
        let request = FetchRequest(entityName: "Item", predicate: Self.hasParent)
        return (try? context.count(for: request)) ?? 0
    }

    static let hasParent: FetchPredicate? = try? FetchPredicate(format: "parent != nil")

    /// Whether there are changes not yet saved.
    public var hasUnsavedChanges: Bool { context.hasChanges }

    /// Feeds terminal input: the headless driver. Returns the screen afterwards.
    @discardableResult
    public func run(_ bytes: [UInt8], width: Int = 80, height: Int = 24) -> Screen {
        for key in decoder.decode(bytes) where !hasQuit { handle(key) }
        return screen(width: width, height: height)
    }

    /// Feeds the UTF-8 bytes of `text` (escape sequences included): see ``run(_:width:height:)``.
    @discardableResult
    public func run(_ text: String, width: Int = 80, height: Int = 24) -> Screen {
        run(Array(text.utf8), width: width, height: height)
    }

    /// Saves when there are changes and nothing was edited for ``autosaveDelay`` seconds.
    /// The terminal calls it between keys.
    public func tick(now: Date = Date()) {
        guard !hasQuit, context.hasChanges, now.timeIntervalSince(lastEdit) >= autosaveDelay else { return }
        save()
    }

    /// Saves now; a failure goes to the status line.
    public func save() {
        do {
            try context.save()
            needsDisplay = true
        } catch {
            message = "save failed: \(Self.describe(error))"
        }
    }

    /// Reads what other processes saved and merges it: the list updates through its
    /// controller. The terminal calls it at least once a second.
    public func pollForRemoteChanges() {
        guard !hasQuit else { return }
        do {
            let changes = try container.mergeChangesFromOtherProcesses()
            if !changes.isEmpty { needsDisplay = true }
            if let item = selected, item.isDeleted || item.context == nil { selected = root.childItems.first; top = selected }
            if let item = top, item.isDeleted || item.context == nil { top = selected }
        } catch {
            message = "reading other processes' changes failed: \(Self.describe(error))"
        }
    }

    /// Saves and closes the document.
    public func quit() {
        guard !hasQuit else { return }
        save()
        do { try container.close() } catch { message = "closing failed: \(Self.describe(error))" }
        hasQuit = true
    }

    static func describe(_ error: any Error) -> String {
        (error as? StrataError)?.message ?? "\(error)"
    }
}

/// Marks the editor for redrawing whenever its controller reports a change.
final class ChangeWatcher: FetchedResultsControllerDelegate {
    var onChange: () -> Void = {}
    func controllerDidChangeContent(_ controller: FetchedResultsController<some ManagedObject>) { onChange() }
}
