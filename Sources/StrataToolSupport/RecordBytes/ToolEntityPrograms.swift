import Strata

/// The record writers' compiled programs, one per entity, compiled on first use
/// (``ToolRecordWriter``, ``ToolCSVRowWriter``), with the one used last at hand: the records
/// of a fetch are nearly always of one entity.
struct ToolEntityPrograms<Program> {
    /// Each program with its entity, held so that the identifier it is found by stays that
    /// entity's.
    private var programs: [ObjectIdentifier: (entity: EntityDescription, program: Program)] = [:]
    private var last: (entity: EntityDescription, program: Program)?

    /// The program compiled for `entity`, or nil when there is none yet.
    mutating func program(for entity: EntityDescription) -> Program? {
        if let last, last.entity === entity { return last.program }
        guard let known = programs[ObjectIdentifier(entity)], known.entity === entity else { return nil }
        last = known
        return known.program
    }

    /// Keeps `program` as `entity`'s.
    mutating func keep(_ program: Program, for entity: EntityDescription) {
        programs[ObjectIdentifier(entity)] = (entity, program)
        last = (entity, program)
    }
}
