import Foundation
import Strata

/// The inspector's JSON endpoints, apart from HTTP: a path and its query parameters in, a
/// status and a JSON body out. The HTTP layer (StrataInspector) forwards `GET /api/…` here,
/// and tests call it directly. Every failure is an answer (`{"error": …}` with a 4xx or
/// 500 status), never a crash.
package struct InspectorAPI: Sendable {
    /// The document shown.
    package let document: InspectorDocument

    /// An API over an open document.
    package init(document: InspectorDocument) {
        self.document = document
    }

    /// One answer: the status and the JSON text.
    package struct Answer: Sendable, Equatable {
        /// The HTTP status.
        package var status: Int
        /// The body, JSON.
        package var body: String
    }

    /// The endpoints by path, each with what it is for (`GET /api` lists them).
    package static let endpoints: [(path: String, purpose: String)] = [
        ("/api/document", "entities with object counts, the last save; at=SEQ for a past save"),
        ("/api/objects", "a page of objects: entity, where, sort, offset, limit (≤ 500), at"),
        ("/api/object", "one object's values, links and history: id=Entity/pKEY, at"),
        ("/api/timeline", "saves newest first: before, limit, author, context, entity, kind"),
        ("/api/timeline/chart", "saves per time slice: buckets"),
        ("/api/save", "one save's changes with old and new values: sequence"),
        ("/api/compare", "what changed between two saves: from, to"),
        ("/api/undo", "what Undo and Redo would do next; the latest groups: limit"),
        ("/api/file", "segments, sizes, compaction, model versions: before, limit"),
        ("/api/events", "server-sent events: the last save, when it changes"),
    ]

    /// Answers `GET path?query`.
    package func answer(path: String, parameters: [String: String]) -> Answer {
        let query = InspectorParameters(parameters)
        do {
            let body: JSONValue
            switch path {
            case "/api", "/api/": body = .array(Self.endpoints.map { .fields(["path": .string($0.path), "purpose": .string($0.purpose)]) })
            case "/api/document": body = try document.summary(at: query.sequence("at"))
            case "/api/objects": body = try document.objects(query)
            case "/api/object": body = try document.object(query)
            case "/api/timeline": body = try document.timeline(query)
            case "/api/timeline/chart": body = try document.timelineChart(query)
            case "/api/save": body = try document.save(query)
            case "/api/compare": body = try document.compare(query)
            case "/api/undo": body = try document.undo(query)
            case "/api/file": body = try document.file(query)
            default: throw InspectorError.notFound("There is no endpoint \(InspectorParameters.quoted(path)); GET /api lists them.")
            }
            return Answer(status: 200, body: body.rendered(pretty: false))
        } catch {
            let failure = InspectorError.from(error)
            return Answer(status: failure.status, body: JSONValue.fields(["error": .string(failure.message)]).rendered(pretty: false))
        }
    }

    /// Decodes a URL's query (`a=1&b=x%20y`, `+` as a space) into parameters; a repeated
    /// name keeps its last value.
    package static func parameters(fromQuery query: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            result[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }
}
