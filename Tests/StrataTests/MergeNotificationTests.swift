import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §7: `mergeChanges(fromContextDidSave:)` takes the DidSave notification
/// itself, as Core Data's does from an observer.
@Suite struct MergeNotification {
    @Test func theDidSaveNotificationMergesLikeItsChanges() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        let reader = stack.newContext()
        let mine = try reader.existingObject(with: employee.objectID)
        let doomed = try reader.existingObject(with: try stack.savedEmployee("Alan", "Turing").objectID)

        let box = NotificationBox()
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: stack.context, queue: nil) { box.note = $0 }
        defer { NotificationCenter.default.removeObserver(token) }
        try employee.setValue(.integer(300), forKey: "salary")
        stack.context.delete(try stack.context.existingObject(with: doomed.objectID))
        try stack.context.save()

        try reader.mergeChanges(fromContextDidSave: try #require(box.note))
        #expect(try mine.int("salary") == 300)
        #expect(doomed.isInvalid)
    }

    @Test func anotherNotificationIsRefused() {
        let context = Stack().context
        let note = Notification(name: ManagedObjectContext.objectsDidChangeNotification, object: context)
        #expect(throws: StrataError.self) { try context.mergeChanges(fromContextDidSave: note) }
    }

    @Test func userInfoThatIsNotIDSetsIsRefused() {
        let context = Stack().context
        let note = Notification(name: ManagedObjectContext.didSaveNotification, object: context,
                                userInfo: [ManagedObjectContext.updatedObjectsKey: ["p1"]])
        #expect(throws: StrataError.self) { try context.mergeChanges(fromContextDidSave: note) }
    }
}

/// Holds what an observer received (the observer runs synchronously on the posting thread).
private final class NotificationBox: @unchecked Sendable {
    var note: Notification?
}
