import Foundation

/// Where W15 ends one undo step and starts the next, standing in for the pauses that time
/// coalescing needs.
///
/// The Outliner (Examples/Outliner/Core/OutlineEditor+Commands.swift) flushes every
/// keystroke as a change named "Typing" and sets `coalescingInterval` so that keystrokes
/// closer together than the interval join one undo step. A benchmark has no pauses: with
/// the interval alone, every keystroke of the run would join one step. So W15 decides where
/// a pause — or, in a text editor, a break in coalescing — would be, the way text editors
/// break typing coalescing (NSTextView's typing undo), and a keystroke starts a new step
/// when:
///
/// - the caret moved: the keystroke is not where the previous one left the caret;
/// - typing turns into deleting, or deleting into typing;
/// - a word begins: the previous keystroke typed whitespace and this one types something
///   else ("hello " is one step, the space ends it).
///
/// Every other keystroke joins the step before it through the undo manager's own
/// coalescing (the interval set to infinity for it, 0 for a keystroke that starts a step),
/// exactly the path the Outliner's typing takes. On the traces this makes a step of a
/// handful of keystrokes: about a word (W15 reports the steps).
struct TypingSteps {
    private enum Kind { case typing, deleting }
    /// Where the previous keystroke left the caret; nil before the first.
    private var caret: Int?
    private var kind: Kind?
    private var typedWhitespace = false

    /// Whether `patch` starts a new undo step; records it as the previous keystroke.
    mutating func startsStep(_ patch: EditingTrace.Patch) -> Bool {
        let position = Int(patch.position)
        let deleted = Int(patch.deleted)
        let current: Kind = patch.inserted.isEmpty ? .deleting : .typing
        // A backspace removes the scalars before the caret (its patch starts `deleted`
        // before it), a forward delete those after it. Typing (or replacing a selection)
        // starts at the caret.
        let atCaret = current == .deleting ? (caret == position + deleted || caret == position) : caret == position
        let startsWord = typedWhitespace && current == .typing && !(patch.inserted.unicodeScalars.first?.properties.isWhitespace ?? false)
        let starts = !atCaret || kind != current || startsWord
        caret = position + patch.inserted.unicodeScalars.count
        kind = current
        typedWhitespace = patch.inserted.unicodeScalars.last?.properties.isWhitespace ?? false
        return starts
    }
}
