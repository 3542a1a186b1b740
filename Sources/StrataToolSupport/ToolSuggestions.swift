import Strata

/// "Did you mean …?" for names typed on a command line: entities, properties, commands
/// (the tools' conventions, README.md "Command line"). The distance counts an insertion,
/// a deletion, a substitution or two neighbours swapped as one edit (Damerau–Levenshtein,
/// restricted), as git's "The most similar command is" does.
package enum ToolSuggestions {
    /// The candidate nearest to `word` (case-insensitive), when it is near enough to be a
    /// typing mistake: at most a third of the word's length in edits (at least 1, at most 3),
    /// or the same letters in another case. Ties go to the earlier candidate.
    package static func nearest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        guard !typed.isEmpty else { return nil }
        let allowed = min(3, max(1, typed.count / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let distance = editDistance(typed, Array(candidate.lowercased()), limit: allowed)
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// ` Did you mean 'NAME'?`, or "" when nothing is near: to append to a message.
    package static func clause(for word: String, among candidates: [String]) -> String {
        nearest(to: word, among: candidates).map { " Did you mean '\($0)'?" } ?? ""
    }

    /// The edit distance of two words (a swap of neighbours is one edit), or `limit + 1`
    /// once it is certainly above `limit`.
    /// - Complexity: O(`a.count` × `b.count`).
    static func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        guard abs(a.count - b.count) <= limit else { return limit + 1 }
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var twoBack = Array(repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = Array(repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                var distance = min(previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { distance = min(distance, twoBack[j - 2] + 1) }
                current[j] = distance
                rowMinimum = min(rowMinimum, distance)
            }
            if rowMinimum > limit { return limit + 1 }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return previous[b.count]
    }
}

extension ToolSuggestions {
    /// `error` with "Did you mean …?" added when it names an entity or a property the
    /// model lacks (`.unknownKey` with `context.entity` and perhaps `context.key`)
    /// and a name of the model is near it.
    package static func suggestingNames(_ error: StrataError, in model: ManagedObjectModel) -> StrataError {
        guard error.code == .unknownKey, !error.context.hasSuggestion, let entityName = error.context.entity else { return error }
        let clause: String
        if let entity = model.entitiesByName[entityName] {
            guard let key = error.context.key else { return error }
            clause = self.clause(for: key, among: propertyNames(of: entity))
        } else {
            clause = self.clause(for: entityName, among: model.entities.map(\.name))
        }
        guard !clause.isEmpty else { return error }
        var suggested = error
        if let last = suggested.message.last, !".?!)".contains(last) { suggested.message += "." }
        suggested.message += clause
        suggested.context.hasSuggestion = true
        return suggested
    }

    /// An entity's property names, its sub-entities' after its own (a fetch of an entity
    /// includes them), in model order.
    static func propertyNames(of entity: EntityDescription) -> [String] {
        var names: [String] = []
        var pending = [entity]
        while !pending.isEmpty {
            let next = pending.removeFirst()
            for name in next.slotNames where !names.contains(name) { names.append(name) }
            pending += next.subentities
        }
        return names
    }

    /// The keys of `entity`'s records nearest to `key` (up to `count`, nearest first):
    /// what to offer when `Entity/pKEY` names no record. Keys made through a server are
    /// large (`p2199023255552`) and easy to mistype.
    /// - Complexity: O(*n*) in the entity's records; only an error pays it.
    package static func nearbyKeys(to key: Int64, of entity: EntityDescription, in store: DocumentStore, count: Int = 3) -> [Int64] {
        guard let ids = try? store.objectIDs(for: entity, includingSubentities: false) else { return [] }
        let keys = ids.map(\.primaryKey)
        // Near in value, and near as typed (one digit off anywhere).
        let typed = Array(String(key))
        let byValue = keys.sorted { abs($0.subtractingReportingOverflow(key).partialValue) < abs($1.subtractingReportingOverflow(key).partialValue) }
        // (A short key is near every other short key by one digit: nearness in value there.)
        let byDigits = typed.count < 4 ? [] : keys.filter { editDistance(typed, Array(String($0)), limit: 1) <= 1 }
        var result: [Int64] = []
        for candidate in byDigits + byValue where !result.contains(candidate) && result.count < count { result.append(candidate) }
        return result
    }
}
