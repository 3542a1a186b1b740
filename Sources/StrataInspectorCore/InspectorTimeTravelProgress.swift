import Foundation
import Strata

/// How far the inspector's background preparation of time travel is
/// (``InspectorTimeTravel/prepare(_:isCancelled:)``): the `timeTravel` field of
/// `/api/document`, which the page shows beside its "As of save" box.
package struct InspectorTimeTravelProgress: Sendable {
    /// What the preparation is doing.
    package enum State: String, Sendable {
        /// Not started: the inspector was opened without it (tests, a library caller).
        case off
        /// Laying checkpoints; travels past ``InspectorTimeTravelProgress/prepared`` replay
        /// from the nearest checkpoint before them meanwhile.
        case preparing
        /// Every interval of the history has its checkpoint.
        case ready
        /// The document was migrated or its retention dropped its first saves: every travel
        /// replays the history whole (docs/INSPECTOR.md, "Time travel").
        case replaysWhole
        /// The checkpoint limits were reached before the last save.
        case stoppedAtLimit
        /// The inspector closed first.
        case cancelled
        /// Reading or replaying the history failed (``InspectorTimeTravelProgress/message``).
        case failed
    }

    package var state = State.off
    /// The last save with a checkpoint behind it so far.
    package var prepared: UInt64 = 0
    /// The last save when the preparation started.
    package var last: UInt64 = 0
    /// Saves between two checkpoints.
    package var interval: UInt64 = 0
    /// Seconds the preparation has taken so far.
    package var seconds: Double = 0
    /// Why it failed.
    package var message: String?

    /// The field as `/api/document` serves it.
    var json: JSONValue {
        .fields([
            "state": .string(state.rawValue),
            "prepared": .int(prepared),
            "last": .int(last),
            "interval": .int(interval),
            "seconds": .number(String(format: "%.1f", seconds)),
            "message": message.map { .string($0) } ?? .null,
        ])
    }
}
