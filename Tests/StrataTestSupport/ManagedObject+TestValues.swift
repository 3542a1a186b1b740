import Strata

/// The typed reads every test suite makes of an object's attributes.
extension ManagedObject {
    /// The string value of `key`, or nil when it holds none.
    package func string(_ key: String) throws -> String? {
        if case .string(let value) = try value(forKey: key) { return value }
        return nil
    }

    /// The integer value of `key`, or nil when it holds none.
    package func int(_ key: String) throws -> Int64? {
        if case .integer(let value) = try value(forKey: key) { return value }
        return nil
    }
}
