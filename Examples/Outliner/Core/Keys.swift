/// A key the outliner understands, decoded from terminal input bytes.
public enum Key: Equatable, Sendable {
    /// An arrow key.
    case up, down, left, right
    /// Enter, Tab, Shift-Tab (`ESC [ Z`), Space, Backspace, Delete (`ESC [ 3 ~`), Escape.
    case enter, tab, shiftTab, space, backspace, delete, escape
    /// Ctrl-Z, Ctrl-Y and Ctrl-C (raw mode delivers them as bytes, not signals).
    case undo, redo, interrupt
    /// A printable character.
    case character(Character)
}

/// Turns the bytes a terminal sends into keys: ANSI escape sequences for arrows,
/// Shift-Tab (`ESC [ Z`) and Delete (`ESC [ 3 ~`), control bytes for Ctrl-Z and Ctrl-Y,
/// UTF-8 for text. A sequence split across two reads is completed by the next one.
///
/// An escape sequence is read to its final byte, as ECMA-48 §5.4 defines it: a control
/// sequence (`ESC [`) is parameter bytes 0x30–0x3F and intermediate bytes 0x20–0x2F up to
/// a final byte 0x40–0x7E (Home `ESC [ H` or `ESC [ 1 ~`, PageUp `ESC [ 5 ~`, F5
/// `ESC [ 15 ~`, Ctrl-Up `ESC [ 1 ; 5 A`); `ESC O` (SS3) takes one final byte (F1 `ESC O P`),
/// and the Linux console's `ESC [ [` one more (F1 `ESC [ [ A`).
/// Sequences the outliner has no use for are dropped whole: none of their bytes is typed.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// A decoder with nothing pending.
    public init() {}

    /// The keys in `bytes` (plus any incomplete sequence left from the last call). A lone
    /// ESC at the end of the input is the Escape key: terminals send sequences whole.
    public mutating func decode(_ bytes: [UInt8]) -> [Key] {
        let input = pending + bytes
        pending = []
        var keys: [Key] = []
        var index = 0
        while index < input.count {
            let byte = input[index]
            switch byte {
            case 0x1b:
                guard index + 1 < input.count else { keys.append(.escape); index += 1; continue }
                let introducer = input[index + 1]
                guard introducer == 0x5b || introducer == 0x4f else { keys.append(.escape); index += 1; continue }
                guard let (key, length) = Self.sequence(input, at: index) else {
                    pending = Array(input[index...])
                    return keys
                }
                if let key { keys.append(key) }
                index += length
            case 0x0d, 0x0a: keys.append(.enter); index += 1
            case 0x09: keys.append(.tab); index += 1
            case 0x7f, 0x08: keys.append(.backspace); index += 1
            case 0x1a: keys.append(.undo); index += 1
            case 0x19: keys.append(.redo); index += 1
            case 0x03: keys.append(.interrupt); index += 1
            case 0x20: keys.append(.space); index += 1
            case 0x00..<0x20: index += 1
            default:
                let length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
                guard index + length <= input.count else { pending = Array(input[index...]); return keys }
                if let text = String(bytes: input[index..<index + length], encoding: .utf8), let character = text.first {
                    keys.append(.character(character))
                }
                index += length
            }
        }
        return keys
    }

    /// The escape sequence starting at `start` (`ESC [` or `ESC O`): the key it is (nil for
    /// one the outliner ignores) and its length through the final byte; nil when the input
    /// ends before the final byte.
    private static func sequence(_ input: [UInt8], at start: Int) -> (key: Key?, length: Int)? {
        if input[start + 1] == 0x4f {
            // SS3: one final byte (arrows in application mode, F1–F4, Home and End).
            guard start + 2 < input.count else { return nil }
            return (arrow(input[start + 2]), 3)
        }
        // The Linux console's F1–F5 are `ESC [ [ A` … `ESC [ [ E`: one byte after the second `[`.
        if start + 2 < input.count, input[start + 2] == 0x5b {
            guard start + 3 < input.count else { return nil }
            return (nil, 4)
        }
        var index = start + 2
        while index < input.count, (0x20...0x3f).contains(input[index]) { index += 1 }
        guard index < input.count else { return nil }
        let final = input[index]
        let length = index - start + 1
        // A byte outside the final range ends a malformed sequence: dropped through it.
        guard (0x40...0x7e).contains(final) else { return (nil, length) }
        let parameters = String(decoding: input[(start + 2)..<index], as: UTF8.self)
        switch final {
        case 0x41, 0x42, 0x43, 0x44: return (arrow(final), length)        // arrows, with or without modifiers
        case 0x5a: return (parameters.isEmpty ? .shiftTab : nil, length)
        case 0x7e: return (parameters == "3" ? .delete : nil, length)     // Delete; Home, End, PageUp, F5… ignored
        default: return (nil, length)
        }
    }

    private static func arrow(_ final: UInt8) -> Key? {
        switch final {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        default: return nil
        }
    }
}
