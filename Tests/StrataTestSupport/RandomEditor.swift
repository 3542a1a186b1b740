import Foundation
import Strata

/// Random edits over the example model (Employee, Department, Project): the one editor of
/// the random undo, replay and compaction tests. Its choices come from one seeded
/// generator, so two contexts fed one seed make the same edits.
package struct RandomEditor {
    package let context: ManagedObjectContext
    package var random: SeededGenerator
    /// Whether a step may undo or redo instead of editing.
    package let undoesAndRedoes: Bool
    /// What each step did, for failure messages.
    package var log: [String] = []

    /// An editor of `context` (which then retains its registered objects, so that the
    /// objects to pick from do not depend on when instances are released).
    package init(context: ManagedObjectContext, seed: UInt64, undoesAndRedoes: Bool = false) {
        self.context = context
        self.undoesAndRedoes = undoesAndRedoes
        random = SeededGenerator(seed: seed)
        context.retainsRegisteredObjects = true
    }

    /// The live objects of an entity, in ID order.
    package func live(_ entity: String) -> [ManagedObject] {
        context.registeredObjects
            .filter { $0.entity.name == entity && !$0.isDeleted && !$0.isInvalid }
            // By ID, not by its text: temporary numbers are process-wide, so two contexts
            // fed the same seed get different ones, and "t10" sorts before "t9" as text.
            .sorted { $0.objectID < $1.objectID }
    }

    package mutating func pick(_ entity: String) -> ManagedObject? {
        let candidates = live(entity)
        return candidates.isEmpty ? nil : candidates[Int.random(in: 0..<candidates.count, using: &random)]
    }

    private mutating func number(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &random) }

    private func insert(_ entity: String, named name: String) throws -> ManagedObject {
        let object = try context.insertObject(forEntityName: entity)
        try object.setValue(.string(name), forKey: "name")
        return object
    }

    /// Makes one random edit, or an undo or redo, and flushes it (one undo group).
    package mutating func step() throws {
        switch Int.random(in: 0..<(undoesAndRedoes ? 16 : 13), using: &random) {
        case 0, 1:
            let employee = try context.insertObject(forEntityName: "Employee")
            let n = number(0...999)
            try employee.setValue(.string("F\(n)"), forKey: "firstName")
            try employee.setValue(.string("L\(n % 13)"), forKey: "lastName")
            try employee.setValue(.integer(n * 100), forKey: "salary")
            log.append("insert employee \(employee.objectID)")
        case 2:
            log.append("insert department \(try insert("Department", named: "D\(number(0...99))").objectID)")
        case 3:
            log.append("insert project \(try insert("Project", named: "P\(number(0...99))").objectID)")
        case 4, 5, 6:
            guard let employee = pick("Employee") else { return }
            let n = number(-1000...1000)
            let (key, value): (String, PropertyValue) = switch Int.random(in: 0..<10, using: &random) {
            case 0: ("salary", n < -900 ? .null : .integer(abs(n)))
            case 1: ("rating", .double(Double(n) / 7))
            case 2: ("bonus", .decimal(Decimal(n) / 1000))
            case 3: ("startDate", .date(Date(timeIntervalSinceReferenceDate: Double(n) * 86_400.125)))
            case 4: ("active", .boolean(n % 2 == 0))
            case 5: ("badge", .uuid(UUID(uuid: Self.bytes(random.next(), random.next()))))
            case 6: ("photo", .data(Data((0..<Int(abs(n) % 40)).map { UInt8(truncatingIfNeeded: $0 &* 31) })))
            case 7: ("fullName", .string("T\(n % 7)"))  // transient: never stored
            case 8: ("lastName", .string("N\(abs(n) % 10)"))
            default: ("email", n < 0 ? .null : .string("e\(n)@example.com"))
            }
            try employee.setValue(value, forKey: key)
            log.append("set \(key) of \(employee.objectID)")
        case 7:
            guard let employee = pick("Employee") else { return }
            let department = Bool.random(using: &random) ? pick("Department") : nil
            try employee.setObject(department, forKey: "department")
            log.append("set department of \(employee.objectID) to \(department?.objectID.description ?? "nil")")
        case 8:
            guard let employee = pick("Employee") else { return }
            let manager = Bool.random(using: &random) ? pick("Employee") : nil
            try employee.setObject(manager, forKey: "manager")
            log.append("set manager of \(employee.objectID) to \(manager?.objectID.description ?? "nil")")
        case 9:
            guard let employee = pick("Employee"), let project = pick("Project") else { return }
            let projects = try employee.mutableSetValue(forKey: "projects")
            if try projects.contains(project) { try projects.remove(project) } else { try projects.add(project) }
            log.append("toggle project \(project.objectID) of \(employee.objectID)")
        case 10:
            let entity = ["Employee", "Employee", "Department", "Project"][Int.random(in: 0..<4, using: &random)]
            guard let object = pick(entity) else { return }
            context.delete(object)
            log.append("delete \(object.objectID)")
        case 11:
            guard let department = pick("Department") else { return }
            let members = live("Employee").filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            try department.mutableSetValue(forKey: "employees").set(members)
            log.append("set employees of \(department.objectID) to \(members.count)")
        case 12:
            guard let project = pick("Project") else { return }
            try project.setValue(.date(Date(timeIntervalSinceReferenceDate: Double(number(0...1_000_000)) + 0.25)), forKey: "deadline")
            log.append("set deadline of \(project.objectID)")
        case 13, 14:
            guard let undo = context.undoManager, undo.canUndo else { return }
            try undo.undo()
            log.append("undo")
            return
        default:
            guard let undo = context.undoManager, undo.canRedo else { return }
            try undo.redo()
            log.append("redo")
            return
        }
        context.processPendingChanges()
    }

    /// Saves; a save refused by validation is rolled back.
    package mutating func save() throws {
        do {
            try context.save()
            log.append("save")
        } catch let error as StrataError where error.code == .validation {
            context.rollback()
            log.append("rollback: \(error.message)")
        }
    }

    private static func bytes(_ high: UInt64, _ low: UInt64) -> uuid_t {
        let b = withUnsafeBytes(of: (high, low)) { Array($0) }
        return (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }
}
