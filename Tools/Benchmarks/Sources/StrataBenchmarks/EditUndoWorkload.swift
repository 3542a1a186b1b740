import Foundation
import Strata

/// W2 interactive editing: `edits` single-attribute edits over `editObjects` employees, a
/// flush (one undo group) every `editsPerGroup` edits, then undo all, then redo all, in
/// an in-memory store. Figures: `W2.edit_ops_per_s`, `W2.undo_ops_per_s`,
/// `W2.redo_ops_per_s`, `W2.groups`, `W2.peak_mib` (with the undo manager on or off).
struct EditUndoWorkload {
    var edits: Int
    var objects: Int
    var editsPerGroup: Int
    var undoEnabled: Bool

    struct Result {
        var editSeconds: Double
        var undoSeconds: Double
        var redoSeconds: Double
        var groups: Int
    }

    /// Inserts `objects` employees (saved, undo history cleared) and returns them.
    static func populate(_ context: ManagedObjectContext, objects: Int) throws -> [ManagedObject] {
        let model = context.model
        let department = try context.insertObject(of: try model.entity(named: "Department"))
        try department.setValue(.string(BenchData.departmentName(0)), forKey: "name")
        let entity = try model.entity(named: "Employee")
        var employees: [ManagedObject] = []
        employees.reserveCapacity(objects)
        for index in 0..<objects {
            let employee = try context.insertObject(of: entity)
            try employee.setValue(.string(BenchData.firstName(index)), forKey: "firstName")
            try employee.setValue(.string(BenchData.lastName(index, count: objects)), forKey: "lastName")
            try employee.setValue(.integer(BenchData.salary(index)), forKey: "salary")
            try employee.setValue(.integer(Int64(index)), forKey: "employeeID")
            try employee.setValue(.date(Date(timeIntervalSinceReferenceDate: BenchData.startDate(index))), forKey: "startDate")
            try employee.setObject(department, forKey: "department")
            employees.append(employee)
        }
        try context.save()
        context.undoManager?.removeAllActions()
        return employees + [department]
    }

    /// The edit loop: edit `edit` sets a salary; every `editsPerGroup` edits end a group.
    static func edit(_ employees: [ManagedObject], range: Range<Int>, objects: Int, editsPerGroup: Int,
                     context: ManagedObjectContext) throws {
        for edit in range {
            try employees[edit % objects].setValue(.integer(Int64(edit)), forKey: "salary")
            if edit % editsPerGroup == editsPerGroup - 1 { context.processPendingChanges() }
        }
        context.processPendingChanges()
    }

    func run() throws -> Result {
        let model = BenchData.model()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: undoEnabled ? ContextUndoManager() : nil)
        context.undoManager?.levelsOfUndo = 0
        let employees = try Self.populate(context, objects: objects)
        // The editor keeps its objects (on screen, in its own model) through undo and redo.
        // Without this, an optimized build releases the array after the edit loop; the
        // context then holds an object only while it has unsaved changes (as Core Data's
        // does), so an object an undo makes clean is deallocated and the next group naming
        // it fetches it again (a different workload: W2 measures edits on live objects).
        return try withExtendedLifetime(employees) {
            let (_, editSeconds) = try Clock.measure {
                try Self.edit(employees, range: 0..<edits, objects: objects, editsPerGroup: editsPerGroup, context: context)
            }
            guard let undo = context.undoManager else {
                return Result(editSeconds: editSeconds, undoSeconds: 0, redoSeconds: 0, groups: 0)
            }
            let groups = undo.undoCount
            let (_, undoSeconds) = try Clock.measure { while undo.canUndo { try undo.undo() } }
            let (_, redoSeconds) = try Clock.measure { while undo.canRedo { try undo.redo() } }
            return Result(editSeconds: editSeconds, undoSeconds: undoSeconds, redoSeconds: redoSeconds, groups: groups)
        }
    }

    static func runStrata(_ env: BenchEnvironment, undoEnabled: Bool) throws -> [String: Double] {
        let workload = EditUndoWorkload(tier: env.tier, undoEnabled: undoEnabled)
        let result = try workload.run()
        let edits = Double(workload.edits)
        var figures = ["W2.edit_ops_per_s": edits / result.editSeconds, "W2.peak_mib": peakMemoryMiB()]
        if undoEnabled {
            figures["W2.undo_ops_per_s"] = edits / result.undoSeconds
            figures["W2.redo_ops_per_s"] = edits / result.redoSeconds
            figures["W2.groups"] = Double(result.groups)
        }
        return figures
    }
}

extension EditUndoWorkload {
    /// The tier's W2 sizes.
    init(tier: Tier, undoEnabled: Bool) {
        self.init(edits: tier.edits, objects: tier.editObjects, editsPerGroup: tier.editsPerGroup, undoEnabled: undoEnabled)
    }
}
