import Foundation
import Testing
@testable import Strata


/// Every live object's values by ID: what "the graph equals" means in these tests.
func graphSnapshot(_ context: ManagedObjectContext) -> [ManagedObjectID: [PropertyValue]] {
    var result: [ManagedObjectID: [PropertyValue]] = [:]
    for object in context.registeredObjects where !object.isDeleted && !object.isInvalid {
        if object.isFault { try? context.fireFault(object) }
        result[object.objectID] = object.storage
    }
    return result
}

/// Random edits over the Employee/Department/Project model.
struct RandomEditor {
    let stack: Stack
    var random: SeededGenerator
    var log: [String] = []

    var context: ManagedObjectContext { stack.context }

    func live(_ entity: String) -> [ManagedObject] {
        context.registeredObjects
            .filter { $0.entity.name == entity && !$0.isDeleted && !$0.isInvalid }
            // By ID, not by its text: temporary numbers are process-wide, so two contexts
            // fed the same seed get different ones, and "t10" sorts before "t9" as text.
            .sorted { $0.objectID < $1.objectID }
    }

    mutating func pick(_ entity: String) -> ManagedObject? {
        let candidates = live(entity)
        return candidates.isEmpty ? nil : candidates[Int.random(in: 0..<candidates.count, using: &random)]
    }

    /// Makes one random edit and says what it did.
    mutating func step() throws {
        switch Int.random(in: 0..<11, using: &random) {
        case 0:
            let salary = Int64.random(in: 0...200_000, using: &random)
            let employee = try stack.employee("E\(salary)", "L\(salary % 97)", salary: salary)
            log.append("insert employee \(employee.objectID)")
        case 1:
            let department = try stack.department("D\(Int.random(in: 0...99, using: &random))")
            log.append("insert department \(department.objectID)")
        case 2:
            let project = try stack.project("P\(Int.random(in: 0...99, using: &random))")
            log.append("insert project \(project.objectID)")
        case 3, 4:
            guard let employee = pick("Employee") else { return }
            let salary = Int64.random(in: 0...200_000, using: &random)
            try employee.setValue(.integer(salary), forKey: "salary")
            try employee.setValue(.string("T\(salary % 7)"), forKey: "fullName")
            log.append("salary \(employee.objectID) = \(salary)")
        case 5:
            guard let employee = pick("Employee") else { return }
            let department = Bool.random(using: &random) ? pick("Department") : nil
            try employee.setObject(department, forKey: "department")
            log.append("department \(employee.objectID) = \(department?.objectID.description ?? "nil")")
        case 6:
            guard let employee = pick("Employee") else { return }
            let manager = Bool.random(using: &random) ? pick("Employee") : nil
            try employee.setObject(manager, forKey: "manager")
            log.append("manager \(employee.objectID) = \(manager?.objectID.description ?? "nil")")
        case 7:
            guard let employee = pick("Employee"), let project = pick("Project") else { return }
            let projects = try employee.mutableSetValue(forKey: "projects")
            if try projects.contains(project) { try projects.remove(project) } else { try projects.add(project) }
            log.append("toggle project \(project.objectID) of \(employee.objectID)")
        case 8:
            let entity = ["Employee", "Department", "Project"][Int.random(in: 0..<3, using: &random)]
            guard let object = pick(entity) else { return }
            context.delete(object)
            log.append("delete \(object.objectID)")
        case 9:
            guard let department = pick("Department") else { return }
            let members = live("Employee").filter { _ in Bool.random(using: &random) }
            try department.mutableSetValue(forKey: "employees").set(members)
            log.append("set employees of \(department.objectID) to \(members.count)")
        default:
            guard let employee = pick("Employee") else { return }
            try employee.setValue(.string("N\(Int.random(in: 0...9, using: &random))"), forKey: "lastName")
            log.append("rename \(employee.objectID)")
        }
    }
}

@Suite struct RandomEditUndo {
    static let seeds: [UInt64] = [1, 2, 3, 42, 2024, 0xC0FFEE, 977, 31_337]

    @Test(arguments: seeds)
    func undoingEverythingRestoresTheStartAndRedoingRestoresTheEnd(seed: UInt64) throws {
        let stack = Stack()
        stack.context.retainsRegisteredObjects = true
        var editor = RandomEditor(stack: stack, random: SeededGenerator(seed: seed))
        // A saved starting graph.
        for _ in 0..<15 { try editor.step() }
        try? stack.context.save()
        if stack.context.hasChanges { stack.context.rollback() }
        stack.undo.removeAllActions()
        let start = graphSnapshot(stack.context)

        var groups = 0
        for stepIndex in 0..<120 {
            try editor.step()
            stack.context.processPendingChanges()
            groups = stack.undo.undoCount
            let violations = stack.context.graphInvariantViolations()
            #expect(violations.isEmpty, "seed \(seed), step \(stepIndex) (\(editor.log.last ?? "")): \(violations)")
            if !violations.isEmpty { return }
            if stepIndex % 25 == 24 { try? stack.context.save() }
        }
        let end = graphSnapshot(stack.context)
        #expect(end != start, "seed \(seed): the random edits changed nothing")
        #expect(groups > 40, "seed \(seed): only \(groups) undo groups")
        for _ in 0..<groups { try stack.undo.undo() }
        #expect(!stack.undo.canUndo)
        #expect(stack.context.graphInvariantViolations().isEmpty, "seed \(seed) after undo all")
        #expect(graphSnapshot(stack.context) == start, "seed \(seed): undo all did not restore the start")
        while stack.undo.canRedo { try stack.undo.redo() }
        #expect(stack.context.graphInvariantViolations().isEmpty, "seed \(seed) after redo all")
        #expect(graphSnapshot(stack.context) == end, "seed \(seed): redo all did not restore the end")
    }
}
