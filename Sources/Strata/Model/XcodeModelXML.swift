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
    /// - Throws: ``StrataStorage/StrataError`` `.modelFile` with the parser's message, `line` and `column`.
    static func parse(_ data: Data, file: String) throws -> XcodeModelElement {
        // FoundationXML traps on invalid UTF-8 in names and attribute values, so check first.
        // Xcode writes UTF-8 only.
        if let offset = firstInvalidUTF8Offset(in: data) {
            let line = data.prefix(offset).reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw StrataError(
                .modelFile, "\(file):\(line): XML syntax error: the text is not valid UTF-8 (byte \(offset))",
                context: .init { $0.path = file; $0.offset = offset; $0.line = line })
        }
        // FoundationXML also dereferences the NULL data libxml2 reports for a processing
        // instruction without any (`<?xml?>`, `<?pi?>`); Xcode writes none.
        if let offset = firstEmptyProcessingInstructionOffset(in: data) {
            let line = data.prefix(offset).reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw StrataError(
                .modelFile, "\(file):\(line): XML syntax error: a processing instruction without data (byte \(offset)); an Xcode model has only its <?xml version=\"1.0\" …?> declaration",
                context: .init { $0.path = file; $0.offset = offset; $0.line = line })
        }
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let builder = _XcodeModelTreeBuilder()
        parser.delegate = builder
        let succeeded = parser.parse()
        if let failure = builder.failure { throw failure.error(file: file) }
        guard succeeded, let root = builder.root else {
            // One line an editor can jump to, in our words: Foundation's own description is
            // "NSXMLParserErrorDomain error 5".
            let code = (parser.parserError as NSError?)?.code
            let reason = code.map(xmlSyntaxReason) ?? "the document has no root element"
            let line = max(1, parser.lineNumber), column = max(1, parser.columnNumber)
            throw StrataError(.modelFile, "\(file):\(line):\(column): XML syntax error: \(reason)",
                              context: .init { $0.path = file; $0.line = line; $0.column = column; $0.xmlErrorCode = code })
        }
        return root
    }
}

/// What an `XMLParser` error code means, in words. FoundationXML passes on libxml2's
/// numbers (`XMLParser.ErrorCode` has the same values); an unlisted code is named by its
/// number.
func xmlSyntaxReason(_ code: Int) -> String {
    switch code {
    case 4: return "the document is empty"
    case 5: return "the document ends before every element is closed"
    case 9: return "a character that XML does not allow"
    case 6, 7, 8: return "an invalid character reference"
    case 26: return "an undeclared entity"
    case 38: return "'<' inside an attribute value"
    case 39: return "an attribute value must start with a quote"
    case 40: return "an attribute value is not closed"
    case 41: return "an attribute has no value"
    case 42: return "an attribute appears twice in one element"
    case 43, 44: return "a quoted string is not closed"
    case 45: return "a comment is not closed"
    case 46, 47: return "a malformed processing instruction"
    case 56, 57: return "a malformed <?xml …?> declaration"
    case 65: return "whitespace expected between attributes"
    case 68: return "an element or attribute name expected"
    case 72: return "'<' expected"
    case 73: return "'>' expected to end a tag"
    case 74: return "'</' expected to close an element"
    case 75: return "'=' expected after an attribute name"
    case 76: return "a closing tag does not match the element it closes"
    case 77: return "a tag is not finished"
    case 85: return "elements are not well nested"
    case 86: return "text or elements after the root element"
    default: return "the XML is malformed (parser error \(code))"
    }
}

/// The offset of the first `<?target?>` (a processing instruction with no data), or nil.
func firstEmptyProcessingInstructionOffset(in data: Data) -> Int? {
    let bytes = [UInt8](data)
    var index = 0
    while index + 1 < bytes.count {
        defer { index += 1 }
        guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else { continue }
        // The target runs to whitespace or `?`; `?>` right after it means no data at all.
        var end = index + 2
        while end < bytes.count, ![UInt8(ascii: " "), 0x09, 0x0A, 0x0D, UInt8(ascii: "?")].contains(bytes[end]) { end += 1 }
        if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "?"), bytes[end + 1] == UInt8(ascii: ">") { return index }
    }
    return nil
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
            StrataError(.modelFile, "\(file):\(line): XML error: \(reason)",
                        context: .init { $0.path = file; $0.line = line })
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
