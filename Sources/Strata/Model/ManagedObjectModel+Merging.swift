import Foundation

extension ManagedObjectModel {
    /// Builds one model from several, as Core Data's `NSManagedObjectModel(byMerging:)` does.
    ///
    /// Entities are copied with ``EntityDescription/copyDeclaration()`` in order (the first
    /// model's entities first), so the source models stay usable. Configurations with the same
    /// name are united (each entity listed once, first appearance first); fetch request
    /// templates are united, and the same name twice must describe the same template. The
    /// version identifier is kept when every model that has one agrees, otherwise it is nil.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(merging: [people, inventory])
    /// ```
    /// - Throws: ``StrataStorage/StrataError`` `.invalidModel` naming an entity defined by two models (its
    ///   `entity` context key) or a template defined differently twice; any other problem of
    ///   the merged model, as ``init(entities:configurations:fetchRequestTemplates:versionIdentifier:)``.
    /// - Complexity: O(total number of entities and properties).
    public convenience init(merging models: [ManagedObjectModel]) throws {
        var owner: [String: Int] = [:]
        var problems: [StrataError.Problem] = []
        var entities: [EntityDescription] = []
        var configurations: [String: [String]] = [:]
        var templates: [String: FetchRequestTemplate] = [:]
        var templateOrder: [String] = []
        for (modelIndex, model) in models.enumerated() {
            for entity in model.entities {
                if let first = owner[entity.name] {
                    problems.append(.init(
                        entityName: entity.name, object: nil, key: nil,
                        reason: "the entity is defined by merged models \(first) and \(modelIndex)"))
                    continue
                }
                owner[entity.name] = modelIndex
                entities.append(entity.copyDeclaration())
            }
            for name in model.configurations.keys.sorted() {
                var members = configurations[name] ?? []
                for member in model.configurations[name] ?? [] where !members.contains(member) {
                    members.append(member)
                }
                configurations[name] = members
            }
            for name in model.fetchRequestTemplatesByName.keys.sorted() {
                guard let template = model.fetchRequestTemplatesByName[name] else { continue }
                if let existing = templates[name] {
                    if existing != template {
                        problems.append(.init(
                            entityName: template.entityName, object: nil, key: name,
                            reason: "fetch request template '\(name)' is defined differently by two merged models"))
                    }
                    continue
                }
                templates[name] = template
                templateOrder.append(name)
            }
        }
        if !problems.isEmpty {
            let names = problems.map(\.entityName)
            let context = StrataError.Context { $0.entity = names[0]; $0.entities = names.count > 1 ? names : [] }
            let first = problems[0].key.map { "fetch request template '\($0)'" } ?? "entity '\(names[0])'"
            throw StrataError(
                .invalidModel, "The models cannot be merged: \(first) is defined twice"
                    + (problems.count > 1 ? " (and \(problems.count - 1) more conflict\(problems.count == 2 ? "" : "s"))." : "."),
                problems: problems, context: context)
        }
        let identifiers = Set(models.compactMap(\.versionIdentifier))
        try self.init(
            entities: entities, configurations: configurations,
            fetchRequestTemplates: templateOrder.compactMap { templates[$0] },
            versionIdentifier: identifiers.count == 1 ? identifiers.first : nil)
    }
}
