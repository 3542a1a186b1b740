import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of an Xcode model's `contents` XML: its name, attributes, children and the
/// line it starts on.
struct XcodeModelElement {
    var name: String
    var attributes: [String: String]
    var children: [XcodeModelElement] = []
    var line: Int

    /// The children with a given element name, in document order.
    func children(named name: String) -> [XcodeModelElement] { children.filter { $0.name == name } }

    /// Whether an Xcode boolean attribute is "YES".
    func flag(_ name: String) -> Bool { attributes[name] == "YES" }
}

extension XcodeModelElement {
    /// The deepest element nesting accepted; a model needs five levels.
    static let maximumDepth = 32

    /// Parses XML into its root element with FoundationXML's `XMLParser`.
    ///
    /// External entities are not resolved.
    /// - Throws: ``StrataError`` `.modelFile` with the parser's message, `line` and `column`.
    static func parse(_ data: Data, file: String) throws -> XcodeModelElement {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let builder = _XcodeModelTreeBuilder()
        parser.delegate = builder
        let succeeded = parser.parse()
        if let failure = builder.failure { throw failure.error(file: file) }
        guard succeeded, let root = builder.root else {
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "the XML is malformed"
            throw StrataError(
                .modelFile,
                "Malformed Xcode model XML in \(file) at line \(parser.lineNumber), column \(parser.columnNumber): \(reason).",
                context: ["file": file, "line": String(parser.lineNumber), "column": String(parser.columnNumber)])
        }
        return root
    }
}

/// Collects the element tree while `XMLParser` runs; stops the parse on excessive depth.
final class _XcodeModelTreeBuilder: NSObject, XMLParserDelegate {
    struct Failure {
        var reason: String
        var line: Int
        func error(file: String) -> StrataError {
            StrataError(.modelFile, "Malformed Xcode model XML in \(file) at line \(line): \(reason).",
                        context: ["file": file, "line": String(line)])
        }
    }

    private var stack: [XcodeModelElement] = []
    private(set) var root: XcodeModelElement?
    private(set) var failure: Failure?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        guard failure == nil else { return }
        if stack.count >= XcodeModelElement.maximumDepth {
            failure = Failure(reason: "elements nest deeper than \(XcodeModelElement.maximumDepth) levels",
                              line: parser.lineNumber)
            parser.abortParsing()
            return
        }
        if root != nil, stack.isEmpty {
            failure = Failure(reason: "a second root element <\(elementName)>", line: parser.lineNumber)
            parser.abortParsing()
            return
        }
        stack.append(XcodeModelElement(name: elementName, attributes: attributeDict, line: parser.lineNumber))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard failure == nil, let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
