import Strata

/// Why the inspector refused a request: the HTTP status and a message the web app shows
/// inline. A bad parameter is a 400 and a missing entity, object or save a 404, never a crash.
package struct InspectorError: Error, Sendable, Equatable {
    /// The HTTP status code (400, 404, 422 for a damaged save of the history, or 500).
    package var status: Int
    /// What went wrong, in a sentence that names the parameter or the thing asked for.
    package var message: String

    /// An error with a status and a message.
    package init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A malformed or out-of-range parameter.
    package static func badRequest(_ message: String) -> InspectorError { InspectorError(status: 400, message) }

    /// An entity, object, save or path that does not exist.
    package static func notFound(_ message: String) -> InspectorError { InspectorError(status: 404, message) }

    /// The inspector's answer to an error a document read threw: a StrataError about the
    /// request (a predicate, a name, an ID) is the caller's mistake, anything else the server's.
    package static func from(_ error: any Error) -> InspectorError {
        if let error = error as? InspectorError { return error }
        guard let error = error as? StrataError else { return InspectorError(status: 500, "\(error)") }
        switch error.code {
        case .predicateSyntax, .predicateEvaluation, .typeMismatch, .abstractEntity, .invalidArgument, .invalidObjectID, .unknownKey:
            return .badRequest(error.message)
        case .objectNotFound:
            return .notFound(error.message)
        case .corruptSegment:
            // The request is sound; the save it needs is damaged (history-only damage: the
            // document opened, docs/INSPECTOR.md "Safety").
            return InspectorError(status: 422, "The document's history is damaged: \(error.message)")
        default:
            return InspectorError(status: 500, error.message)
        }
    }
}
