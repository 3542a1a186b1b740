import Foundation

/// A named index over one or more properties of an entity: Core Data's
/// `NSFetchIndexDescription` (an Xcode model's `<fetchIndex>` element).
///
/// A document store creates it as an SQLite index on the entity's snapshot table, so that
/// fetches filtering or sorting on its properties can use it (docs/SQL.md, "Indexes");
/// in memory it changes nothing. An attribute with ``AttributeDescription/isIndexed`` is
/// the same as a one-element binary index on it.
///
/// ```swift
/// EntityDescription("Employee", attributes: [...], fetchIndexes: [
///     FetchIndexDescription("byDepartmentAndSalary", elements: [
///         .init("department"), .init("salary", ascending: false),
///     ]),
/// ])
/// ```
public struct FetchIndexDescription: Sendable, Hashable {
    /// One property of an index: Core Data's `NSFetchIndexElementDescription`.
    public struct Element: Sendable, Hashable {
        /// How the element is indexed (Core Data's `NSFetchIndexElementType`).
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// An ordered B-tree index (SQLite's `CREATE INDEX`).
            case binary
            /// A range index over numbers (SQLite's R-tree module); every element of the
            /// index must then be an R-tree element of a numeric or date attribute.
            case rTree = "rtree"
        }

        /// The attribute (or to-one relationship) indexed.
        public var property: String
        /// The kind of index.
        public var kind: Kind
        /// Whether a binary element is kept in ascending order (R-tree elements have none).
        public var isAscending: Bool

        /// Creates an index element.
        public init(_ property: String, kind: Kind = .binary, ascending: Bool = true) {
            self.property = property
            self.kind = kind
            self.isAscending = ascending
        }
    }

    /// The index's name, unique among the indexes of an entity hierarchy.
    public var name: String
    /// The indexed properties, most significant first.
    public var elements: [Element]

    /// Creates an index description.
    public init(_ name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }

    /// Whether this is an R-tree index (its elements are R-tree elements).
    public var isRTree: Bool { elements.contains { $0.kind == .rTree } }
}

extension EntityDescription {
    /// Every index that applies to this entity's own properties: the declared fetch
    /// indexes, then a one-element binary index named `<attribute>_index` for each declared
    /// persistent attribute marked ``AttributeDescription/isIndexed``.
    public var declaredIndexes: [FetchIndexDescription] {
        fetchIndexes + declaredAttributes.filter { $0.isIndexed && !$0.isTransient }.map {
            FetchIndexDescription("\($0.name)_index", elements: [.init($0.name)])
        }
    }
}

extension ManagedObjectModel {
    /// The model-level problems of each entity's fetch indexes: an empty name or element
    /// list, a name used twice in one inheritance hierarchy (they share a table), a property
    /// that is unknown, transient or to-many, and R-tree elements that are mixed with
    /// binary ones or not numbers or dates.
    static func fetchIndexProblems(_ entities: [EntityDescription]) -> [StrataError.Problem] {
        var problems: [StrataError.Problem] = []
        var namesByRoot: [Int: Set<String>] = [:]
        for entity in entities {
            for index in entity.fetchIndexes {
                func problem(_ key: String?, _ reason: String) {
                    problems.append(.init(entityName: entity.name, object: nil, key: key, reason: "fetch index '\(index.name)': \(reason)"))
                }
                if index.name.isEmpty { problem(nil, "an index needs a name") }
                // SQLite ignores ASCII case in the names of its indexes.
                if !namesByRoot[entity.rootEntityIndex, default: []].insert(index.name.lowercased()).inserted {
                    problem(nil, "the name is used twice in the entity's hierarchy (its entities share one table; case does not count)")
                }
                if index.isRTree, let clash = entity.fetchIndexes.first(where: { other in
                    Self.rTreeSuffixes.contains { other.name.lowercased() == (index.name + $0).lowercased() }
                }) {
                    problem(nil, "index '\(clash.name)' would take the name of one of this R-tree's SQLite tables or triggers")
                }
                if index.elements.isEmpty { problem(nil, "the index names no property") }
                if index.isRTree, index.elements.contains(where: { $0.kind != .rTree }) {
                    problem(nil, "R-tree and binary elements cannot be mixed in one index")
                }
                for element in index.elements {
                    if let attribute = entity.attributesByName[element.property] {
                        if attribute.isTransient { problem(element.property, "the property is transient (it has no column to index)") }
                        if element.kind == .rTree, !Self.rTreeTypes.contains(attribute.attributeType) {
                            problem(element.property, "an R-tree element must be a number or a date, not \(attribute.attributeType.rawValue)")
                        }
                    } else if let relationship = entity.relationshipsByName[element.property] {
                        if relationship.isToMany || relationship.isTransient {
                            problem(element.property, "only attributes and persistent to-one relationships can be indexed")
                        } else if element.kind == .rTree {
                            problem(element.property, "an R-tree element must be a number or a date, not a relationship")
                        }
                    } else {
                        problem(element.property, "the index names an unknown property")
                    }
                }
            }
        }
        return problems
    }

    /// The suffixes of the tables SQLite makes for an R-tree and of its triggers.
    static let rTreeSuffixes = ["_node", "_rowid", "_parent", "_insert", "_update", "_delete"]

    /// The attribute types an R-tree element can index (stored as SQLite numbers).
    static let rTreeTypes = Set(AttributeType.allCases.filter { [.integer, .double, .date].contains($0.valueKind) })
}
