#if STRATA_FUZZING
import Foundation
import StrataFuzzTargets

/// The bridge to libFuzzer (linked by `-sanitize=fuzzer`). SwiftPM links executables with
/// `main` defined as the module's Swift entry point, so libFuzzer's own `main` never runs:
/// ours calls its driver, after taking the target's name off the arguments.
enum LibFuzzer {
    nonisolated(unsafe) static var target = FuzzTarget.segment

    static func run(_ target: FuzzTarget, arguments: [String]) -> Never {
        self.target = target
        var argc = CInt(arguments.count)
        let strings = arguments.map { strdup($0) } + [nil]
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: strings.count)
        argv.initialize(from: strings, count: strings.count)
        var pointer = argv
        exit(LLVMFuzzerRunDriver(&argc, &pointer, { data, size in
            _ = LibFuzzer.target.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        }))
    }
}

/// libFuzzer's entry for a program with its own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Required by the part of libFuzzer that holds its unused `main`; never called.
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = LibFuzzer.target.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#endif
