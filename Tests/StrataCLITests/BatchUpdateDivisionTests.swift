import Foundation
import Strata
import Testing

/// A batch update's value dividing by zero is an error naming the record, and nothing is
/// written (issue 32, item 9: `val=val/0` wrote NULL into every record). Fetches keep NULL.
@Suite("strata update: division by zero")
struct BatchUpdateDivisionTests {
    /// A document of `Item(val: Integer 64, ratio: Double)` with two items.
    func items(_ sandbox: TemporaryDirectory) throws -> String {
        let model = try ManagedObjectModel(entities: [
            EntityDescription("Item", attributes: [AttributeDescription("val", .integer64), AttributeDescription("ratio", .double)]),
        ])
        let modelPath = sandbox.path("items.json")
        try model.jsonRepresentation().write(to: URL(fileURLWithPath: modelPath))
        let document = sandbox.path("items.strata")
        let created = try CLI.strata("new", document, "--model", modelPath)
        #expect(created.status == 0, "\(created.stderr)")
        _ = try sandbox.insert(document, "Item", "val=6", "ratio=1.5")
        _ = try sandbox.insert(document, "Item", "val=0", "ratio=0")
        return document
    }

    @Test("the issue's reproduction: val=val/0 fails naming the record and writes nothing")
    func divisionByZeroRefused() throws {
        let sandbox = try TemporaryDirectory()
        let document = try items(sandbox)
        let before = try sandbox.bytes("items.strata")
        let result = try CLI.strata("update", document, "Item", "--where", "TRUEPREDICATE", "val=val/0")
        expectFailure(result, mentions: ["The batch update's Item.val = val / 0 fails for ", "/Item/p", "division by zero in val / 0"])
        #expect(try sandbox.bytes("items.strata") == before)
        #expect(try CLI.strata("fetch", document, "Item", "--where", "val == nil", "--count").stdout == "0\n")

        // A zero divisor from a record's own value, a double zero, and modulus:by: alike.
        for assignment in ["val=6/val", "ratio=ratio/0.0", "val=modulus:by:(val, 0)"] {
            let refused = try CLI.strata("update", document, "Item", "--where", "TRUEPREDICATE", assignment)
            expectFailure(refused, mentions: ["division by zero"])
            #expect(try sandbox.bytes("items.strata") == before, "\(assignment)")
        }
    }

    @Test("a division that avoids zero updates; TERNARY stores NULL on purpose; fetches keep NULL for division by zero")
    func divisionOtherwise() throws {
        let sandbox = try TemporaryDirectory()
        let document = try items(sandbox)
        let halved = try CLI.strata("update", document, "Item", "--where", "val != 0", "val=val/2")
        #expect(halved.status == 0, "\(halved.stderr)")
        #expect(try CLI.strata("fetch", document, "Item", "--where", "val == 3", "--count").stdout == "1\n")
        let chosen = try CLI.strata("update", document, "Item", "--where", "TRUEPREDICATE", "ratio=TERNARY(val == 0, nil, ratio / val)")
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(try CLI.strata("fetch", document, "Item", "--where", "ratio == nil", "--count").stdout == "1\n")
        #expect(try CLI.strata("fetch", document, "Item", "--where", "val / 0 == nil", "--count").stdout == "2\n")
    }
}
