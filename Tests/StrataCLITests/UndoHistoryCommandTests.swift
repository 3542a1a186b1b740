import Foundation
import Testing

@Suite("strata undo, redo and history")
struct UndoHistoryCommandTests {
    @Test("undo in one process and redo in the next restore the values")
    func undoThenRedoAcrossProcesses() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let ada = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=100")
        #expect(try CLI.strata("update", document, ada, "salary=200").status == 0)
        #expect(try CLI.strata("update", document, ada, "salary=300").status == 0)
        func salary() throws -> Int? { (try CLI.strata("get", document, ada, "--json").json() as? [String: Any])?["salary"] as? Int }

        let undo = try CLI.strata("undo", document)
        #expect(undo.status == 0)
        #expect(undo.stdout == "Undid Update Employee\n")
        #expect(try salary() == 200)
        #expect(try CLI.strata("undo", document, "--steps", "2").status == 0)
        expectFailure(try CLI.strata("get", document, ada), mentions: ["no object"])

        let redo = try CLI.strata("redo", document)
        #expect(redo.stdout == "Redid Insert Employee\n")
        #expect(try salary() == 100)
        #expect(try CLI.strata("redo", document, "--steps", "2").status == 0)
        #expect(try salary() == 300)
        expectFailure(try CLI.strata("redo", document), mentions: ["Nothing to redo"])
    }

    /// `strata undo` and `strata redo` decode only the groups they revert (the rest of the
    /// history is read from the log when reverted, ``historyGroupsReadLater()``): the
    /// import here is saved in two segments and read back from both, through the store
    /// (one step) and through the context (several).
    @Test("an import of several chunks, between other changes, undone and redone in steps comes back exactly")
    func multiChunkImportUndoneAndRedoneInSteps() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        // More rows than a chunk (10,000): the import is saved in two segments.
        let rows = 10_050
        var csv = "firstName,lastName,salary\n"
        for row in 0..<rows { csv += "F\(row),L\(row % 97),\(row)\n" }
        try Data(csv.utf8).write(to: URL(fileURLWithPath: sandbox.path("rows.csv")))
        let imported = try CLI.strata("import", document, sandbox.path("rows.csv"), "--entity", "Employee")
        #expect(imported.status == 0, "\(imported.stderr)")
        let found = try #require(try CLI.strata("fetch", document, "Employee", "--where", "salary == 77", "--format", "json").json() as? [[String: Any]])
        let uri = try #require(found.first?["_uri"] as? String)
        #expect(try CLI.strata("update", document, uri, "salary=123456").status == 0)
        func count(_ entity: String) throws -> String { try CLI.strata("fetch", document, entity, "--count").stdout }
        let before = try CLI.strata("export", document).stdout
        #expect(before.contains("\"F10049\""))

        // One step of the import alone goes through the store, both ways.
        #expect(try CLI.strata("undo", document).stdout == "Undid Update Employee\n")
        #expect(try CLI.strata("undo", document).stdout == "Undid Import Employee\n")
        #expect(try count("Employee") == "0\n" && count("Department") == "1\n")
        #expect(try CLI.strata("redo", document).stdout == "Redid Import Employee\n")
        #expect(try count("Employee") == "\(rows)\n")
        #expect(try CLI.strata("redo", document).stdout == "Redid Update Employee\n")
        #expect(try CLI.strata("export", document).stdout == before)

        // Several steps go through the context, each group read from the log when reverted.
        let undone = try CLI.strata("undo", document, "--steps", "3")
        #expect(undone.stdout == "Undid Update Employee\nUndid Import Employee\nUndid Insert Department\n", "\(undone.stderr)")
        #expect(try count("Employee") == "0\n" && count("Department") == "0\n")
        let redone = try CLI.strata("redo", document, "--steps", "3")
        #expect(redone.stdout == "Redid Insert Department\nRedid Import Employee\nRedid Update Employee\n", "\(redone.stderr)")
        #expect(try CLI.strata("export", document).stdout == before)
    }

    @Test("undo refuses to undo more groups than there are and changes nothing")
    func undoTooMuch() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        let before = try sandbox.bytes("staff.strata")
        expectFailure(try CLI.strata("undo", document, "--steps", "3"), mentions: ["Only 1 group"])
        #expect(try sandbox.bytes("staff.strata") == before)
        let usage = try CLI.strata("undo", document, "--steps", "0")
        expectFailure(usage, mentions: ["--steps"])
    }

    @Test("a new change after an undo clears what can be redone")
    func newChangeClearsRedo() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        #expect(try CLI.strata("undo", document).status == 0)
        _ = try sandbox.insert(document, "Department", "name=Sales")
        expectFailure(try CLI.strata("redo", document), mentions: ["Nothing to redo"])
    }

    @Test("history lists each group with its action name, kind and whether it is undone")
    func historyMarksUndoneGroups() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        #expect(try CLI.strata("update", document, research, "name=R&D").status == 0)
        #expect(try CLI.strata("undo", document).status == 0)
        let groups = try #require(try CLI.strata("history", document, "--json").json() as? [[String: Any]])
        #expect(groups.map { $0["action"] as? String } == ["Insert Department", "Update Department", "Update Department"])
        #expect(groups.map { $0["kind"] as? String } == ["user", "user", "undo"])
        #expect(groups.map { $0["undone"] as? Bool } == [false, true, false])
        #expect(groups[2]["reverts"] as? Int == groups[1]["id"] as? Int)
        #expect(groups.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true && $0["segment"] is Int })
        #expect(try CLI.strata("redo", document).status == 0)
        let after = try #require(try CLI.strata("history", document, "--json").json() as? [[String: Any]])
        #expect(after.map { $0["undone"] as? Bool } == [false, false, true, false])
        let table = try CLI.strata("history", document)
        #expect(table.stdout.contains("Update Department") && table.stdout.contains("undone") && table.stdout.contains("redo"))
    }
}
