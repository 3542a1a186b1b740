import Foundation
import Hummingbird
import Synchronization
import StrataInspectorCore

/// The inspector's HTTP server: the web app's files, the JSON endpoints of ``InspectorAPI``
/// and the live event stream, on 127.0.0.1 only.
///
/// Only `GET` and `HEAD` are answered, and only for a `Host` of 127.0.0.1, localhost or
/// [::1] (a page of another site that rebinds its name to 127.0.0.1 gets a 403). Every
/// answer forbids other origins' scripts and framing (``InspectorFiles/securityHeaders``).
package struct InspectorServer: Sendable {
    /// The endpoints.
    package let api: InspectorAPI
    /// The web app's files.
    package let files: InspectorFiles
    /// Set by ``stop()``: open event streams end within a poll interval.
    let stopping = StopFlag()

    /// A server over an open document.
    /// - Throws: when the web app's files are missing from the build.
    package init(document: InspectorDocument) throws {
        api = InspectorAPI(document: document)
        files = try InspectorFiles()
    }

    /// Serves until the task is cancelled; the caller handles signals (``stop()``).
    /// - Parameters:
    ///   - port: the port to bind on 127.0.0.1; 0 takes a free one.
    ///   - onRunning: called once with the port bound.
    package func run(port: Int, onRunning: @escaping @Sendable (Int) -> Void) async throws {
        // Hummingbird logs each start at info level on standard output, where the tool prints
        // its address; warnings and errors still show.
        if ProcessInfo.processInfo.environment["LOG_LEVEL"] == nil { setenv("LOG_LEVEL", "warning", 1) }
        let server = self
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            await server.respond(to: request)
        }
        let application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "strata-inspector"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? port) })
        // No graceful shutdown on signals here: the tool handles SIGINT and SIGTERM itself
        // (an event stream never finishes, so waiting for requests in flight would hang).
        try await application.runService(gracefulShutdownSignals: [])
    }

    /// Ends the open event streams (which otherwise never finish), before the process stops.
    package func stop() { stopping.set() }

    /// The answer to one request.
    func respond(to request: Request) async -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.error(405, "The inspector only reads: \(request.method.rawValue) is not allowed.")
        }
        guard Self.isLoopback(host: request.head.authority) else {
            return Self.error(403, "The inspector answers only requests addressed to 127.0.0.1 or localhost.")
        }
        let path = request.uri.path
        if path == "/api/events" { return events() }
        if path == "/api" || path.hasPrefix("/api/") {
            let parameters = InspectorAPI.parameters(fromQuery: request.uri.query ?? "")
            let answer = await Task.detached { api.answer(path: path, parameters: parameters) }.value
            return Self.json(answer.status, answer.body)
        }
        guard let file = files.file(at: path) else { return Self.error(404, "There is no page \(path.prefix(80)).") }
        var headers = InspectorFiles.securityHeaders
        headers[.contentType] = file.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    /// How often the event stream looks for a new save.
    static let pollInterval: Duration = .milliseconds(250)

    /// `GET /api/events`: server-sent events. A `save` event (`{"lastSequence": N}`) when
    /// the document's last save changes (any process's), checked four times a second; a
    /// comment line every 15 s keeps idle connections open.
    func events() -> Response {
        var headers = InspectorFiles.securityHeaders
        headers[.contentType] = "text/event-stream"
        let document = api.document
        let stopping = self.stopping
        let body = ResponseBody { writer in
            var shown = try document.latestSequence()
            try await writer.write(ByteBuffer(string: "event: save\ndata: {\"lastSequence\":\(shown)}\n\n"))
            var quiet = 0
            while !Task.isCancelled, !stopping.isSet {
                try await Task.sleep(for: Self.pollInterval)
                let latest = try document.latestSequence()
                if latest != shown {
                    shown = latest
                    quiet = 0
                    try await writer.write(ByteBuffer(string: "event: save\ndata: {\"lastSequence\":\(latest)}\n\n"))
                } else {
                    quiet += 1
                    if quiet % 60 == 0 { try await writer.write(ByteBuffer(string: ": still here\n\n")) }
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Whether a `Host` names the loopback interface (with any port).
    static func isLoopback(host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        let name: Substring
        if host.hasPrefix("[") {
            name = host.prefix { $0 != "]" }.dropFirst()
        } else {
            name = host.prefix { $0 != ":" }
        }
        return name == "127.0.0.1" || name == "localhost" || name == "::1"
    }

    /// A JSON answer.
    static func json(_ status: Int, _ body: String) -> Response {
        var headers = InspectorFiles.securityHeaders
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// A JSON error answer.
    static func error(_ status: Int, _ message: String) -> Response {
        json(status, "{\"error\":" + InspectorFiles.jsonString(message) + "}")
    }
}

/// A flag set once, read from any thread.
final class StopFlag: Sendable {
    private let value = Mutex(false)

    /// Whether ``set()`` was called.
    var isSet: Bool { value.withLock { $0 } }

    /// Sets the flag.
    func set() { value.withLock { $0 = true } }
}
