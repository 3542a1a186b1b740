// LeakSanitizer and Foundation's Data on Linux: memory a live object holds, reported leaked.
//
//   swiftc -sanitize=address -g Tools/sanitizers/data-lsan-repro.swift -o /tmp/data-lsan-repro
//   /tmp/data-lsan-repro    # "Direct leak of 65 byte(s)" + "Indirect leak of 3689 byte(s)"
//
// `holder` is a global, alive until the process exits, and holds the Data and a byte array
// made from it. LeakSanitizer reports the Data's storage as leaked, and not the array's.
// LeakSanitizer finds live memory by scanning for pointers to it; Data keeps its storage
// in an enum whose case is encoded in the spare high bits of the storage pointer, so the
// word in memory is not a pointer LeakSanitizer recognizes. Tools/sanitizers/lsan.supp
// cites this program for the suppression.
import Foundation

final class Holder {
    let data: Data
    let bytes: [UInt8]
    init(_ data: Data) {
        self.data = data
        bytes = Array(data)
    }
}

let holder = Holder(Data(String(repeating: "x", count: 3689).utf8))
print("holding \(holder.data.count) bytes of Data and \(holder.bytes.count) in an array")
