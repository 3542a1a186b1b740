import Foundation

extension TextSequence {
    /// Where a run starts, for the peer index: the run's first counter and its chunk's key.
    struct RunStart: Sendable, Equatable {
        var counter: UInt32
        var chunk: Int
    }

    /// One peer's run starts, sorted by first counter, in buckets of at most
    /// ``bucketCapacity`` (docs/TEXT.md, "Runs"): the index that finds the run of an
    /// identity.
    ///
    /// Every split of a run adds a start in the middle of its peer's counters (typing inside
    /// one's own earlier words does so per keystroke), so one sorted array moved every later
    /// start per split — O(runs) a keystroke. A bucket moves at most ``bucketCapacity``, and
    /// a full one splits in two; a small array of each bucket's first counter finds the
    /// bucket, so a lookup touches no other bucket's storage.
    struct RunStarts: Sendable {
        static let bucketCapacity = 128

        /// Non-empty buckets, each sorted, each one's counters above the one's before.
        private var buckets: [[RunStart]] = []
        /// `buckets[i][0].counter`, for the search of a bucket.
        private var firsts: [UInt32] = []

        /// The starts, in order (for tests and checks).
        var all: [RunStart] { buckets.flatMap { $0 } }

        /// The index of the last bucket whose first start is at or before `counter`
        /// (0 when none is: the first bucket).
        private func bucket(atOrBefore counter: UInt32) -> Int {
            var low = 0, high = firsts.count
            while low < high {
                let middle = (low + high) / 2
                if firsts[middle] <= counter { low = middle + 1 } else { high = middle }
            }
            return max(low - 1, 0)
        }

        /// The position in `bucket` of the last start at or before `counter` (-1 when none
        /// is).
        private func index(in bucket: Int, atOrBefore counter: UInt32) -> Int {
            var low = 0, high = buckets[bucket].count
            while low < high {
                let middle = (low + high) / 2
                if buckets[bucket][middle].counter <= counter { low = middle + 1 } else { high = middle }
            }
            return low - 1
        }

        /// The last start at or before `counter`: that of the run holding the character
        /// `counter` of the peer, when the text holds it.
        /// - Precondition: some start is at or before `counter`.
        func last(atOrBefore counter: UInt32) -> RunStart {
            let bucket = bucket(atOrBefore: counter)
            let index = index(in: bucket, atOrBefore: counter)
            precondition(index >= 0, "no run of the peer starts at or before \(counter)")
            return buckets[bucket][index]
        }

        /// Adds a start, before any start with an equal counter.
        mutating func insert(_ start: RunStart) {
            // Typing at the end of one's own text adds the highest counter so far: appended.
            if let lastBucket = buckets.indices.last, let last = buckets[lastBucket].last, last.counter < start.counter {
                if buckets[lastBucket].count < Self.bucketCapacity {
                    buckets[lastBucket].append(start)
                } else {
                    buckets.append([start])
                    firsts.append(start.counter)
                }
                return
            }
            guard !buckets.isEmpty else {
                buckets = [[start]]
                firsts = [start.counter]
                return
            }
            let bucket = bucket(atOrBefore: start.counter)
            var low = 0, high = buckets[bucket].count
            while low < high {
                let middle = (low + high) / 2
                if buckets[bucket][middle].counter < start.counter { low = middle + 1 } else { high = middle }
            }
            buckets[bucket].insert(start, at: low)
            if low == 0 { firsts[bucket] = start.counter }
            if buckets[bucket].count > Self.bucketCapacity {
                let half = buckets[bucket].count / 2
                let upper = Array(buckets[bucket][half...])
                buckets[bucket].removeSubrange(half...)
                buckets.insert(upper, at: bucket + 1)
                firsts.insert(upper[0].counter, at: bucket + 1)
            }
        }

        /// Points the start of the run holding `counter` to the chunk keyed `chunk` (its run
        /// moved there when a chunk split).
        mutating func repoint(_ counter: UInt32, to chunk: Int) {
            let bucket = bucket(atOrBefore: counter)
            let index = index(in: bucket, atOrBefore: counter)
            precondition(index >= 0, "no run of the peer starts at or before \(counter)")
            buckets[bucket][index].chunk = chunk
        }
    }
}
