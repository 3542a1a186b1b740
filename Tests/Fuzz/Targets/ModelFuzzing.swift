import Foundation
import Strata

/// The model readers: Strata's JSON format and Xcode's XML.
enum ModelFuzzing {
    static func runJSON(_ bytes: [UInt8]) throws {
        roundTrip(try ManagedObjectModel(jsonData: Data(bytes)))
    }

    static func runXcode(_ bytes: [UInt8]) throws {
        roundTrip(try ManagedObjectModel(xcodeModelContents: Data(bytes), file: "fuzz.xml"))
    }

    /// A model that was read writes JSON that reads back to a model with the same version hash.
    private static func roundTrip(_ model: ManagedObjectModel) {
        let json = model.jsonRepresentation()
        let again: ManagedObjectModel
        do {
            again = try ManagedObjectModel(jsonData: json)
        } catch {
            preconditionFailure("a model read from a file writes JSON it cannot read back: \(error)")
        }
        precondition(again.versionHash == model.versionHash, "a model changed through its JSON")
    }
}
