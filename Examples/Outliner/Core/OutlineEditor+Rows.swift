import Foundation
import Strata

/// One line of the outline as drawn.
public struct Row: Equatable, Sendable {
    /// How deep the item is (0 for the top level).
    public var depth: Int
    /// The item's title.
    public var title: String
    /// Whether it is done.
    public var done: Bool
    /// Whether it is the selection.
    public var isSelected: Bool
}

extension OutlineEditor {
    /// The rows from the first drawn one, at most `limit`: a walk of the tree from ``top``
    /// (only the drawn items are read, so a big outline costs what the screen shows), or the
    /// controller's matches when a filter is in effect.
    public func rows(limit: Int) -> [Row] {
        var rows: [Row] = []
        var item = top ?? root.childItems.first
        while let current = item, rows.count < limit {
            rows.append(Row(depth: filterText.isEmpty ? depth(of: current) : 0, title: current.title, done: current.isDone, isSelected: current === selected))
            item = nextRow(current)
        }
        return rows
    }

    /// The titles of the whole outline, two spaces per level: what tests compare.
    public func outlineText() -> String {
        var lines: [String] = []
        var item = root.childItems.first
        while let current = item {
            lines.append(String(repeating: "  ", count: depth(of: current)) + (current.isDone ? "[x] " : "") + current.title)
            item = next(inTree: current)
        }
        return lines.joined(separator: "\n")
    }

    func depth(of item: ManagedObject) -> Int {
        var depth = 0
        var parent = item.parentItem
        while let current = parent, current !== root { depth += 1; parent = current.parentItem }
        return depth
    }

    /// The row after `item`: the next in the tree, or the next match of the filter.
    func nextRow(_ item: ManagedObject) -> ManagedObject? {
        guard filterText.isEmpty else {
            guard let path = controller.indexPath(for: item), path.item + 1 < itemCount else { return nil }
            return controller.object(at: ResultIndexPath(item: path.item + 1, section: 0))
        }
        return next(inTree: item)
    }

    /// The row before `item`.
    func previousRow(_ item: ManagedObject) -> ManagedObject? {
        guard filterText.isEmpty else {
            guard let path = controller.indexPath(for: item), path.item > 0 else { return nil }
            return controller.object(at: ResultIndexPath(item: path.item - 1, section: 0))
        }
        guard let parent = item.parentItem else { return nil }
        let siblings = parent.childItems
        guard let index = siblings.firstIndex(where: { $0 === item }) else { return nil }
        guard index > 0 else { return parent === root ? nil : parent }
        var last = siblings[index - 1]
        while let child = last.childItems.last { last = child }
        return last
    }

    /// Depth first: the first child, else the next sibling of the item or of an ancestor.
    func next(inTree item: ManagedObject) -> ManagedObject? {
        if let child = item.childItems.first { return child }
        var current = item
        while current !== root {
            if let sibling = nextSibling(current) { return sibling }
            guard let parent = current.parentItem else { return nil }
            current = parent
        }
        return nil
    }

    func nextSibling(_ item: ManagedObject) -> ManagedObject? {
        guard let siblings = item.parentItem?.childItems, let index = siblings.firstIndex(where: { $0 === item }),
              index + 1 < siblings.count else { return nil }
        return siblings[index + 1]
    }

    /// Moves ``top`` so that the selection is among the `visibleRows` drawn.
    func scrollToSelection(visibleRows: Int = 20) {
        guard let item = selected else { return }
        var walk: ManagedObject? = top
        for _ in 0..<visibleRows {
            guard let current = walk else { break }
            if current === item { return }
            walk = nextRow(current)
        }
        // Above the window: it becomes the first row. Below: the last.
        walk = item
        for _ in 0..<visibleRows {
            guard let current = walk else { break }
            if current === top { top = item; return }
            walk = nextRow(current)
        }
        var first = item
        for _ in 1..<visibleRows {
            guard let previous = previousRow(first) else { break }
            first = previous
        }
        top = first
    }
}
