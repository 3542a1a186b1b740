import Foundation
import Hummingbird

/// The web app: plain HTML, CSS and JavaScript from the target's resources
/// (`Sources/StrataInspector/WebApp`), read once at start. There is no build step and no
/// script from elsewhere: the page loads `app.js` and `style.css` from the inspector itself.
package struct InspectorFiles: Sendable {
    /// One file and its media type.
    package struct File: Sendable {
        /// The bytes.
        package var bytes: [UInt8]
        /// The `Content-Type`.
        package var contentType: String
    }

    private let files: [String: File]

    /// Headers every answer carries: scripts, styles and connections only from the inspector
    /// itself, no framing by another page, no guessing of media types, no caching.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        .xContentTypeOptions: "nosniff",
        .cacheControl: "no-store",
        HTTPFields.Element.Name("Referrer-Policy")!: "no-referrer",
    ]

    /// Reads the web app's files.
    /// - Throws: when a file is missing from the build's resources.
    package init() throws {
        guard let folder = Bundle.module.resourceURL?.appendingPathComponent("WebApp") else {
            throw CocoaError(.fileNoSuchFile)
        }
        var files: [String: File] = [:]
        for (name, type) in [("index.html", "text/html; charset=utf-8"), ("app.js", "text/javascript; charset=utf-8"),
                             ("style.css", "text/css; charset=utf-8")] {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            files["/" + name] = File(bytes: Array(data), contentType: type)
        }
        files["/"] = files["/index.html"]
        self.files = files
    }

    /// The file served at `path`, or nil.
    func file(at path: String) -> File? { files[path] }

    /// A string as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [])) ?? Data("[\"\"]".utf8)
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }
}
