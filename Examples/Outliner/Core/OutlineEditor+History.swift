import Foundation
import Strata

/// One save of the document, as `h` lists it.
public struct HistoryEntry: Equatable, Sendable {
    /// The save's segment in the document's log.
    public var sequence: UInt64
    /// When it was saved.
    public var timestamp: Date
    /// The action names of its undo groups ("Undo Typing" for an undo), in order.
    public var actions: [String]
}

extension OutlineEditor {
    var historyIndex: Int {
        if case .history(let index) = mode { return index }
        return savedHistoryIndex
    }

    /// The saves, newest first, from the document's group table (nothing is decoded).
    func loadHistory() throws -> [HistoryEntry] {
        guard let document = container.store as? DocumentStore else { return [] }
        var entries: [HistoryEntry] = []
        for record in try document.groupRecords() {
            let name: String
            switch record.info.kind {
            case .undo: name = "Undo " + record.info.actionName
            case .redo: name = "Redo " + record.info.actionName
            default: name = record.info.actionName.isEmpty ? "(unnamed)" : record.info.actionName
            }
            if let last = entries.last, last.sequence == record.sequence {
                if entries[entries.count - 1].actions.last != name { entries[entries.count - 1].actions.append(name) }
            } else {
                entries.append(HistoryEntry(sequence: record.sequence, timestamp: record.timestamp, actions: [name]))
            }
        }
        return entries.reversed()
    }

    /// `h`: saves what is unsaved (the list then ends with it) and lists the saves.
    func openHistory() {
        save()
        do {
            history = try loadHistory()
            mode = .history(index: 0)
        } catch {
            message = "reading the history failed: \(Self.describe(error))"
        }
    }

    func handleHistory(_ key: Key, _ index: Int) {
        switch key {
        case .up: mode = .history(index: max(0, index - 1))
        case .down: mode = .history(index: min(history.count - 1, index + 1))
        case .escape, .character("q"), .character("h"): mode = .outline
        case .enter where history.indices.contains(index): openPast(history[index].sequence, index: index)
        default: break
        }
    }

    /// Time travel: replays the log through `sequence` into a scratch document
    /// (`strata-log replay` does the same), opens it read-only and reads its rows.
    func openPast(_ sequence: UInt64, index: Int) {
        guard let url = container.url else { return }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("outliner-past-\(UUID().uuidString).strata")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch.path + suffix) }
        }
        do {
            try DocumentReplay.replay(url, through: sequence, to: scratch)
            var options = Self.options()
            options.configuration.isReadOnly = true
            options.restoresUndoHistory = false
            let past = try PersistentContainer(name: "Outline", model: .outline(), url: scratch, options: options)
            defer { try? past.close() }
            let roots = FetchRequest(entityName: "Item", predicate: try FetchPredicate(format: "parent == nil"),
                                     sortDescriptors: [FetchSortDescriptor("created")])
            pastRows = []
            if let pastRoot = try past.viewContext.fetch(roots).first {
                var stack = Array(pastRoot.childItems.reversed().map { ($0, 0) })
                while let (item, depth) = stack.popLast(), pastRows.count < 500 {
                    pastRows.append(Row(depth: depth, title: item.title, done: item.isDone, isSelected: false))
                    stack += item.childItems.reversed().map { ($0, depth + 1) }
                }
            }
            savedHistoryIndex = index
            mode = .past(sequence: sequence)
        } catch {
            message = "time travel failed: \(Self.describe(error))"
        }
    }
}
