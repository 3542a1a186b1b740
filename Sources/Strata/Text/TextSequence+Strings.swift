import Foundation

extension TextSequence {
    /// Applies a logged edit (a store's: it holds no restores) to the text and to the
    /// string `value` shows of it: changed in place where a step changes it, or written once
    /// from the characters after an edit of many steps (``stepsWorthARewrite``).
    /// - Throws: as ``apply(_:peer:resolvingRestores:changed:)``; the string then shows the
    ///   steps applied before the failing one.
    package mutating func apply(_ edit: TextEdit, toString value: inout PropertyValue) throws {
        if edit.steps.count > Self.stepsWorthARewrite {
            // A save's fold of many keystrokes: each step changing the string in place moved
            // its tail once per step; the characters changed alone and the string written
            // once from them costs one pass.
            do {
                _ = try apply(edit, peer: Self.basePeer, resolvingRestores: false)
            } catch {
                value = .string(string)
                throw error
            }
            value = .string(string)
            return
        }
        var string = value.textValue
        value = .null   // so that `string` is not shared
        defer { value = .string(string) }
        _ = try apply(edit, peer: Self.basePeer, resolvingRestores: false) { offset, removed, inserted in
            string.replace(utf8: offset..<(offset + removed), with: inserted)
        }
    }

    /// Above this many steps an edit's string is written once from the characters rather
    /// than changed step by step: a step moves about half the string, a rewrite encodes all
    /// of it, a few times slower per byte than moving it.
    static let stepsWorthARewrite = 16
}

extension String {
    /// Replaces the scalars between two UTF-8 offsets (on scalar boundaries) with `scalars`.
    /// A native string's UTF-8 offsets are its indices: finding them is O(1), where walking
    /// its scalars to a position is O(n).
    /// The replacement goes in as a `String`: `unicodeScalars.replaceSubrange` with scalars
    /// takes the standard library's slow path (transcoding the whole string's tail).
    mutating func replace(utf8 range: Range<Int>, with scalars: [Unicode.Scalar]) {
        let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        let upper = utf8.index(lower, offsetBy: range.count)
        if scalars.isEmpty {
            removeSubrange(lower..<upper)
        } else {
            replaceSubrange(lower..<upper, with: String(scalars: scalars))
        }
    }

    /// The string of `scalars`, encoded as UTF-8 straight into its storage.
    /// `UnicodeScalarView.append(contentsOf:)` with an array of scalars takes the standard
    /// library's generic path (its scalars mapped one by one through unspecialized code),
    /// several times slower than the memory it writes; texts make strings of scalars per
    /// splice, per logged step and per whole text read (docs/TEXT.md, "Runs").
    init(scalars: some Collection<Unicode.Scalar>) {
        var bytes = 0
        for scalar in scalars { bytes += UTF8.width(scalar) }
        let isASCII = bytes == scalars.count
        self.init(unsafeUninitializedCapacity: bytes) { buffer in
            guard let start = buffer.baseAddress else { return 0 }
            let end = scalars.withContiguousStorageIfAvailable { UTF8Writer.write($0, to: start, isASCII: isASCII) }
                ?? ContiguousArray(scalars).withUnsafeBufferPointer { UTF8Writer.write($0, to: start, isASCII: isASCII) }
            return end - start
        }
    }
}
