import Foundation
import StrataTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A running `strata-inspector` process, killed when released, and a small HTTP/1.1
/// client that talks to it over a plain socket (so a test can send any method and `Host`).
final class InspectorProcess: @unchecked Sendable {
    let process: SpawnedProcess
    let port: Int
    private let output: TemporaryDirectory

    /// Starts the inspector on `document` (with `environment` added to this process's) and
    /// waits (up to 60 s) for the address it prints.
    convenience init(document: URL, environment: [String: String] = [:]) throws {
        try self.init(argument: document.path, environment: environment)
    }

    /// Starts the inspector on `argument`: a path or a postgres:// document URL, followed by
    /// `options`.
    init(argument: String, options: [String] = [], environment: [String: String] = [:]) throws {
        output = try TemporaryDirectory()
        let stdout = output.path("stdout"), stderr = output.path("stderr")
        process = try SpawnedProcess(builtExecutable("strata-inspector").path, [argument] + options, stdin: nil, stdout: stdout, stderr: stderr,
                                     environment: environment)
        let deadline = Date().addingTimeInterval(60)
        while true {
            let printed = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
            if let range = printed.range(of: "http://127.0.0.1:"),
               let port = Int(printed[range.upperBound...].prefix { $0.isNumber }), printed[range.upperBound...].contains("/") {
                self.port = port
                return
            }
            if Date() > deadline || kill(process.pid, 0) != 0 {
                let errors = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
                kill(process.pid, SIGKILL)
                _ = process.wait(deadline: 5)
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the inspector did not start: \(printed) \(errors)"])
            }
            usleep(50_000)
        }
    }

    /// Sends SIGTERM and waits for the end.
    func terminate() -> SpawnedProcess.Ending {
        kill(process.pid, SIGTERM)
        return process.wait(deadline: 10)
    }

    /// Asks the inspector to stop (SIGTERM: it closes the document and removes its scratch
    /// folder); one still running after 10 s is killed.
    deinit {
        kill(process.pid, SIGTERM)
        _ = process.wait(deadline: 10)
    }

    /// One HTTP answer.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] }
    }

    /// Sends one request and reads the whole answer (the connection is closed after it).
    func request(_ target: String, method: String = "GET", host: String? = nil) throws -> Answer {
        let socket = try connect()
        defer { close(socket) }
        try send(socket, "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n\r\n")
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return try Self.parse(received)
    }

    /// Opens the event stream and returns the `data:` of each `save` event as it arrives,
    /// until `enough` says stop or `timeout` passes.
    func events(timeout: TimeInterval, until enough: ([String]) -> Bool, meanwhile: () throws -> Void) throws -> [String] {
        let socket = try connect()
        defer { close(socket) }
        var wait = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        try send(socket, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        var text = "", events: [String] = [], acted = false
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 { text += String(decoding: buffer[0..<count], as: UTF8.self) }
            events = text.components(separatedBy: "\n").filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
            if !acted, !events.isEmpty {
                acted = true
                try meanwhile()
            }
            if enough(events) { break }
        }
        return events
    }

    private func connect() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot connect to 127.0.0.1:\(port)"])
        }
        return socket
    }

    private func send(_ socket: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(socket, bytes, bytes.count, 0) == bytes.count else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot send the request"])
        }
    }

    /// Splits a response into its status, headers (names lowercased) and body (chunked
    /// bodies joined).
    static func parse(_ bytes: [UInt8]) throws -> Answer {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw CocoaError(.fileReadCorruptFile) }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" {
            var joined = "", rest = Substring(body)
            while let end = rest.range(of: "\r\n"), let size = Int(rest[..<end.lowerBound], radix: 16), size > 0 {
                let start = rest.utf8.index(end.upperBound, offsetBy: 0)
                let chunkEnd = rest.utf8.index(start, offsetBy: size)
                joined += String(rest[start..<chunkEnd])
                rest = rest[chunkEnd...].dropFirst(2)
            }
            body = joined
        }
        return Answer(status: status, headers: headers, body: body)
    }
}
