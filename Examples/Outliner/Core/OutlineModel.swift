import Foundation
import Strata

extension ManagedObjectModel {
    /// The outliner's model: one entity, `Item` (title, done, notes, created), a tree through
    /// `parent` and the ordered `children` (deleting an item deletes its subtree). The
    /// document's one item without a parent is the invisible root; its children are the
    /// outline's top level. Titles and notes are texts (docs/TEXT.md): two outliners typing
    /// into one title at once both keep their words, and each one's undo removes its own.
    public static func outline() -> ManagedObjectModel {
        var title = AttributeDescription("title", .string, defaultValue: .string(""))
        title.isText = true
        var notes = AttributeDescription("notes", .string)
        notes.isText = true
        let item = EntityDescription("Item", attributes: [
            title,
            AttributeDescription("done", .boolean, defaultValue: .boolean(false)),
            notes,
            AttributeDescription("created", .date, isIndexed: true),
        ], relationships: [
            RelationshipDescription("parent", to: "Item", inverse: "children"),
            RelationshipDescription("children", to: "Item", toMany: true, inverse: "parent", deleteRule: .cascade, isOrdered: true),
        ])
        do {
            return try ManagedObjectModel(entities: [item], versionIdentifier: "outline-2")
        } catch {
            preconditionFailure("the outliner's model is invalid: \(error)")
        }
    }
}

/// Reading and writing an `Item` by name, so the editor reads like the model.
extension ManagedObject {
    var title: String {
        if case .string(let title)? = try? value(forKey: "title") { return title }
        return ""
    }
    var isDone: Bool {
        if case .boolean(let done)? = try? value(forKey: "done") { return done }
        return false
    }
    var parentItem: ManagedObject? { (try? object(forKey: "parent")) ?? nil }
    var childItems: [ManagedObject] { (try? objects(forKey: "children")) ?? [] }
}

/// The built-in outline a new document starts with, and a generated big one for measuring.
public enum ExampleOutline {
    /// Titles of the example outline: (depth, title, done).
    static let items: [(Int, String, Bool)] = [
        (0, "Welcome to the Strata outliner", false),
        (1, "Arrows move, Enter adds, Tab and Shift-Tab indent and outdent", false),
        (1, "Type to edit a title; Space toggles done", true),
        (1, "Ctrl-Z and Ctrl-Y undo and redo, even after quitting", false),
        (0, "Groceries", false),
        (1, "Bread", true),
        (1, "Coffee", false),
        (0, "/ filters (try: done == YES), h shows the history, q quits", false),
    ]

    /// Fills an empty document: a root and the example items, saved with undo registration
    /// off, so the user's first undo is not "undo the example".
    static func insert(into context: ManagedObjectContext) throws {
        let undo = context.undoManager
        context.processPendingChanges()
        undo?.disableUndoRegistration()
        defer { context.processPendingChanges(); try? undo?.enableUndoRegistration() }
        let root = try context.insertObject(forEntityName: "Item")
        try root.setValue(.date(Date()), forKey: "created")
        var path = [root]
        for (depth, title, done) in items {
            let item = try context.insertObject(forEntityName: "Item")
            try item.setValue(.string(title), forKey: "title")
            try item.setValue(.boolean(done), forKey: "done")
            try item.setValue(.date(Date()), forKey: "created")
            path.removeLast(path.count - depth - 1)
            try item.setObject(path[depth], forKey: "parent")
            path.append(item)
        }
    }

    /// Writes a new document of `count` items, `perGroup` children under each top-level item.
    public static func generate(at url: URL, count: Int, perGroup: Int = 100) throws {
        let container = try PersistentContainer(name: "Outline", model: .outline(), url: url, options: OutlineEditor.options())
        let context = container.viewContext
        context.undoManager = nil
        let root = try context.insertObject(forEntityName: "Item")
        try root.setValue(.date(Date()), forKey: "created")
        var group: ManagedObject = root
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<count {
            let item = try context.insertObject(forEntityName: "Item")
            try item.setValue(.string(index % perGroup == 0 ? "Group \(index / perGroup)" : "Item \(index)"), forKey: "title")
            try item.setValue(.date(start.addingTimeInterval(Double(index))), forKey: "created")
            if index % perGroup == 0 {
                try item.setObject(root, forKey: "parent")
                group = item
            } else {
                try item.setObject(group, forKey: "parent")
            }
            if index % 10_000 == 9_999 { try context.save() }
        }
        try context.save()
        try container.close()
    }
}
