import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The terminal's settings before raw mode, restored on exit and by the signal handler
/// (which may touch nothing but globals).
nonisolated(unsafe) var savedTerminal = termios()
nonisolated(unsafe) var terminalIsRaw = false
/// Set by SIGINT/SIGTERM; the main loop then saves, restores the terminal and exits.
nonisolated(unsafe) var stopSignal: sig_atomic_t = 0

/// Raw mode through termios: no echo, no line buffering, no signals from keys (Ctrl-Z is
/// undo here, not suspend), and the alternate screen, so quitting leaves the shell as it was.
enum Terminal {
    static func enterRawMode() throws {
        guard tcgetattr(STDIN_FILENO, &savedTerminal) == 0 else {
            throw OutlinerFailure("standard input is not a terminal (run the outliner in a terminal, or tmux)")
        }
        var raw = savedTerminal
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        terminalIsRaw = true
        write("\u{1b}[?1049h\u{1b}[?25l")
    }

    /// Restores the settings and the main screen; safe to call twice.
    static func restore() {
        guard terminalIsRaw else { return }
        write("\u{1b}[?25h\u{1b}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminal)
        terminalIsRaw = false
    }

    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Waits up to `milliseconds` for input and returns what arrived (empty on timeout).
    static func read(timeout milliseconds: Int32) -> [UInt8] {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = Glibc.read(STDIN_FILENO, &buffer, buffer.count)
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    static func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }
}

/// A failure the outliner reports and exits on.
struct OutlinerFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
