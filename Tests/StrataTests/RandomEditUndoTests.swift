import Foundation
import Testing
@testable import Strata


/// Every live object's values by ID: what "the graph equals" means in these tests.
func graphSnapshot(_ context: ManagedObjectContext) -> [ManagedObjectID: [PropertyValue]] {
    var result: [ManagedObjectID: [PropertyValue]] = [:]
    for object in context.registeredObjects where !object.isDeleted && !object.isInvalid {
        if object.isFault { try? context.fireFault(object) }
        result[object.objectID] = object.storage.array
    }
    return result
}

@Suite struct RandomEditUndo {
    static let seeds: [UInt64] = [1, 2, 3, 42, 2024, 0xC0FFEE, 977, 31_337]

    @Test(arguments: seeds)
    func undoingEverythingRestoresTheStartAndRedoingRestoresTheEnd(seed: UInt64) throws {
        let stack = Stack()
        stack.context.retainsRegisteredObjects = true
        var editor = RandomEditor(context: stack.context, seed: seed)
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
