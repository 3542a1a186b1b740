import Foundation
import Strata

/// Documents the targets make live in one scratch folder per process, removed at exit.
enum FuzzScratch {
    nonisolated(unsafe) private static var made: URL?

    /// The process's scratch folder (made on first use).
    static func folder() throws -> URL {
        if let made { return made }
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-fuzz-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        made = url
        atexit { FuzzScratch.removeAll() }
        return url
    }

    private static func removeAll() {
        if let made { try? FileManager.default.removeItem(at: made) }
    }
}

/// A few objects of the employees example model with every kind of value, in a context:
/// saved into a document (`inDocument`), or in memory.
enum EmployeesFixture {
    /// Fills `context` with two departments, a project and three employees.
    static func populate(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        let sales = try context.insertObject(forEntityName: "Department")
        try sales.setValue(.string("Sales"), forKey: "name")
        try sales.setValue(.decimal(Decimal(string: "125000.50")!), forKey: "budget")
        let lab = try context.insertObject(forEntityName: "Department")
        try lab.setValue(.string("Lab é"), forKey: "name")
        let project = try context.insertObject(forEntityName: "Project")
        try project.setValue(.string("Apollo"), forKey: "name")
        try project.setValue(.date(Date(timeIntervalSince1970: 1_700_000_000)), forKey: "deadline")
        var people: [ManagedObject] = []
        for (index, name) in ["Lovelace", "Hopper", "Turing"].enumerated() {
            let person = try context.insertObject(forEntityName: "Employee")
            try person.setValue(.string(["Ada", "Grace", "Alan"][index]), forKey: "firstName")
            try person.setValue(.string(name), forKey: "lastName")
            try person.setValue(.integer(Int64(50_000 + 40_000 * index)), forKey: "salary")
            try person.setValue(.integer(Int64(index + 1)), forKey: "employeeID")
            try person.setValue(.string("\(name.lowercased())@example.com"), forKey: "email")
            try person.setValue(.double(Double(index) + 0.5), forKey: "rating")
            try person.setValue(.decimal(Decimal(index * 1000)), forKey: "bonus")
            try person.setValue(.date(Date(timeIntervalSince1970: Double(index) * 86_400_000)), forKey: "startDate")
            try person.setValue(.uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5\(index)")!), forKey: "badge")
            try person.setValue(.uri(URL(string: "https://example.com/\(index)")!), forKey: "homepage")
            try person.setValue(.data(Data([UInt8(index), 0, 255])), forKey: "photo")
            try person.setValue(.object((index == 2 ? lab : sales).objectID), forKey: "department")
            if let boss = people.first { try person.setValue(.object(boss.objectID), forKey: "manager") }
            people.append(person)
        }
        return [sales, lab, project] + people
    }
}
