import Foundation
import Strata

extension OutlineEditor {
    /// Handles one key in the current mode.
    func handle(_ key: Key) {
        if key != .undo && key != .redo { message = "" }
        switch mode {
        case .outline: handleOutline(key)
        case .filterPrompt(let text): handleFilterPrompt(key, text)
        case .history(let index): handleHistory(key, index)
        case .past: if key == .escape || key == .character("q") || key == .enter { mode = .history(index: historyIndex) }
        }
        needsDisplay = true
    }

    private func handleOutline(_ key: Key) {
        switch key {
        case .character(let character) where isTyping || !"qh/".contains(character):
            type(String(character))
        case .space where isTyping: type(" ")
        case .backspace where isTyping: deleteLastCharacter()
        default:
            isTyping = false
            switch key {
            case .up: if let item = selected, let previous = previousRow(item) { selected = previous }
            case .down: if let item = selected, let next = nextRow(item) { selected = next }
            case .left: if let parent = selected?.parentItem, parent !== root, filterText.isEmpty { selected = parent }
            case .right: if let child = selected?.childItems.first, filterText.isEmpty { selected = child }
            case .enter: addSibling()
            case .tab: indent()
            case .shiftTab: outdent()
            case .space: toggleDone()
            case .backspace, .delete: deleteSelected()
            case .undo: undoOrRedo(redo: false)
            case .redo: undoOrRedo(redo: true)
            case .character("q"), .interrupt: quit()
            case .character("/"): mode = .filterPrompt("")
            case .character("h"): openHistory()
            default: break
            }
        }
        scrollToSelection()
    }

    /// Runs one key command as one undo group named `name`, recording the selection before
    /// and after it (undo and redo hand it back).
    func command(_ name: String, _ change: () throws -> Void) {
        let before = selected?.objectID
        // Only keystrokes coalesce: two indents in a row are two undo steps.
        undo.coalescingInterval = name == "Typing" ? typingCoalescing : 0
        context.performAndWait {
            do {
                try change()
                undo.setActionName(name)
                try undo.setPersistentGroupMetadata(OutlineSelection(before: before, after: selected?.objectID))
            } catch {
                message = "\(name) failed: \(Self.describe(error))"
            }
        }
        lastEdit = Date()
    }

    /// Typing: each keystroke is a change named "Typing", a splice of the title (a text:
    /// docs/TEXT.md) at its end; keystrokes closer together than the undo manager's
    /// coalescing interval are one undo step.
    private func type(_ text: String) {
        guard let item = selected else { return }
        isTyping = true
        command("Typing") {
            let end = item.title.unicodeScalars.count
            try item.replaceCharacters(in: end..<end, with: text, forKey: "title")
        }
    }

    /// Backspace: deletes the title's last character (all the Unicode scalars it is made of).
    private func deleteLastCharacter() {
        guard let item = selected else { return }
        isTyping = true
        command("Typing") {
            let title = item.title
            guard let last = title.last else { return }
            let end = title.unicodeScalars.count
            try item.replaceCharacters(in: (end - last.unicodeScalars.count)..<end, with: "", forKey: "title")
        }
    }

    /// A new, empty item after the selected one (the first item of an empty outline); typing
    /// goes to it.
    private func addSibling() {
        command("New Item") {
            let item = try context.insertObject(forEntityName: "Item")
            try item.setValue(.date(Date()), forKey: "created")
            // A permanent ID at once, so the undo group's selection names it after the save.
            try context.obtainPermanentIDs(for: [item])
            let parent = selected?.parentItem ?? root
            let index = selected.flatMap { current in parent.childItems.firstIndex { $0 === current } }.map { $0 + 1 } ?? 0
            try place(item, in: parent, at: index)
            selected = item
        }
        isTyping = true
    }

    /// Makes the selected item the last child of the sibling above it.
    private func indent() {
        guard filterText.isEmpty, let item = selected, let parent = item.parentItem else { return }
        let siblings = parent.childItems
        guard let index = siblings.firstIndex(where: { $0 === item }), index > 0 else { message = "nothing above to indent under"; return }
        let newParent = siblings[index - 1]
        command("Indent") { try place(item, in: newParent, at: newParent.childItems.count) }
    }

    /// Makes the selected item its parent's next sibling.
    private func outdent() {
        guard filterText.isEmpty, let item = selected, let parent = item.parentItem, parent !== root,
              let grandparent = parent.parentItem else { message = "already at the top level"; return }
        let index = (grandparent.childItems.firstIndex { $0 === parent } ?? 0) + 1
        command("Outdent") { try place(item, in: grandparent, at: index) }
    }

    /// Moves (or puts) `item` at `index` among `parent`'s children.
    private func place(_ item: ManagedObject, in parent: ManagedObject, at index: Int) throws {
        var children = parent.childItems.filter { $0 !== item }
        children.insert(item, at: min(index, children.count))
        try parent.mutableSetValue(forKey: "children").set(children)
    }

    private func toggleDone() {
        guard let item = selected else { return }
        let done = !item.isDone
        command(done ? "Mark Done" : "Mark Not Done") { try item.setValue(.boolean(done), forKey: "done") }
    }

    /// Deletes the selected item and its subtree; the selection goes to the next row, or the
    /// previous one at the end.
    private func deleteSelected() {
        guard let item = selected else { return }
        var next = nextSibling(item) ?? previousRow(item)
        if next === root { next = nil }
        command("Delete Item") {
            selected = next
            context.delete(item)
        }
        if top === item { top = selected }
    }

    private func undoOrRedo(redo: Bool) {
        let manager = undo
        guard redo ? manager.canRedo : manager.canUndo else { message = redo ? "nothing to redo" : "nothing to undo"; return }
        do {
            let metadata = try redo ? manager.redo() : manager.undo()
            lastEdit = Date()
            // This run's selection, or an earlier run's read back from the log.
            let selection = try? ContextUndoManager.groupMetadata(metadata, as: OutlineSelection.self)
            if let uri = redo ? selection?.after : selection?.before,
               let id = try? context.coordinator.managedObjectID(forURIRepresentation: uri),
               let item = try? context.existingObject(with: id), !item.isDeleted {
                selected = item
            } else if let item = selected, item.isDeleted || item.context == nil {
                selected = root.childItems.first
            }
            if let item = top, item.isDeleted || item.context == nil { top = selected }
        } catch {
            message = "\(redo ? "redo" : "undo") failed: \(Self.describe(error))"
        }
    }

    // MARK: Filter

    private func handleFilterPrompt(_ key: Key, _ text: String) {
        switch key {
        case .character(let character): mode = .filterPrompt(text + String(character))
        case .space: mode = .filterPrompt(text + " ")
        case .backspace: mode = .filterPrompt(String(text.dropLast()))
        case .escape: mode = .outline
        case .enter: applyFilter(text)
        default: break
        }
    }

    /// Shows only the items matching `text` (a predicate such as `done == YES` or
    /// `title CONTAINS[c] "milk"`); an empty text shows the whole outline again. A predicate
    /// that does not parse or names no attribute of Item leaves the list as it was and says why.
    func applyFilter(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        do {
            let predicate = trimmed.isEmpty ? try Self.topLevel(root) : try FetchPredicate(format: "parent != nil AND (\(trimmed))")
            if !trimmed.isEmpty {
                _ = try FetchPredicate(format: trimmed)     // its own error names the position in what was typed
                _ = try context.count(for: FetchRequest(entityName: "Item", predicate: predicate))
            }
            controller = try Self.makeController(context, predicate: predicate, watcher: watcher)
            let wasFiltered = !filterText.isEmpty
            filterText = trimmed
            mode = .outline
            if !trimmed.isEmpty {
                if !wasFiltered { beforeFilter = (top, selected) }
                selected = controller.fetchedObjects?.first
                top = selected
            } else {
                // Back where the outline was before the filter: the same first row and
                // selection (when they still exist), not scrolled to the filter's last match.
                let saved = beforeFilter
                beforeFilter = nil
                if let item = saved?.selected, Self.isAlive(item) { selected = item }
                if let item = selected, !Self.isAlive(item) { selected = nil }
                if selected == nil { selected = root.childItems.first }
                if let item = saved?.top, Self.isAlive(item) { top = item } else if !wasFiltered { top = selected } else { top = root.childItems.first }
            }
        } catch {
            mode = .filterPrompt(text)
            message = "bad filter: \(Self.describe(error))"
        }
    }
}

extension OutlineEditor {
    /// Whether `item` is still in the outline (not deleted, its context not reset).
    static func isAlive(_ item: ManagedObject) -> Bool {
        !item.isDeleted && item.context != nil
    }
}
