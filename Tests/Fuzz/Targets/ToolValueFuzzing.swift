import Foundation
import Strata
import StrataToolSupport

/// The command-line tools' value reader (`ToolValueText`) and their JSON reader (`JSONValue`).
enum ToolValueFuzzing {
    static func run(_ bytes: [UInt8]) throws {
        var failure: (any Error)?
        if let first = bytes.first {
            let types = AttributeType.allCases
            let type = types[Int(first) % types.count]
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            do {
                _ = ToolValueText.plain(try ToolValueText.parse(text, as: type, key: "value"))
            } catch {
                failure = error
            }
        }
        do {
            let json = try JSONValue.parse(bytes)
            let rendered = json.rendered(pretty: false)
            precondition((try? JSONValue.parse(Array(rendered.utf8))) == json, "JSON does not read back as it rendered")
            for type in AttributeType.allCases {
                _ = try? ToolValueText.value(fromJSON: json, as: type, key: "value")
            }
        } catch {
            failure = failure ?? error
        }
        if let failure { throw failure }
    }
}
