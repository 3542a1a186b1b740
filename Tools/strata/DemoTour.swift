import Foundation
import Strata
import StrataToolSupport

/// The steps of `strata demo`, run against the library directly.
struct DemoTour {
    let url: URL

    private func step(_ number: Int, _ title: String) {
        print("\n\(number). \(title)")
    }

    private func say(_ text: String) {
        print("   " + text)
    }

    private func open(_ model: ManagedObjectModel) throws -> (DocumentStore, ManagedObjectContext) {
        let store = try DocumentStore(openingAt: url, model: model, configuration: DocumentSession.configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        return (store, ManagedObjectContext(coordinator: coordinator))
    }

    private func name(_ object: ManagedObject) throws -> String {
        let first = try object.value(forKey: "firstName")
        let last = try object.value(forKey: "lastName")
        return [first, last].compactMap { if case .string(let text) = $0 { text } else { nil } }.joined(separator: " ")
    }

    private func salary(_ object: ManagedObject) throws -> String {
        if case .integer(let value) = try object.value(forKey: "salary") { return "$" + CommandOutput.grouped(Int(value)) }
        return "none"
    }

    func run() throws {
        print("Strata demo: an undoable document engine with Core Data's object graph")
        print("Document: \(url.path)")

        step(1, "Create a document for the built-in Employee/Department/Project model")
        let model = ManagedObjectModel.employeesExample()
        try DocumentStore(creatingAt: url, model: model, overwrite: true, configuration: DocumentSession.configuration).close()
        say("entities: " + model.entities.map { $0.isAbstract ? "\($0.name) (abstract)" : $0.name }.joined(separator: ", "))

        var (store, context) = try open(model)
        step(2, "Insert a department and four employees, saved as one undo group")
        let research = try context.insertObject(forEntityName: "Department")
        try research.setValue("Research", forKey: "name")
        try research.setValue(.decimal(Decimal(string: "1250000.00") ?? 0), forKey: "budget")
        let people: [(String, String, Int64)] = [("Ada", "Lovelace", 150_000), ("Charles", "Babbage", 135_000),
                                                 ("Grace", "Hopper", 142_000), ("Alan", "Turing", 98_000)]
        var employees: [ManagedObject] = []
        for (first, last, pay) in people {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string(first), forKey: "firstName")
            try employee.setValue(.string(last), forKey: "lastName")
            try employee.setValue(.integer(pay), forKey: "salary")
            try employee.setObject(research, forKey: "department")
            employees.append(employee)
        }
        try employees[3].setObject(employees[0], forKey: "manager")
        context.undoManager?.setActionName("Hire the Research team")
        try context.save()
        say("saved: \(try research.objects(forKey: "employees").count) employees in Research (inverse kept by Strata)")
        say("Ada is \(employees[0].objectID)")

        step(3, "Edit: give Alan a raise (a second undo group)")
        try employees[3].setValue(.integer(120_000), forKey: "salary")
        context.undoManager?.setActionName("Raise Alan")
        try context.save()
        say("Alan's salary: \(try salary(employees[3]))")

        step(4, "Undo and redo")
        try context.undoManager?.undo()
        try context.save()
        say("after undo: Alan's salary is \(try salary(employees[3])) — \(context.undoManager?.redoMenuItemTitle ?? "")")
        try context.undoManager?.redo()
        try context.save()
        say("after redo: Alan's salary is \(try salary(employees[3]))")

        step(5, "Close, reopen: the undo history lives in the document")
        let alanID = employees[3].objectID
        employees.removeAll()
        try store.close()
        (store, context) = try open(model)
        try context.restoreUndoHistory()
        say("reopened; \(context.undoManager?.undoMenuItemTitle ?? "") is available")
        try context.undoManager?.undo()
        try context.save()
        say("undid it in the new session: Alan's salary is \(try salary(try context.existingObject(with: alanID)))")

        step(6, "The log: one LZ4-compressed segment per save")
        var info = try store.info()
        say("\(info.segmentCount) segments, \(info.segmentBytes) bytes compressed (\(info.segmentRawBytes) raw), \(info.groupCount) undo groups")
        for record in try store.groupRecords() {
            let kind = HistoryCommand.kindName(record.info.kind)
            say("  segment \(record.sequence): \(kind.padding(toLength: 5, withPad: " ", startingAt: 0)) \"\(record.info.actionName)\"")
        }

        step(7, "Compaction: fold the log into SQLite snapshot tables (history kept)")
        let report = try store.compact()
        info = try store.info()
        say("folded \(report.segments) segments: \(report.rowsWritten) rows written; compacted through segment \(info.compactedThrough), \(info.segmentCount) segments kept for undo and time travel")

        step(8, "Fetch: Employee where salary > 100000, sorted by salary descending")
        let predicate = try FetchPredicate(format: "salary > 100000")
        let specification = FetchSpecification(
            entity: try model.entity(named: "Employee"), predicate: predicate,
            sortDescriptors: [FetchSortDescriptor("salary", ascending: false)], limit: 0, offset: 0)
        var rows: [[String]] = []
        for employee in try FetchBackend.objects(specification, context: context) {
            let department = try employee.object(forKey: "department").map { try $0.value(forKey: "name") }
            rows.append([ToolRecordText.shortReference(employee.objectID), try name(employee), try salary(employee),
                         department.map { if case .string(let text) = $0 { text } else { "" } } ?? ""])
        }
        for line in CommandOutput.table(["object", "name", "salary", "department"], rows).split(separator: "\n") { say(String(line)) }
        try store.close()

        print("\nDone. The document is \(url.path)")
        print("Explore it:")
        let path = url.path.contains(" ") ? "'\(url.path)'" : url.path
        print("  strata info \(path)")
        print("  strata fetch \(path) Employee --where 'salary > 100000' --sort lastName")
        print("  strata history \(path)")
        print("  strata-log dump \(path)")
        // `swift run strata demo` builds only strata: say how to get both on PATH.
        if InstalledTool.path(of: "strata-log") == nil {
            print("(strata-log is not installed: `bash Tools/install` in Strata's checkout builds strata and strata-log and puts them on PATH)")
        }
    }
}
