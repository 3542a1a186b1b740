import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The company model with derived attributes: the Xcode fixture Fixtures/derived/Company.xml
/// (departments with `employees.@count/@sum/@min/@max/@avg`, `canonical:(name)`; employees
/// with `department.name`, `now()`, `uppercase:(name)`), loaded once.
let derivedCompanyModel: ManagedObjectModel = {
    let url = Bundle.module.url(forResource: "Company", withExtension: "xml", subdirectory: "Fixtures/derived")!
    return try! ManagedObjectModel(xcdatamodelAt: url)
}()

/// A department and employees in a context of the company model.
struct Company {
    let context: ManagedObjectContext

    func department(_ name: String) throws -> ManagedObject {
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue(.string(name), forKey: "name")
        return department
    }

    @discardableResult
    func employee(_ name: String, salary: Int64, in department: ManagedObject?) throws -> ManagedObject {
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue(.string(name), forKey: "name")
        try employee.setValue(.integer(salary), forKey: "salary")
        try employee.setObject(department, forKey: "department")
        return employee
    }
}

extension ManagedObject {
    /// A derived aggregate's values, for one `#expect`.
    func aggregates() throws -> [String: PropertyValue] {
        var values: [String: PropertyValue] = [:]
        for key in ["headcount", "payroll", "lowestSalary", "highestSalary", "averageSalary"] { values[key] = try value(forKey: key) }
        return values
    }
}
