import Foundation
import Observation

/// The results take part in Swift's Observation: a read of ``FetchedResultsController/fetchedObjects``,
/// ``FetchedResultsController/sections`` or ``FetchedResultsController/numberOfSections``
/// inside `withObservationTracking` (or a SwiftUI view's body) is told when the results
/// change — after ``FetchedResultsController/performFetch()`` and after each change the
/// controller applies (the same moments its delegate and ``FetchedResultsController/changes()``
/// hear of).
extension FetchedResultsController: Observable {}

extension FetchedResultsController {
    /// What tracked reads depend on: the results as a whole.
    var observedResults: Int { 0 }

    func observeResults() {
        observationRegistrar.access(self, keyPath: \.observedResults)
    }

    func announceResultsChanged() {
        observationRegistrar.willSet(self, keyPath: \.observedResults)
        observationRegistrar.didSet(self, keyPath: \.observedResults)
    }
}
