// Measures segment format v1 against v2 (docs/FORMAT.md §13.6) on W1-like rows (W1 of
// docs/BENCHMARKS.md, "Workloads": Employee with firstName, lastName, salary, employeeID,
// startDate and a to-one department; 100 departments), without a document: bytes per
// inserted object raw and LZ4-stored, encoding time, and decoding speed in objects/s.
//
//   swift build -c release --product strata-segment-measure
//   .build/release/strata-segment-measure [OBJECTS]       (default 200000)
import Foundation
import Strata

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200_000 : 200_000
let departments = 100

let employee = EntityDescription("Employee", attributes: [
    AttributeDescription("firstName", .string),
    AttributeDescription("lastName", .string, isIndexed: true),
    AttributeDescription("salary", .integer64, isIndexed: true),
    AttributeDescription("employeeID", .integer32, isIndexed: true),
    AttributeDescription("startDate", .date),
], relationships: [RelationshipDescription("department", to: "Department")])
let department = EntityDescription("Department", attributes: [AttributeDescription("name", .string, isIndexed: true)])
let model = try ManagedObjectModel(entities: [employee, department])
let employeeEntity = model.entitiesByName["Employee"]!, departmentEntity = model.entitiesByName["Department"]!

// The W1 benchmark's values (Tools/Benchmarks BenchData).
let consonants = Array("bcdfghjklmnpqrstvwz"), vowels = Array("aeiou")
func syllable(_ value: Int) -> String {
    let index = value % (consonants.count * vowels.count)
    return String([consonants[index / vowels.count], vowels[index % vowels.count]])
}
func capitalized(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }
func lastName(_ index: Int) -> String {
    let distinct = max(count / 20, 1)
    let k = (index % distinct) &* 7_919 % distinct
    return capitalized(syllable(k) + syllable(k / 95) + syllable(k / 9_025))
}

// The segment is built as a hand-written v1 body (§2–§6) and decoded: object IDs of a
// store are made by the store, not by this tool.
var body = ByteWriter()
body.writeRaw(Array("STRS".utf8))
body.writeVarint(1)        // version
body.writeVarint(1)        // sequence
body.writeZigzag(0)        // timestamp
body.writeVarint(1)        // one group: id 1, user, no reverts, "Insert"
body.writeVarint(1)
body.writeByte(0)
body.writeByte(0)
body.writeString("Insert")
body.writeVarint(UInt64(count + departments))
func slot(_ entity: EntityDescription, _ name: String) -> UInt64 { UInt64(entity.slotNames.firstIndex(of: name)!) }
func string(_ body: inout ByteWriter, _ entity: EntityDescription, _ name: String, _ text: String) {
    body.writeVarint(slot(entity, name)); body.writeByte(0x04); body.writeString(text)
}
func integer(_ body: inout ByteWriter, _ entity: EntityDescription, _ name: String, _ number: Int64) {
    body.writeVarint(slot(entity, name)); body.writeByte(0x01); body.writeZigzag(number)
}
for index in 0..<departments {
    body.writeByte(0x01)
    body.writeVarint(UInt64(departmentEntity.index))
    body.writeZigzag(Int64(index + 1))
    body.writeVarint(1)
    string(&body, departmentEntity, "name", "Department \(index)")
}
for index in 0..<count {
    body.writeByte(0x01)
    body.writeVarint(UInt64(employeeEntity.index))
    body.writeZigzag(Int64(index + 1))
    body.writeVarint(6)
    string(&body, employeeEntity, "firstName", capitalized(syllable(index) + syllable(index / 95)))
    string(&body, employeeEntity, "lastName", lastName(index))
    integer(&body, employeeEntity, "salary", Int64(20_000 + (index &* 7_919) % 100_000))
    integer(&body, employeeEntity, "employeeID", Int64(index))
    body.writeVarint(slot(employeeEntity, "startDate"))
    body.writeByte(0x07)
    body.writeDouble(600_000_000 + Double(index) * 60)
    body.writeVarint(slot(employeeEntity, "department"))
    body.writeByte(0x0B)
    body.writeVarint(UInt64(departmentEntity.index))
    body.writeZigzag(Int64(index % departments + 1))
}
let segment = try SegmentDecoder.decode(body.bytes, model: model, storeTag: 1, sequenceHint: 1)

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let objects = Double(count + departments)
print("objects: \(count) W1-like employees + \(departments) departments")
print("version | raw B/object | LZ4 B/object | encode s | decode s (raw) | decode objects/s | decode+LZ4 objects/s")
for version: UInt64 in [1, 2] {
    var raw: [UInt8] = []
    let encodeSeconds = try seconds { raw = try SegmentEncoder.encode(segment, model: model, version: version) }
    let stored = LZ4Frame.compress(raw)
    var decodeBest = Double.infinity, storedBest = Double.infinity
    for _ in 0..<3 {
        decodeBest = min(decodeBest, try seconds {
            let decoded = try SegmentDecoder.decode(raw, model: model, storeTag: 1, sequenceHint: 1)
            precondition(decoded.groups[0].operations.count == count + departments)
        })
        storedBest = min(storedBest, try seconds {
            _ = try SegmentCodec.decodeCompressed(stored, model: model, storeTag: 1, sequenceHint: 1)
        })
    }
    print(String(format: "v%d | %.2f | %.2f | %.3f | %.3f | %.0f | %.0f", version, Double(raw.count) / objects,
                 Double(stored.count) / objects, encodeSeconds, decodeBest, objects / decodeBest, objects / storedBest))
}
