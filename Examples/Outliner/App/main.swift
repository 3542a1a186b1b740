import Foundation
import OutlinerCore
#if canImport(Glibc)
import Glibc
#endif

// The terminal layer of the outliner: reads keys, hands them to the editor (OutlinerCore),
// draws its screen model with ANSI escapes, saves after a pause, and merges other
// processes' saves at least once a second. Usage:
//   outliner DOCUMENT            edit (a new document starts with an example outline)
//   outliner --generate N DOC [--force]
//                                write an outline of N items (for measuring); an existing
//                                DOC is kept unless --force replaces it
//   outliner --measure DOCUMENT  time opening a document and drawing its first screen

func fail(_ message: String) -> Never {
    Terminal.restore()
    FileHandle.standardError.write(Data("outliner: error: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "--generate":
    let force = arguments.count == 4 && arguments[3] == "--force"
    guard arguments.count == 3 || force, let count = Int(arguments[1]), count > 0 else { fail("usage: outliner --generate N DOCUMENT [--force]") }
    if FileManager.default.fileExists(atPath: arguments[2]) {
        guard force else { fail("\(arguments[2]) already exists; pass --force to replace it.") }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: arguments[2] + suffix) }
    }
    do {
        try ExampleOutline.generate(at: URL(fileURLWithPath: arguments[2]), count: count)
    } catch { fail("\(error)") }
    print("wrote \(count) items to \(arguments[2])")
    exit(0)
case "--measure":
    guard arguments.count == 2 else { fail("usage: outliner --measure DOCUMENT") }
    do {
        let start = Date()
        let editor = try OutlineEditor(url: URL(fileURLWithPath: arguments[1]))
        let screen = editor.screen(width: 80, height: 24)
        let elapsed = Date().timeIntervalSince(start)
        print(screen.status)
        print(String(format: "opened %d items and drew the first screen in %.3f s", editor.itemCount, elapsed))
        editor.quit()
    } catch { fail("\(error)") }
    exit(0)
case nil, "--help", "-h":
    print("usage: outliner DOCUMENT")
    exit(arguments.isEmpty ? 1 : 0)
default: break
}

let editor: OutlineEditor
do {
    editor = try OutlineEditor(url: URL(fileURLWithPath: arguments[0]))
} catch {
    fail("cannot open \(arguments[0]): \(error)")
}
do { try Terminal.enterRawMode() } catch { fail("\(error)") }
for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
    signal(signalNumber) { _ in stopSignal = 1 }
}

var lastPoll = Date()
var lastDrawn: [String] = []
while !editor.hasQuit {
    if stopSignal != 0 { editor.quit(); break }
    let input = Terminal.read(timeout: 200)
    let size = Terminal.size()
    if !input.isEmpty { editor.run(input, width: size.width, height: size.height) }
    if editor.hasQuit { break }
    editor.tick()
    if Date().timeIntervalSince(lastPoll) >= 0.5 {
        editor.pollForRemoteChanges()
        lastPoll = Date()
    }
    let screen = editor.screen(width: size.width, height: size.height)
    guard screen.lines != lastDrawn || editor.needsDisplay else { continue }
    editor.needsDisplay = false
    lastDrawn = screen.lines
    var frame = "\u{1b}[H"
    for (index, line) in screen.lines.enumerated() {
        let isStatus = index == screen.lines.count - 1
        let style = isStatus ? "\u{1b}[7m" : index == screen.highlighted ? "\u{1b}[1;4m" : index == 0 ? "\u{1b}[1m" : ""
        frame += style + line + "\u{1b}[K" + (style.isEmpty ? "" : "\u{1b}[0m") + (isStatus ? "" : "\r\n")
    }
    Terminal.write(frame)
}
Terminal.restore()
if !editor.message.isEmpty { FileHandle.standardError.write(Data("outliner: \(editor.message)\n".utf8)) }
