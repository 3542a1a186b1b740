import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §4: changes merged from other contexts or processes never enter this
/// context's undo stack; only its own changes are undone.
@Suite struct UndoRemoteChanges {
    @Test func aMergedSaveIsNotUndoable() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let reader = stack.newContext()
        let mine = try reader.existingObject(with: id)
        try mine.setValue(.string("Byron"), forKey: "lastName")
        reader.processPendingChanges()
        let before = reader.undoManager!.undoCount

        let writer = stack.newContext()
        let theirs = try writer.existingObject(with: id)
        try theirs.setValue(.integer(300), forKey: "salary")
        let doomed = try writer.existingObject(with: try stack.savedEmployee("Alan", "Turing").objectID)
        _ = try reader.existingObject(with: doomed.objectID)
        writer.delete(doomed)
        try writer.save()
        reader.mergeChanges(fromContextDidSave: SaveChanges(updated: [id], deleted: [doomed.objectID]))

        #expect(reader.undoManager!.undoCount == before)
        try reader.undoManager!.undo()
        #expect(try mine.string("lastName") == "Lovelace", "the context's own change was undone")
        #expect(try mine.int("salary") == 300, "the merged change stays")
        #expect(!reader.undoManager!.canUndo)
    }

    @Test func automaticallyMergedSavesAreNotUndoable() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let reader = stack.newContext()
        reader.automaticallyMergesChangesFromParent = true
        let mine = try reader.existingObject(with: id)
        let writer = stack.newContext()
        try writer.existingObject(with: id).setValue(.integer(300), forKey: "salary")
        try writer.save()
        _ = try reader.count(for: FetchRequest(entityName: "Employee"))  // takes the mailbox in
        #expect(try mine.int("salary") == 300)
        #expect(!reader.undoManager!.canUndo)
        try reader.undoManager!.undo()
        #expect(try mine.int("salary") == 300)
    }

    @Test func remoteMergesOfBatchRequestsAreNotUndoable() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let mine = try stack.context.existingObject(with: id)
        stack.undo.removeAllActions()
        let result = try stack.context.executeBatch(BatchDeleteRequest(entityName: "Employee"))
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [stack.context])
        #expect(mine.isInvalid)
        #expect(!stack.undo.canUndo)
    }

    @Test func inAnEventAMergeDoesNotJoinTheEventsGroup() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let reader = stack.newContext()
        let mine = try reader.existingObject(with: id)
        let writer = stack.newContext()
        try writer.existingObject(with: id).setValue(.integer(300), forKey: "salary")
        try writer.save()
        reader.performAndWait {
            try? mine.setValue(.string("Byron"), forKey: "lastName")
            reader.mergeChanges(fromContextDidSave: SaveChanges(updated: [id]))
        }
        try reader.undoManager!.undo()
        #expect(try mine.string("lastName") == "Lovelace")
        #expect(try mine.int("salary") == 300)
        #expect(!reader.undoManager!.canUndo)
    }

    /// Another process (another connection to the same document) saves; this one catches
    /// up from the log and merges. A live context undoes only what it did (a reopened
    /// document's restored history is the document's, docs/SEMANTICS.md §4).
    @Test func anotherProcesssSaveCaughtUpFromTheLogIsNotUndoable() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (id, one, other) = try DocumentStack.twoConnections(url) { stack in
            let employee = try stack.context.insertObject(forEntityName: "Employee")
            try employee.setValue("Ada", forKey: "firstName")
            try employee.setValue("Lovelace", forKey: "lastName")
            try employee.setValue(.integer(1), forKey: "salary")
            try stack.context.save()
            return employee.objectID
        }
        let mine = try one.context.existingObject(with: id)
        try mine.setValue("Byron", forKey: "lastName")
        one.context.processPendingChanges()

        try other.context.existingObject(with: id).setValue(.integer(300), forKey: "salary")
        try other.context.save()

        let touched = try one.store.refreshFromLog()
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.updatedObjectsKey: Array(touched)],
                                              into: [one.context])
        #expect(try mine.int("salary") == 300)
        #expect(one.undo.undoCount == 1)
        try one.undo.undo()
        #expect(try mine.string("lastName") == "Lovelace")
        #expect(try mine.int("salary") == 300, "the other process's change stays")
        #expect(!one.undo.canUndo)
        try one.store.close()
        try other.store.close()
    }
}
