import Foundation
import Strata
import StrataToolSupport

extension InspectorDocument {
    /// `GET /api/document`: the document's name, entities with their object counts, and
    /// the last save, as of save `at` (nil: now).
    /// - Complexity: one COUNT per entity on the snapshot (its indexes), no log read.
    package func summary(at sequence: UInt64?) throws -> JSONValue {
        try serialized {
            try store.catchUp()
            let last = try store.logPosition.last
            let shown = try document(at: sequence)
            let entities: [JSONValue] = try shown.model.entities.map { entity in
                let count = entity.isAbstract ? nil : try shown.store.countObjects(StoreFetchRequest(entity: entity, includesSubentities: false))
                return .fields([
                    "name": .string(entity.name),
                    "parent": entity.superentity.map { .string($0.name) } ?? .null,
                    "abstract": .bool(entity.isAbstract),
                    "objects": count.map { .int($0) } ?? .null,
                ])
            }
            return .fields([
                "path": .string(location),
                "name": .string(name),
                "lastSequence": .int(last),
                "at": sequence.map { .int(min($0, last)) } ?? .null,
                "entities": .array(entities),
                "readOnly": .bool(true),
                "historyDamage": historyDamage.json,
                "timeTravel": timeTravelProgress.json,
            ])
        }
    }

    /// `GET /api/objects`: one page of an entity's objects with a predicate and an order,
    /// read as one fetch batch, and how many match.
    ///
    /// Parameters: `entity`; `where` (Strata's predicate language, docs/PREDICATES.md);
    /// `sort` (`key`, `key:desc`, comma-separated); `limit` (≤ 500); `at`; and where the
    /// page starts: `after` (the previous page's last object, `Entity/pKEY`: the page is
    /// sought by key, ``InspectorKeysetPage``) or `offset` (`LIMIT`/`OFFSET`, which walks
    /// the rows it skips). With `after`, `offset` is only echoed, for the page's range.
    /// The answer's `next` is the `after` of the next page (null on the last).
    /// - Throws: 400 for a malformed predicate (with its column), an unknown sort key, a
    ///   page over the cap or an `after` of another entity; 404 for an unknown entity or an
    ///   `after` object that is gone.
    package func objects(_ parameters: InspectorParameters) throws -> JSONValue {
        let name = try parameters.required("entity")
        let predicateText = try parameters.text("where")
        let predicate = try predicateText.map { text in
            do {
                return try FetchPredicate(format: text)
            } catch let error as StrataError {
                throw InspectorError.badRequest("Malformed predicate: \(error.message)")
            }
        }
        let descriptors = try (parameters.text("sort") ?? "").split(separator: ",").map { try Self.sortDescriptor(String($0)) }
        let (offset, limit) = try parameters.page()
        let at = try parameters.sequence("at")
        let after = try parameters.text("after")
        return try serialized {
            try store.catchUp()
            let shown = try document(at: at)
            let entity = try Self.entity(named: name, in: shown.model)
            for descriptor in descriptors where !descriptor.keyPath.contains(".")
            && entity.attributesByName[descriptor.keyPath] == nil && entity.relationshipsByName[descriptor.keyPath] == nil {
                throw InspectorError.badRequest("\(entity.name) has no property \(InspectorParameters.quoted(descriptor.keyPath)) to sort by.")
            }
            var request = StoreFetchRequest(entity: entity, predicate: predicate, sortDescriptors: descriptors)
            let total = try countObjects(request, in: shown, key: [name, predicateText ?? "", at.map(String.init) ?? "now"])
            let records: [StoreRecord]
            var sought = false
            if let after, InspectorKeysetPage.supports(descriptors, of: entity) {
                let last = try resolve(after, in: shown)
                guard last.entity.isKind(of: entity) else {
                    throw InspectorError.badRequest("after names \(InspectorParameters.quoted(after)), which is not \(withArticle(entity.name)).")
                }
                guard let values = try shown.store.values(for: last) else {
                    throw InspectorError.notFound("The object \(InspectorParameters.quoted(after)) the page follows is gone; start again from the first page.")
                }
                records = try InspectorKeysetPage(request: request, limit: limit).records(after: last, values: values, in: shown.store)
                sought = true
            } else {
                request.fetchOffset = offset
                request.fetchLimit = limit
                records = try shown.store.fetchRecords(request)
            }
            let more = records.count == limit && offset + records.count < total
            return .fields([
                "entity": .string(entity.name),
                "columns": InspectorValues.columns(of: entity),
                "total": .int(total),
                "offset": .int(offset),
                "limit": .int(limit),
                "sought": .bool(sought),
                "next": more ? records.last.map { .string($0.objectID.shortReference) } ?? .null : .null,
                "rows": .array(records.map { InspectorValues.row(id: $0.objectID, values: $0.values) }),
            ])
        }
    }

    /// How many objects `request` matches in `shown`, remembered per request and save
    /// (`key` with the document's last sequence), so paging through a big entity counts it
    /// once (docs/INSPECTOR.md, "What each request reads").
    private func countObjects(_ request: StoreFetchRequest, in shown: ShownDocument, key: [String]) throws -> Int {
        let cacheKey = (key + [String(try store.logPosition.last)]).joined(separator: "\u{1F}")
        if let count = counts.value(for: cacheKey) { return count }
        let count = try shown.store.countObjects(request)
        counts.insert(count, for: cacheKey)
        return count
    }

    /// "a" or "an" before a name.
    private func withArticle(_ name: String) -> String {
        ("AEIOU".contains(name.first ?? "x") ? "an " : "a ") + name
    }

    /// `GET /api/object`: one object's attributes and relationships (as links), as of `at`,
    /// and the saves that touched it among the latest ``objectHistoryWindow`` saves.
    /// - Throws: 400 for a malformed reference; 404 for an unknown entity or object.
    package func object(_ parameters: InspectorParameters) throws -> JSONValue {
        let reference = try parameters.required("id")
        let at = try parameters.sequence("at")
        return try serialized {
            let shown = try document(at: at)
            let id = try resolve(reference, in: shown)
            guard let values = try shown.store.values(for: id) else {
                throw InspectorError.notFound("There is no object \(InspectorParameters.quoted(reference)) in the document.")
            }
            var attributes: [JSONValue] = []
            var relationships: [JSONValue] = []
            for (slot, property) in ToolRecordText.storedProperties(of: id.entity) {
                let value = slot < values.count ? values[slot] : .null
                let entry: JSONValue = .fields(["name": .string(property.name), "value": InspectorValues.json(value)])
                if case .relationship = property { relationships.append(entry) } else { attributes.append(entry) }
            }
            return .fields([
                "ref": .string(id.shortReference),
                "uri": .string(id.description),
                "entity": .string(id.entity.name),
                "attributes": .array(attributes),
                "relationships": .array(relationships),
                "history": try objectHistoryOrDamage(of: id, through: at),
            ])
        }
    }

    /// How many of the latest saves an object page searches for the object's changes.
    static let objectHistoryWindow: UInt64 = 2_000

    /// ``objectHistory(of:through:)``, or what damage in the history stopped it.
    private func objectHistoryOrDamage(of id: ManagedObjectID, through: UInt64?) throws -> JSONValue {
        do {
            return try objectHistory(of: id, through: through)
        } catch let error as StrataError where error.code == .corruptSegment {
            if let sequence = error.context.segment { historyDamage.segments[sequence] = error.message }
            return .fields(["searchedFrom": .null, "saves": .array([]), "damaged": .string(error.message)])
        }
    }

    /// The saves among the last ``objectHistoryWindow`` up to `through` that changed the
    /// object, newest first, each with the object's old and new values.
    private func objectHistory(of id: ManagedObjectID, through: UInt64?) throws -> JSONValue {
        let last = min(through ?? UInt64(Int64.max), try store.logPosition.last)
        let first = last > Self.objectHistoryWindow ? last - Self.objectHistoryWindow : 0
        guard let entity = store.model.entitiesByName[id.entity.name] else { return .array([]) }
        let request = PersistentHistoryRequest(after: PersistentHistoryToken(sequence: first), entityNames: [entity.name])
        let transactions = try store.history(request, through: last)
        var saves: [JSONValue] = []
        for transaction in transactions.reversed() {
            for change in transaction.changes where change.objectID.shortReference == id.shortReference {
                saves.append(.fields([
                    "sequence": .int(transaction.token.sequence),
                    "time": InspectorValues.time(transaction.timestamp),
                    "author": transaction.author.map { .string($0) } ?? .null,
                    "action": .string(transaction.actionName ?? ""),
                    "change": InspectorTimeline.json(change),
                ]))
            }
        }
        return .fields(["searchedFrom": .int(first + 1), "saves": .array(saves)])
    }

    /// The ID a reference (`Entity/pKEY` or a URI) names in `shown`.
    func resolve(_ reference: String, in shown: ShownDocument) throws -> ManagedObjectID {
        do {
            return try ToolRecordText.resolve(reference, in: shown.store, coordinator: shown.coordinator)
        } catch let error as StrataError where error.code == .objectNotFound {
            throw InspectorError.notFound(error.message)
        } catch let error as StrataError where error.code == .invalidObjectID {
            throw InspectorError(status: error.context.entity != nil && !reference.hasPrefix("x-strata:") ? 404 : 400, error.message)
        }
    }

    /// The entity `name` names in `model`.
    /// - Throws: 404 naming the entities there are.
    static func entity(named name: String, in model: ManagedObjectModel) throws -> EntityDescription {
        guard let entity = model.entitiesByName[name] else {
            let names = model.entities.map(\.name)
            throw InspectorError.notFound("There is no entity \(InspectorParameters.quoted(name)) in the model\(ToolSuggestions.clause(for: name, among: names)) (entities: \(names.joined(separator: ", "))).")
        }
        return entity
    }

    /// A sort key: `key`, `key:desc`, `key:asc`.
    static func sortDescriptor(_ text: String) throws -> FetchSortDescriptor {
        let parts = text.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let key = parts.first, !key.isEmpty, parts.count <= 2 else {
            throw InspectorError.badRequest("The sort key \(InspectorParameters.quoted(text)) is not KEY or KEY:desc.")
        }
        var descriptor = FetchSortDescriptor(key)
        if parts.count == 2 {
            switch parts[1].lowercased() {
            case "desc": descriptor.ascending = false
            case "asc": descriptor.ascending = true
            default: throw InspectorError.badRequest("The sort key \(InspectorParameters.quoted(text)) ends in neither :asc nor :desc.")
            }
        }
        return descriptor
    }
}
