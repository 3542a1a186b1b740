import Dispatch
import Foundation

/// Events without a run loop (docs/ARCHITECTURE.md, "Undo"): a `perform` or
/// `performAndWait` block, or a main-queue turn that changed a main-queue context. At an
/// event's end pending changes are processed and the undo manager's event group closes, so
/// an app need not call `processPendingChanges()` after every event.
extension ManagedObjectContext {
    /// Runs `body` as an event (or inside the one already running).
    func withEvent<T>(_ body: () throws -> T) rethrows -> T {
        eventDepth += 1
        defer {
            eventDepth -= 1
            if eventDepth == 0 { endEvent() }
        }
        return try body()
    }

    /// Whether an event is running that will end on its own, so the undo manager may keep
    /// the event's group open. A confinement context used outside a block has none: each
    /// flush is its own event.
    func holdsEventOpen() -> Bool {
        if eventDepth > 0 { return true }
        guard endsMainTurns, isOnWorkQueue else { return false }
        scheduleTurnEnd()
        return true
    }

    /// Ends the current main-queue turn's event once the main queue runs what was queued
    /// behind it. The block holds the context until then.
    func scheduleTurnEnd() {
        guard !turnEndScheduled else { return }
        turnEndScheduled = true
        DispatchQueue.main.async {
            self.turnEndScheduled = false
            if self.eventDepth == 0 { self.endEvent() }
        }
    }

    /// Throws when the undo manager could not register a change made now (groupsByEvent
    /// off and no group open); changes the context makes itself (undo, redo, merges) pass.
    @inline(__always)
    func checkChangeCanRegisterUndo() throws {
        if let undoManager, !undoManager.groupsByEvent, pendingFlushKind == nil {
            try undoManager.checkModelChangeCanRegister()
        }
    }

    /// Processes pending changes and closes the undo manager's event group.
    func endEvent() {
        if !flushSet.isEmpty { processPendingChanges() }
        undoManager?.endEvent()
    }
}
