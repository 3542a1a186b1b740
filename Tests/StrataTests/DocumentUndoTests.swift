import Foundation
import Testing
@testable import Strata

/// A document with three saved, named groups: Hire (insert Ada), Raise (salary 100 → 200),
/// Rename (lastName → Byron).
private func documentWithHistory(_ url: URL, configuration: DocumentStore.Configuration) throws -> URL {
    let stack = try DocumentStack.create(url, configuration: configuration)
    let employee = try stack.context.insertObject(forEntityName: "Employee")
    try employee.setValue("Ada", forKey: "firstName")
    try employee.setValue("Lovelace", forKey: "lastName")
    try employee.setValue(.integer(100), forKey: "salary")
    stack.undo.setActionName("Hire")
    try stack.context.save()
    try employee.setValue(.integer(200), forKey: "salary")
    stack.undo.setActionName("Raise")
    try stack.context.save()
    try employee.setValue("Byron", forKey: "lastName")
    stack.undo.setActionName("Rename")
    try stack.context.save()
    let uri = employee.objectID.uriRepresentation()
    try stack.store.close()
    return uri
}

private func reopenWithHistory(_ url: URL, configuration: DocumentStore.Configuration = .init()) throws -> DocumentStack {
    let stack = try DocumentStack.open(url, configuration: configuration)
    try stack.context.restoreUndoHistory()
    return stack
}

@Suite struct DocumentUndo {
    @Test func undoAfterReopenRevertsTheLastSavedGroupThenAnEarlierOneAndRedoReappliesThem() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let uri = try documentWithHistory(url, configuration: .init())
        do {
            let stack = try reopenWithHistory(url)
            #expect(stack.undo.undoGroups.map(\.actionName) == ["Hire", "Raise", "Rename"])
            let ada = try stack.object(uri)
            try stack.undo.undo()
            #expect(try ada.string("lastName") == "Lovelace")
            #expect(try ada.int("salary") == 200)
            try stack.undo.undo()
            #expect(try ada.int("salary") == 100)
            #expect(stack.undo.redoActionName == "Raise")
            try stack.context.save()
            try stack.store.close()
        }
        do {
            // The undos were saved as undo groups: a new process sees them as redoable.
            let stack = try reopenWithHistory(url)
            let ada = try stack.object(uri)
            #expect(try ada.int("salary") == 100)
            #expect(stack.undo.undoGroups.map(\.actionName) == ["Hire"])
            #expect(stack.undo.redoGroups.map(\.actionName) == ["Rename", "Raise"])
            try stack.undo.redo()
            #expect(try ada.int("salary") == 200)
            #expect(stack.undo.undoActionName == "Raise")
            try stack.context.save()
            try stack.store.close()
        }
        do {
            let stack = try reopenWithHistory(url)
            let ada = try stack.object(uri)
            #expect(try ada.int("salary") == 200)
            #expect(try ada.string("lastName") == "Lovelace")
            #expect(stack.undo.redoActionName == "Rename")
            // Undo everything down to before the insert: Ada is gone.
            while stack.undo.canUndo { try stack.undo.undo() }
            try stack.context.save()
            #expect(try stack.store.objectIDs(for: stack.model.entity(named: "Employee"), includingSubentities: false).isEmpty)
            try stack.store.close()
        }
    }

    @Test func aNewEditAfterReopenedUndoClearsTheRedoStackForTheNextProcess() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let uri = try documentWithHistory(url, configuration: .init())
        do {
            let stack = try reopenWithHistory(url)
            try stack.undo.undo()
            try stack.context.save()
            try stack.object(uri).setValue(.integer(300), forKey: "salary")
            stack.undo.setActionName("Bonus")
            try stack.context.save()
            try stack.store.close()
        }
        let stack = try reopenWithHistory(url)
        #expect(stack.undo.undoGroups.map(\.actionName) == ["Hire", "Raise", "Bonus"])
        #expect(!stack.undo.canRedo)
        try stack.store.close()
    }

    @Test func retentionAllKeepsUndoAcrossCompactionAndNoneDropsIt() throws {
        let directory = try TemporaryDirectory()
        let all = directory.file("all.strata")
        let uri = try documentWithHistory(all, configuration: .init())   // compacts on close, keeps all
        do {
            let stack = try reopenWithHistory(all)
            #expect(try stack.store.logPosition.compactedThrough == 3)
            #expect(stack.undo.undoCount == 3)
            try stack.undo.undo()
            #expect(try stack.object(uri).string("lastName") == "Lovelace")
            try stack.store.close()
        }
        let none = directory.file("none.strata")
        var configuration = DocumentStore.Configuration()
        configuration.retention = .none
        let noneURI = try documentWithHistory(none, configuration: configuration)
        let stack = try reopenWithHistory(none, configuration: configuration)
        #expect(try stack.store.info().segmentCount == 0)
        #expect(!stack.undo.canUndo, "retention none leaves nothing to undo")
        #expect(try stack.object(noneURI).string("lastName") == "Byron", "the data stays")
        try stack.store.close()
    }

    @Test func retentionOfTheLastSegmentsLimitsHowFarUndoReaches() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var configuration = DocumentStore.Configuration()
        configuration.retention = .last(2)
        let uri = try documentWithHistory(url, configuration: configuration)
        let stack = try reopenWithHistory(url, configuration: configuration)
        #expect(try stack.store.segmentRecords().map(\.sequence) == [2, 3])
        #expect(stack.undo.undoGroups.map(\.actionName) == ["Raise", "Rename"])
        try stack.undo.undo()
        try stack.undo.undo()
        #expect(!stack.undo.canUndo)
        let ada = try stack.object(uri)
        #expect(try ada.int("salary") == 100)
        #expect(try ada.string("lastName") == "Lovelace")
        try stack.context.save()
        try stack.store.close()
    }

    @Test
    func undoInAnotherProcessRevertsWhatThisProcessSavedAndTheReverse() throws {
        let writer = builtExecutable("strata-crash-writer").path
        let directory = try TemporaryDirectory()
        let url = directory.file()
        // Another process saves three groups.
        let saved = try runProcess(writer, ["save", url.path, "--batch", "2", "--limit", "3"])
        #expect(saved.status == 0, "\(saved.error)")
        #expect(saved.output == "saved 1\nsaved 2\nsaved 3\n")
        // This process undoes the last one.
        do {
            let stack = try reopenWithHistory(url)
            #expect(stack.undo.undoActionName == "Save 3")
            try stack.undo.undo()
            try stack.context.save()
            try stack.store.close()
        }
        // Another process undoes the one before.
        let undone = try runProcess(writer, ["undo", url.path])
        #expect(undone.status == 0, "\(undone.error)")
        #expect(undone.output == "undid Save 2\n")
        let stack = try reopenWithHistory(url)
        #expect(try employeeSaveNumbers(stack.store) == [1: 2])
        #expect(stack.undo.redoGroups.map(\.actionName) == ["Save 3", "Save 2"])
        try stack.undo.redo()
        try stack.context.save()
        #expect(try employeeSaveNumbers(stack.store) == [1: 2, 2: 2])
        try stack.store.close()
    }
}

/// How many employees each save number (`employeeID`) has, as the crash writer makes them.
func employeeSaveNumbers(_ store: DocumentStore) throws -> [Int64: Int] {
    var counts: [Int64: Int] = [:]
    let entity = try store.model.entity(named: "Employee")
    let slot = entity.slot(forKey: "employeeID") ?? -1
    for id in try store.objectIDs(for: entity, includingSubentities: false) {
        guard let values = try store.values(for: id), case .integer(let number) = values[slot] else {
            throw StrataError(.invalidArgument, "\(id) has no save number")
        }
        counts[number, default: 0] += 1
    }
    return counts
}
