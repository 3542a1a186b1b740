import Testing
@testable import Strata

@Suite struct SlotNameTableLookups {
    @Test func everyNameFindsItsSlotAndOtherNamesFindNothing() {
        var random = SeededGenerator(seed: 7)
        for count in [0, 1, 2, 7, 8, 9, 31, 200] {
            var names: [String] = []
            var seen: Set<String> = []
            while names.count < count {
                let length = Int.random(in: 1...24, using: &random)
                let name = String((0..<length).map { _ in "abcdeéfXYZ_0123456789".randomElement(using: &random)! })
                if seen.insert(name).inserted { names.append(name) }
            }
            let storage = SlotNameStorage(names)
            let table = storage.table
            defer { withExtendedLifetime(storage) {} }
            for (slot, name) in names.enumerated() { #expect(table.slot(name) == slot, "\(count) names: \(name)") }
            for _ in 0..<200 {
                let other = "k" + String(Int.random(in: 0...1_000_000, using: &random))
                #expect(table.slot(other) == (names.firstIndex(of: other)))
            }
            #expect(table.slot("") == names.firstIndex(of: ""))
        }
    }

    @Test func entitiesResolveInheritedAndOwnKeys() throws {
        let model = ManagedObjectModel.employeesExample()
        for entity in model.entities {
            for (slot, name) in entity.slotNames.enumerated() { #expect(entity.slot(forKey: name) == slot) }
            #expect(entity.slot(forKey: "noSuchKey") == nil)
        }
    }
}
