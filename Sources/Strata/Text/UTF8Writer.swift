import Foundation

/// Writes scalars as UTF-8 into memory the caller sized for them, without the standard
/// library's per-scalar views: a text's string is written this way per splice and, once a
/// save, whole (docs/TEXT.md, "Runs").
enum UTF8Writer {
    /// Writes `scalars` at `out`; returns the end of what it wrote. `isASCII`: every scalar
    /// is below 0x80 (one byte each).
    static func write(_ scalars: UnsafeBufferPointer<Unicode.Scalar>, to out: UnsafeMutablePointer<UInt8>,
                      isASCII: Bool) -> UnsafeMutablePointer<UInt8> {
        var out = out
        if isASCII {
            for scalar in scalars {
                out.pointee = UInt8(truncatingIfNeeded: scalar.value)
                out += 1
            }
            return out
        }
        for scalar in scalars {
            let value = scalar.value
            switch value {
            case ..<0x80:
                out[0] = UInt8(truncatingIfNeeded: value)
                out += 1
            case ..<0x800:
                out[0] = UInt8(truncatingIfNeeded: 0xC0 | value >> 6)
                out[1] = UInt8(truncatingIfNeeded: 0x80 | value & 0x3F)
                out += 2
            case ..<0x10000:
                out[0] = UInt8(truncatingIfNeeded: 0xE0 | value >> 12)
                out[1] = UInt8(truncatingIfNeeded: 0x80 | value >> 6 & 0x3F)
                out[2] = UInt8(truncatingIfNeeded: 0x80 | value & 0x3F)
                out += 3
            default:
                out[0] = UInt8(truncatingIfNeeded: 0xF0 | value >> 18)
                out[1] = UInt8(truncatingIfNeeded: 0x80 | value >> 12 & 0x3F)
                out[2] = UInt8(truncatingIfNeeded: 0x80 | value >> 6 & 0x3F)
                out[3] = UInt8(truncatingIfNeeded: 0x80 | value & 0x3F)
                out += 4
            }
        }
        return out
    }
}
