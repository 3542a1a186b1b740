import Foundation

extension Segment {
    /// The number of operations in all groups.
    public var operationCount: Int { groups.reduce(0) { $0 + $1.operations.count } }
}
