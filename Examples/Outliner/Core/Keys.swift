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
                guard input[index + 1] == 0x5b || input[index + 1] == 0x4f else { keys.append(.escape); index += 1; continue }
                guard index + 2 < input.count else { pending = Array(input[index...]); return keys }
                let code = input[index + 2]
                switch code {
                case 0x41: keys.append(.up)
                case 0x42: keys.append(.down)
                case 0x43: keys.append(.right)
                case 0x44: keys.append(.left)
                case 0x5a: keys.append(.shiftTab)
                case 0x33:
                    guard index + 3 < input.count else { pending = Array(input[index...]); return keys }
                    if input[index + 3] == 0x7e { keys.append(.delete); index += 1 }
                default: break      // an escape sequence the outliner has no use for
                }
                index += 3
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
}
