import Foundation
import Strata
#if STRATA_BENCH_POSTGRES
import StrataPostgres
#endif

/// One writer process of W11 (`StrataBenchmarks --w11-writer URL DOCUMENT NAME SAVES TOTAL DIR`).
///
/// Opens the shared document (listening for the others' saves), writes `DIR/ready-NAME`,
/// waits for `DIR/go`, then saves SAVES times (0: a follower, which only takes in the
/// writers' saves): each save inserts one employee in the
/// department "Shared" and renames that department — a record every writer changes, so a
/// save whose copy of it is stale meets a conflict. The context's merge policy is `.error`,
/// so each conflict is seen (and counted); the save is then retried under
/// `.mergeByPropertyObjectTrump`, as an application resolving it would. It then waits
/// (bounded) until its store has taken in the others' saves through LISTEN/NOTIFY.
///
/// Prints, one per line: `ack PK TIME` after each save (its employee's primary key, the
/// wall-clock time the save returned), `conflict`, `failed ERROR`, `seen PK TIME` for every
/// employee another writer inserted (the time this store's catch-up announced it),
/// `done SECONDS` (from the go to the last save's return), and `reads R P` (segments its
/// store read from the URL's replicas and from the primary).
enum ManyWriterProcess {
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 6, let saves = Int(arguments[3]), let total = Int(arguments[4]) else {
            note("usage: StrataBenchmarks --w11-writer URL DOCUMENT NAME SAVES TOTAL DIR")
            return 2
        }
        let (url, document, name, directory) = (arguments[0], arguments[1], arguments[2], URL(fileURLWithPath: arguments[5]))
        do {
            try run(url: url, document: document, name: name, saves: saves, total: total, directory: directory)
            return 0
        } catch {
            note("W11 writer \(name): \(error)")
            return 1
        }
    }

    private static func run(url: String, document: String, name: String, saves: Int, total: Int, directory: URL) throws {
        #if !STRATA_BENCH_POSTGRES
        throw BenchFailure("W11's writers need PostgreSQL: build the benchmarks with STRATA_POSTGRES=1")
        #else
        let model = BenchData.model()
        let store = try PostgresDocumentStore(url: url, document: document, model: model)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let seen = SeenLog()
        let observer = NotificationCenter.default.addObserver(
            forName: PersistentStoreCoordinator.storeRemoteChangeNotification, object: coordinator, queue: nil
        ) { note in
            guard let change = note.userInfo?[PersistentStoreCoordinator.remoteChangeKey] as? StoreRemoteChange else { return }
            seen.record(change.changes.inserted.filter { $0.entity.name == "Employee" }.map(\.primaryKey))
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        context.automaticallyMergesChangesFromParent = true
        let request = FetchRequest(entityName: "Department", predicate: try FetchPredicate(format: "name BEGINSWITH 'Shared'"))
        guard let shared = try context.fetch(request).first else { throw BenchFailure("no department Shared in \(document)") }

        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("ready-\(name)").path, contents: nil)
        let go = directory.appendingPathComponent("go").path
        let waitLimit = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: go) {
            guard Date() < waitLimit else { throw BenchFailure("no go after 120 s") }
            Thread.sleep(forTimeInterval: 0.002)
        }
        let start = Clock.now
        var mine = Set<Int64>()
        for number in stride(from: 1, through: saves, by: 1) {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string(name), forKey: "firstName")
            try employee.setValue(.string("Writer"), forKey: "lastName")
            try employee.setValue(.integer(Int64(number)), forKey: "employeeID")
            try employee.setObject(shared, forKey: "department")
            try shared.setValue(.string("Shared \(name) \(number)"), forKey: "name")
            context.mergePolicy = .error
            do {
                try context.save()
            } catch let error as StrataError where error.code == .mergeConflict {
                print("conflict")
                context.mergePolicy = .mergeByPropertyObjectTrump
                do { try context.save() } catch {
                    print("failed \(error)")
                    context.rollback()
                    continue
                }
            } catch {
                print("failed \(error)")
                context.rollback()
                continue
            }
            mine.insert(employee.objectID.primaryKey)
            print("ack \(employee.objectID.primaryKey) \(Date().timeIntervalSince1970)")
        }
        let seconds = Clock.seconds(since: start)
        // The others' saves reach this store through NOTIFY; the limit bounds a hang.
        let others = total - saves
        let limit = Date().addingTimeInterval(60)
        // Also stops once the store holds every save: one taken in without an announcement
        // would otherwise keep it waiting (the parent counts it as unseen).
        let employees = FetchRequest(entityName: "Employee")
        while seen.count(excluding: mine) < others && Date() < limit {
            if try context.count(for: employees) >= total {
                Thread.sleep(forTimeInterval: 0.2)
                if seen.count(excluding: mine) < others { break }
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        for (key, time) in seen.all where !mine.contains(key) { print("seen \(key) \(time)") }
        print("done \(seconds)")
        let reads = store.serverReads
        print("reads \(reads.segmentsFromReplicas) \(reads.segmentsFromPrimary)")
        try store.close()
        #endif
    }
}

/// The first time each primary key was announced by a remote change (any thread).
final class SeenLog: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [Int64: Double] = [:]

    func record(_ keys: [Int64]) {
        let now = Date().timeIntervalSince1970
        lock.withLock { for key in keys where times[key] == nil { times[key] = now } }
    }

    func count(excluding mine: Set<Int64>) -> Int { lock.withLock { times.keys.filter { !mine.contains($0) }.count } }

    var all: [(Int64, Double)] { lock.withLock { times.map { ($0.key, $0.value) } } }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
