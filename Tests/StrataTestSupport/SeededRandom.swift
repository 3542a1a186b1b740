import Foundation

// The one seeded generator and the one seed policy of every random test and child
// program (docs/RELIABILITY.md): a failing run prints its seed, and `STRATA_SEED` replays it.

/// A small, seedable generator (SplitMix64): the same seed gives the same choices, so a
/// random test can be replayed.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed of a random test, printed so a failure can be replayed: `STRATA_SEED` when
/// set; else a fresh one when `STRATA_RANDOM_SEEDS=1` (to explore); else one fixed per
/// label, so CI is repeatable.
package func testSeed(_ label: String) -> UInt64 {
    let environment = ProcessInfo.processInfo.environment
    let fixed = label.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 } % UInt64(UInt32.max)
    let seed = environment["STRATA_SEED"].flatMap { UInt64($0) }
        ?? (environment["STRATA_RANDOM_SEEDS"] == "1" ? UInt64.random(in: 0...UInt64(UInt32.max)) : fixed)
    print("\(label) seed: \(seed) (replay with STRATA_SEED=\(seed))")
    return seed
}
