import Foundation
import Testing
@testable import Strata

/// Names IDs by the order a context first shows them, so that two contexts doing the same
/// things (with different temporary numbers and store tags) can be compared.
private final class IDNames {
    private var names: [ManagedObjectID: String] = [:]

    func name(_ id: ManagedObjectID) -> String {
        if let name = names[id] { return name }
        let name = "\(id.entity.name)#\(names.count)"
        names[id] = name
        return name
    }

    func text(_ value: PropertyValue) -> String {
        switch value {
        case .object(let id): return name(id)
        case .objects(let ids): return "[" + ids.map(name).joined(separator: ",") + "]"
        default: return "\(value)"
        }
    }

    func text(_ operation: ChangeOperation) -> String {
        switch operation {
        case .insert(let id, let values): return "insert \(name(id)) \(values.map(text))"
        case .delete(let id, let values): return "delete \(name(id)) \(values.map(text))"
        case .update(let id, let changes):
            return "update \(name(id)) " + changes.map { "\($0.slot):\(text($0.old))->\(text($0.new))" }.joined(separator: " ")
        case .relate(let id, let slot, let added, let removed):
            return "relate \(name(id)) \(slot) +\(added.map(name)) -\(removed.map(name))"
        case .splice(let id, let slot, let edit):
            return "splice \(name(id)) \(slot) +\(edit.insertions) -\(edit.deletions)"
        }
    }
}

/// What one context shows after a step: values, changed sets, the unsaved log, the undo
/// stacks and the last ObjectsDidChange.
private func observable(_ context: ManagedObjectContext, _ names: IDNames, lastChange: ObjectChanges?) -> [String] {
    let objects = context.registeredObjects.filter { !$0.isInvalid }.sorted { names.name($0.objectID) < names.name($1.objectID) }
    var lines = objects.map { object in
        "\(names.name(object.objectID)) fault=\(object.isFault) ins=\(object.isInserted) upd=\(object.isUpdated) del=\(object.isDeleted) "
            + (object.isFault ? "" : object.storage.map(names.text).joined(separator: "|"))
            + " committed=\((try? object.committedValues(forKeys: nil))?.sorted { $0.key < $1.key }.map { "\($0.key)=\(names.text($0.value))" } ?? [])"
    }
    lines.append("hasChanges=\(context.hasChanges) dirty=\(Array(context.dirtySet.values).map { names.name($0.objectID) })")
    for batch in context.log.unsaved {
        lines.append("batch \(batch.kind) undoable=\(batch.isUndoable): " + batch.operations.map(names.text).joined(separator: "; "))
    }
    if let undo = context.undoManager { lines.append("undo=\(undo.undoCount) redo=\(undo.redoCount)") }
    if let lastChange {
        lines.append("changed ins=\(lastChange.inserted.map(names.name).sorted()) upd=\(lastChange.updated.map(names.name).sorted()) del=\(lastChange.deleted.map(names.name).sorted())")
    }
    return lines
}

/// The last ObjectsDidChange a context posted (posted synchronously on the test's thread).
private final class LastChange: @unchecked Sendable {
    var value: ObjectChanges?
}

@Suite struct UpdateReplay {
    @Test(arguments: [UInt64(5), 17, 99, 4242])
    func oneBatchUndoAndRedoMatchTheGeneralPath(seed: UInt64) throws {
        let fast = Stack()
        let general = Stack()
        general.context.replaysUpdatesDirectly = false
        var fastEditor = RandomEditor(context: fast.context, seed: seed)
        var generalEditor = RandomEditor(context: general.context, seed: seed)
        var choices = SeededGenerator(seed: seed &+ 1)
        let fastNames = IDNames(), generalNames = IDNames()
        let fastChange = LastChange(), generalChange = LastChange()
        let center = NotificationCenter.default
        let tokens = [
            center.addObserver(forName: ManagedObjectContext.objectsDidChangeNotification, object: fast.context, queue: nil) { note in
                fastChange.value = Self.changes(note)
            },
            center.addObserver(forName: ManagedObjectContext.objectsDidChangeNotification, object: general.context, queue: nil) { note in
                generalChange.value = Self.changes(note)
            },
        ]
        defer { tokens.forEach(center.removeObserver) }
        fast.context.retainsRegisteredObjects = true
        general.context.retainsRegisteredObjects = true

        var undos = 0
        for step in 0..<300 {
            let choice = Int.random(in: 0..<10, using: &choices)
            switch choice {
            case 0..<3:
                try fast.undo.undo()
                try general.undo.undo()
                undos += 1
            case 3:
                try fast.undo.redo()
                try general.undo.redo()
            case 4 where step % 7 == 0:
                try? fast.context.save()
                try? general.context.save()
            default:
                // Mostly attribute edits, one group each: the updates the one-pass path takes.
                if Int.random(in: 0..<3, using: &choices) == 0 {
                    try fastEditor.step()
                    try generalEditor.step()
                } else {
                    let salary = Int64.random(in: 0...9, using: &choices)
                    for (stack, editor) in [(fast, fastEditor), (general, generalEditor)] {
                        let employees = editor.live("Employee")
                        guard !employees.isEmpty else { continue }
                        try employees[Int(salary) % employees.count].setValue(.integer(salary), forKey: "salary")
                        stack.context.processPendingChanges()
                    }
                }
                fast.context.processPendingChanges()
                general.context.processPendingChanges()
            }
            let left = observable(fast.context, fastNames, lastChange: fastChange.value)
            let right = observable(general.context, generalNames, lastChange: generalChange.value)
            #expect(left == right, "seed \(seed), step \(step), choice \(choice)")
            if left != right { return }
        }
        #expect(undos > 50)
        #expect(fast.context.directUpdateReplays > 5, "the one-pass path ran \(fast.context.directUpdateReplays) times")
        #expect(general.context.directUpdateReplays == 0)
    }

    @Test func aBatchWhoseValuesChangedSinceTakesTheGeneralPath() throws {
        let stack = Stack()
        let employee = try stack.employee("Ada", "Lovelace", salary: 1)
        try stack.context.save()
        stack.undo.removeAllActions()
        try employee.setValue(.integer(2), forKey: "salary")
        stack.context.processPendingChanges()
        // Changed behind the undo manager's back: the batch's new value is no longer current.
        stack.undo.disableUndoRegistration()
        try employee.setValue(.integer(3), forKey: "salary")
        stack.context.processPendingChanges()
        try stack.undo.enableUndoRegistration()
        let batch = try #require(stack.context.undoManager?.undoStack.last?.batches)
        #expect(!stack.context.replayInverseOfUpdates(batch))
        #expect(try employee.value(forKey: "salary") == .integer(3))
        try stack.undo.undo()
        #expect(try employee.value(forKey: "salary") == .integer(1))
        #expect(!employee.isUpdated)
    }

    @Test func aRedoAfterASaveLogsThePermanentIDs() throws {
        let stack = Stack()
        let employee = try stack.employee("Ada", "Lovelace", salary: 1)
        stack.context.processPendingChanges()
        try employee.setValue(.integer(2), forKey: "salary")
        stack.context.processPendingChanges()
        try stack.undo.undo()  // one pass; its redo group knows the operations it will log
        #expect(stack.context.directUpdateReplays == 1)
        try stack.context.save()  // the employee's temporary ID becomes permanent
        #expect(!employee.objectID.isTemporaryID)
        try stack.undo.redo()
        #expect(stack.context.directUpdateReplays == 2)
        let logged = stack.context.log.unsaved.flatMap(\.operations)
        #expect(logged == [.update(employee.objectID, changes: [SlotChange(slot: employee.entity.slot(forKey: "salary")!, old: .integer(1), new: .integer(2))])])
        try stack.context.save()
        let reread = try stack.newContext().existingObject(with: employee.objectID)
        #expect(try reread.value(forKey: "salary") == .integer(2))
    }

    private static func changes(_ note: Notification) -> ObjectChanges {
        var changes = ObjectChanges()
        let info = note.userInfo ?? [:]
        changes.inserted = info[ManagedObjectContext.insertedObjectsKey] as? Set<ManagedObjectID> ?? []
        changes.updated = info[ManagedObjectContext.updatedObjectsKey] as? Set<ManagedObjectID> ?? []
        changes.deleted = info[ManagedObjectContext.deletedObjectsKey] as? Set<ManagedObjectID> ?? []
        return changes
    }
}
