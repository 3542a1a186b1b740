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
        // FoundationXML traps on invalid UTF-8 in names and attribute values, so check first.
        // Xcode writes UTF-8 only.
        if let offset = firstInvalidUTF8Offset(in: data) {
            let line = data.prefix(offset).reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw StrataError(
                .modelFile, "Malformed Xcode model XML in \(file) at line \(line): the text is not valid UTF-8 (byte \(offset)).",
                context: ["file": file, "line": String(line), "offset": String(offset)])
        }
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

/// The offset of the first byte that is not part of well-formed UTF-8 (no overlong forms,
/// no surrogates, nothing above U+10FFFF), or nil when all of `data` is well formed.
func firstInvalidUTF8Offset(in data: Data) -> Int? {
    let bytes = [UInt8](data)
    var index = 0
    while index < bytes.count {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: index += 1; continue
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return index
        }
        guard index + length <= bytes.count else { return index }
        for position in 1..<length {
            let byte = bytes[index + position]
            let range: ClosedRange<UInt8> = position == 1 ? low...high : 0x80...0xBF
            if !range.contains(byte) { return index }
        }
        index += length
    }
    return nil
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
