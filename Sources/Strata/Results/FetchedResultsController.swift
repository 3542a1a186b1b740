import Foundation
import Observation

/// A fetch whose results stay current as its context changes, reported as diffs a list view
/// can apply: Core Data's `NSFetchedResultsController`.
///
/// ```swift
/// let request = FetchRequest<Employee>(
///     sortDescriptors: [FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName")])
/// let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                           sectionNameKeyPath: "department.name")
/// controller.delegate = list                  // or: for await update in controller.changes() { ... }
/// try controller.performFetch()
/// let first: Employee = controller.object(at: ResultIndexPath(item: 0, section: 0))
/// ```
///
/// The results are instances of the request's type (Core Data's
/// `NSFetchedResultsController<ResultType>`); an object of the entity whose class is not
/// one (a sub-entity registered with an unrelated class) makes ``performFetch()`` throw,
/// and is never admitted by a later change.
///
/// The results follow the context's own changes (at each flush: ``ManagedObjectContext/processPendingChanges()``,
/// undo, redo, saves), the saves of other contexts merged into it
/// (``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(SaveChanges)``, automatic merging) and other
/// processes' saves merged with `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`
/// or ``PersistentContainer/mergeChangesFromOtherProcesses()``.
///
/// **Sections.** With a `sectionNameKeyPath`, objects with the same value there form a
/// section, named by that value as text. The sort descriptors must group the sections (the
/// first one sorts by the section key, or by something that orders sections the same way),
/// as in Core Data; sections come in the order of their first objects.
///
/// **Cost.** Every section keeps its objects in a sorted array with their sort keys. A change
/// to k objects costs O(k log n) comparisons by `FetchSortDescriptor.compare(_:_:by:)`
/// (the fetch's own comparator), the predicate evaluated in memory on those k objects only,
/// and moving the array's tail by one entry per insertion or removal (a word copy, no
/// comparisons); nothing is fetched again. ``changes()`` adds an O(n) snapshot per change
/// while someone listens.
///
/// **Threads.** A controller belongs to its context's queue: create it, use it and read it
/// there (inside `perform` for a queue context). Its delegate is called there.
///
/// The request's `fetchLimit` and `fetchOffset` must be 0, and `includesPendingChanges` true.
public final class FetchedResultsController<ResultType: ManagedObject> {
    /// The request: entity, predicate, sort descriptors. Changing it takes effect at the next
    /// ``performFetch()``.
    public let fetchRequest: FetchRequest<ResultType>
    /// The context whose objects the results are.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names an object's section; nil puts every object in one
    /// section named "".
    public let sectionNameKeyPath: String?
    /// Told about every change (held weakly).
    public weak var delegate: (any FetchedResultsControllerDelegate)?

    // The entries and their bookkeeping are not generic (FetchedResultsEntries.swift).
    typealias Entry = FetchedResultsEntry
    typealias SectionEntries = FetchedResultsSectionEntries
    typealias Member = FetchedResultsMember

    var sectionList: [SectionEntries] = []
    /// Tells Observation's tracked reads of the results that they changed
    /// (FetchedResultsController+Observation.swift).
    let observationRegistrar = ObservationRegistrar()
    var sectionsByName: [String: SectionEntries] = [:]
    var sectionIndex: [String: Int] = [:]
    var members: [ObjectIdentifier: Member] = [:]
    var memberByID: [ManagedObjectID: ObjectIdentifier] = [:]
    var entity: EntityDescription?
    var readsRelated = false
    var hasFetched = false
    /// IDs the last ObjectsDidChange notice handled, so that the merge that posted it does
    /// not report them twice.
    var lastNoticeIDs: Set<ManagedObjectID> = []
    var listeners: [UUID: AsyncStream<FetchedResultsUpdate>.Continuation] = [:]
    private var tokens: [any NSObjectProtocol] = []
    private let observerKey = UUID()

    /// Creates a controller; nothing is fetched until ``performFetch()``.
    /// - Parameters:
    ///   - fetchRequest: what to fetch and in which order.
    ///   - managedObjectContext: the context whose objects the results are.
    ///   - sectionNameKeyPath: a key path (through to-ones) whose value names each object's
    ///     section; nil for one section.
    public init(fetchRequest: FetchRequest<ResultType>, managedObjectContext: ManagedObjectContext, sectionNameKeyPath: String? = nil) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
        managedObjectContext.resultObservers[observerKey] = nil
        managedObjectContext.permanentIDObservers[observerKey] = nil
        for listener in listeners.values { listener.finish() }
    }

    // MARK: Reading

    /// The objects in order, section after section; nil before ``performFetch()``.
    /// - Complexity: O(n).
    public var fetchedObjects: [ResultType]? {
        observeResults()
        return hasFetched ? sectionList.flatMap { $0.entries.map { Self.result($0.object) } } : nil
    }

    /// The sections in order; nil before ``performFetch()``.
    /// - Complexity: O(n) (the objects of every section are listed).
    public var sections: [FetchedResultsSection]? {
        observeResults()
        return hasFetched ? sectionList.map { FetchedResultsSection(name: $0.name, objects: $0.entries.map(\.object)) } : nil
    }

    /// The number of sections (0 before ``performFetch()``).
    public var numberOfSections: Int {
        observeResults()
        return sectionList.count
    }

    /// The number of objects in a section.
    /// - Precondition: `section` is a valid section index.
    public func numberOfObjects(inSection section: Int) -> Int { sectionList[section].entries.count }

    /// The name of a section.
    /// - Precondition: `section` is a valid section index.
    public func sectionName(at section: Int) -> String { sectionList[section].name }

    /// The object at an index path.
    /// - Precondition: the index path is within the results.
    /// - Complexity: O(1).
    public func object(at indexPath: ResultIndexPath) -> ResultType {
        Self.result(sectionList[indexPath.section].entries[indexPath.item].object)
    }

    /// Where an object is in the results, or nil when it is not in them.
    /// - Complexity: O(log n) comparisons.
    public func indexPath(for object: ManagedObject) -> ResultIndexPath? {
        guard let member = members[ObjectIdentifier(object)], let section = sectionIndex[member.section],
              let row = row(of: member) else { return nil }
        return ResultIndexPath(item: row, section: section)
    }

    /// The object IDs of the results, section by section.
    /// - Complexity: O(n).
    public func snapshot() -> FetchedResultsSnapshot {
        FetchedResultsSnapshot(sections: sectionList.map { section in
            .init(name: section.name, objectIDs: section.entries.map(\.object.objectID))
        })
    }

    /// Every change from now on, each as the results after it and the diff from the element
    /// before. The first element is the current snapshot with an empty diff. The elements
    /// are `Sendable`: consume them on any task.
    ///
    /// ```swift
    /// for await update in controller.changes() { render(update.snapshot, animating: update.diff) }
    /// ```
    /// - Complexity: O(n) per change while the stream is listened to (a snapshot each).
    public func changes() -> AsyncStream<FetchedResultsUpdate> {
        let (stream, continuation) = AsyncStream<FetchedResultsUpdate>.makeStream()
        continuation.yield(FetchedResultsUpdate(snapshot: snapshot(), diff: FetchedResultsDiff()))
        let key = UUID()
        listeners[key] = continuation
        return stream
    }

    // MARK: Fetching

    /// Runs the fetch and starts following the context. Calling it again (after changing the
    /// request) fetches again; the delegate is not called then, and ``changes()`` listeners
    /// get the new results with a diff that deletes every old object and inserts every new one.
    /// - Throws: the fetch's errors; `.invalidArgument` for a request with a fetch limit or
    ///   offset, or without pending changes; `.invalidArgument` for a section key path
    ///   through a to-many.
    /// - Complexity: the fetch, plus O(n) to read every result's sort keys.
    public func performFetch() throws {
        let request = fetchRequest
        guard request.fetchLimit == 0, request.fetchOffset == 0, request.includesPendingChanges else {
            throw StrataError(.invalidArgument,
                              "A FetchedResultsController needs a request without fetchLimit or fetchOffset that includes pending changes.",
                              context: .init { $0.entity = request.entityName })
        }
        let resolved = try request.resolve(in: managedObjectContext.model)
        let before = listeners.isEmpty || !hasFetched ? nil : snapshot()
        entity = resolved.entity
        readsRelated = resolved.readsRelatedObjects || (sectionNameKeyPath?.contains(".") ?? false)
        let objects = try managedObjectContext.fetch(request)
        sectionList = []
        sectionsByName = [:]
        members = [:]
        memberByID = [:]
        for object in objects {
            let keys = try FetchSortDescriptor.sortKeys(of: object, for: request.sortDescriptors)
            let name = try sectionName(of: object)
            let section = sectionsByName[name] ?? {
                let made = SectionEntries(name: name)
                sectionsByName[name] = made
                sectionList.append(made)
                return made
            }()
            let entry = Entry(object: object, id: object.objectID, keys: keys)
            members[ObjectIdentifier(object)] = Member(entry: entry, section: name, rowHint: section.entries.count)
            section.entries.append(entry)
            memberByID[object.objectID] = ObjectIdentifier(object)
        }
        // The fetch's order is the comparator's; a store whose order differed (it should not)
        // would break every binary search, so check and sort if needed.
        for section in sectionList where !isSorted(section.entries) {
            section.entries.sort { compare($0, $1) < 0 }
        }
        reindexSections()
        hasFetched = true
        startObserving()
        if let before { publish(reset(from: before)) }
        announceResultsChanged()
    }

    // MARK: Pieces

    /// An entry's object as the request's type: entries hold only objects admitted as one
    /// (performFetch()'s typed fetch, placement(of:)), so the cast cannot fail; it is left
    /// unchecked in optimized builds.
    static func result(_ object: ManagedObject) -> ResultType {
        unsafeDowncast(object, to: ResultType.self)
    }

    func compare(_ a: Entry, _ b: Entry) -> Int {
        FetchSortDescriptor.compare((a.id, a.keys), (b.id, b.keys), by: fetchRequest.sortDescriptors)
    }

    private func isSorted(_ entries: [Entry]) -> Bool {
        zip(entries, entries.dropFirst()).allSatisfy { compare($0, $1) < 0 }
    }

    /// The first index whose entry does not sort before `entry`.
    /// - Complexity: O(log n) comparisons; one when `entry` sorts after every entry (new
    ///   objects usually do: their keys and IDs are the highest so far).
    func lowerBound(_ entry: Entry, in entries: [Entry]) -> Int {
        guard let last = entries.last else { return 0 }
        if compare(last, entry) < 0 { return entries.count }
        var low = 0, high = entries.count - 1
        while low < high {
            let middle = (low + high) / 2
            if compare(entries[middle], entry) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The member's row in its section: where it was put, when nothing before it moved since
    /// (the object there is the member's: each object has one entry), else by binary search
    /// by what it was ordered by.
    /// - Complexity: O(1) at its hint, else O(log n) comparisons.
    func row(of member: Member) -> Int? {
        guard let section = sectionsByName[member.section] else { return nil }
        let hint = member.rowHint
        if hint >= 0, hint < section.entries.count, section.entries[hint].object === member.entry.object { return hint }
        let row = lowerBound(member.entry, in: section.entries)
        if row < section.entries.count, section.entries[row].object === member.entry.object { return row }
        return section.entries.firstIndex { $0.object === member.entry.object }   // never expected
    }

    /// The section name of an object: its section key path's value as text.
    func sectionName(of object: ManagedObject) throws -> String {
        guard let sectionNameKeyPath else { return "" }
        switch try object.resolvedValue(atKeyPath: sectionNameKeyPath) {
        case .null: return ""
        case .string(let text): return text
        case let value: return value.description
        }
    }

    func reindexSections() {
        sectionIndex = Dictionary(uniqueKeysWithValues: sectionList.enumerated().map { ($1.name, $0) })
    }

    /// A diff that replaces every old object and section by the new ones.
    private func reset(from before: FetchedResultsSnapshot) -> FetchedResultsDiff {
        var diff = FetchedResultsDiff()
        for (s, section) in before.sections.enumerated().reversed() {
            diff.deletedSections.append(s)
            for (i, id) in section.objectIDs.enumerated().reversed() {
                diff.deletions.append(.init(objectID: id, oldIndexPath: ResultIndexPath(item: i, section: s), newIndexPath: nil))
            }
        }
        diff.deletions.sort { $0.oldIndexPath! > $1.oldIndexPath! }
        for (s, section) in sectionList.enumerated() {
            diff.insertedSections.append(s)
            for (i, entry) in section.entries.enumerated() {
                diff.insertions.append(.init(objectID: entry.object.objectID, oldIndexPath: nil,
                                             newIndexPath: ResultIndexPath(item: i, section: s)))
            }
        }
        return diff
    }

    /// Hands a diff to the stream listeners.
    func publish(_ diff: FetchedResultsDiff) {
        announceResultsChanged()
        guard !listeners.isEmpty else { return }
        let update = FetchedResultsUpdate(snapshot: snapshot(), diff: diff)
        for (key, listener) in listeners {
            if case .terminated = listener.yield(update) { listeners[key] = nil }
        }
    }

    private func startObserving() {
        guard tokens.isEmpty else { return }
        let box = WeakController(self)
        let center = NotificationCenter.default
        tokens.append(center.addObserver(forName: ManagedObjectContext.objectsDidChangeNotification,
                                         object: managedObjectContext, queue: nil) { note in
            var ids: Set<ManagedObjectID> = []
            for key in [ManagedObjectContext.insertedObjectsKey, ManagedObjectContext.updatedObjectsKey,
                        ManagedObjectContext.deletedObjectsKey, ManagedObjectContext.refreshedObjectsKey,
                        ManagedObjectContext.invalidatedObjectsKey] {
                if let set = note.userInfo?[key] as? Set<ManagedObjectID> { ids.formUnion(set) }
            }
            box.controller?.contextDidChange(ids)
        })
        tokens.append(center.addObserver(forName: ManagedObjectContext.didSaveNotification,
                                         object: managedObjectContext, queue: nil) { note in
            let inserted = note.userInfo?[ManagedObjectContext.insertedObjectsKey] as? Set<ManagedObjectID> ?? []
            box.controller?.contextDidSave(inserted: inserted)
        })
        managedObjectContext.resultObservers[observerKey] = { [weak self] changes in self?.contextDidMerge(changes) }
        managedObjectContext.permanentIDObservers[observerKey] = { [weak self] ids in self?.contextDidSave(inserted: ids) }
    }
}

/// Lets a notification block, which must be `Sendable`, reach the controller. The block runs
/// on the posting context's queue, the controller's own.
private final class WeakController<ResultType: ManagedObject>: @unchecked Sendable {
    weak var controller: FetchedResultsController<ResultType>?
    init(_ controller: FetchedResultsController<ResultType>) { self.controller = controller }
}
