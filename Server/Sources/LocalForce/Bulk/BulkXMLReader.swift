/// An element of an XML document the Bulk API 1.0 reads (a job's info, a batch of records):
/// its local name (without a namespace prefix), its attributes by local name, its child
/// elements, and its text (character data and CDATA, entities decoded).
package struct BulkXMLElement: Sendable, Equatable {
    /// The local name.
    package var name: String
    /// The attributes by local name.
    package var attributes: [String: String] = [:]
    /// The child elements in order.
    package var children: [BulkXMLElement] = []
    /// The character data, all of it.
    package var text = ""

    /// An element from its parts.
    package init(name: String, attributes: [String: String] = [:], children: [BulkXMLElement] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The text of the first child element of that name (nil when there is none).
    func childText(_ name: String) -> String? {
        children.first { $0.name == name }?.text
    }

    /// Whether the element is `xsi:nil="true"` (a null value).
    var isNil: Bool { attributes["nil"] == "true" }
}

/// Why an XML body could not be read, with where.
package struct BulkXMLError: Error, Equatable {
    /// What is wrong, and at which byte.
    package let message: String
}

/// A small, strict reader of the XML the Bulk API 1.0 takes: elements, attributes, text, CDATA,
/// comments and processing instructions; the five named entities and character references.
/// A document type declaration is refused (no entity can expand), nesting is limited to
/// ``maximumDepth``, and the work is linear in the input's size (no recursion, no rescans).
package struct BulkXMLReader {
    /// The deepest nesting read; Bulk documents need three or four levels.
    package static let maximumDepth = 32

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The document's root element, or why the bytes are not a document this reader takes.
    package static func parse(_ bytes: [UInt8]) throws(BulkXMLError) -> BulkXMLElement {
        var reader = BulkXMLReader(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        try reader.skipMisc()
        guard reader.peek(0) == UInt8(ascii: "<") else { throw reader.failure("expected the root element") }
        let root = try reader.element()
        try reader.skipMisc()
        guard reader.index == bytes.count else { throw reader.failure("content after the root element") }
        return root
    }

    private func peek(_ offset: Int) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private func failure(_ what: String) -> BulkXMLError {
        BulkXMLError(message: "Invalid XML at byte \(index): \(what)")
    }

    private func hasPrefix(_ text: String) -> Bool {
        var offset = 0
        for byte in text.utf8 {
            guard peek(offset) == byte else { return false }
            offset += 1
        }
        return true
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private mutating func skipSpaces() {
        while let byte = peek(0), Self.isSpace(byte) { index += 1 }
    }

    /// Skips past `terminator`, or fails with `what` at the end of the input.
    private mutating func skip(past terminator: String, _ what: String) throws(BulkXMLError) {
        while index < bytes.count {
            if hasPrefix(terminator) {
                index += terminator.utf8.count
                return
            }
            index += 1
        }
        throw failure("unterminated \(what)")
    }

    /// Whitespace, comments and processing instructions (the XML declaration among them)
    /// outside the root element; a document type declaration is refused.
    private mutating func skipMisc() throws(BulkXMLError) {
        while true {
            skipSpaces()
            if hasPrefix("<?") {
                try skip(past: "?>", "processing instruction")
            } else if hasPrefix("<!--") {
                try skip(past: "-->", "comment")
            } else if hasPrefix("<!") {
                throw failure("a document type declaration is not allowed")
            } else {
                return
            }
        }
    }

    private mutating func name() throws(BulkXMLError) -> String {
        let start = index
        while let byte = peek(0), !Self.isSpace(byte), !"/>=<\"'".utf8.contains(byte) { index += 1 }
        guard index > start else { throw failure("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private static func localName(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }

    /// A start tag's attributes, up to its `>` or `/>`; whether the element is empty.
    private mutating func attributes(into element: inout BulkXMLElement) throws(BulkXMLError) -> Bool {
        while true {
            skipSpaces()
            if hasPrefix("/>") {
                index += 2
                return true
            }
            if peek(0) == UInt8(ascii: ">") {
                index += 1
                return false
            }
            let attribute = try name()
            skipSpaces()
            guard peek(0) == UInt8(ascii: "=") else { throw failure("expected = after \(attribute)") }
            index += 1
            skipSpaces()
            guard let quote = peek(0), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw failure("expected a quoted value for \(attribute)")
            }
            index += 1
            let start = index
            while let byte = peek(0), byte != quote {
                guard byte != UInt8(ascii: "<") else { throw failure("< in an attribute value") }
                index += 1
            }
            guard index < bytes.count else { throw failure("unterminated attribute value") }
            element.attributes[Self.localName(attribute)] = try Self.decode(bytes[start..<index])
            index += 1
        }
    }

    /// One element and everything in it, read with an explicit stack.
    private mutating func element() throws(BulkXMLError) -> BulkXMLElement {
        var stack: [(qualified: String, element: BulkXMLElement)] = []
        while true {
            // At a start tag.
            index += 1
            let qualified = try name()
            var element = BulkXMLElement(name: Self.localName(qualified))
            if try attributes(into: &element) {
                if let done = Self.close(element, into: &stack) { return done }
            } else {
                guard stack.count < Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) elements") }
                stack.append((qualified, element))
            }
            // Content until the next start tag (or the end of the root).
            if let done = try content(&stack) { return done }
        }
    }

    /// Reads text, comments, CDATA and end tags of the open elements until a start tag (nil)
    /// or the root's end (the root).
    private mutating func content(_ stack: inout [(qualified: String, element: BulkXMLElement)]) throws(BulkXMLError) -> BulkXMLElement? {
        while true {
            guard !stack.isEmpty else { return nil }
            let start = index
            while let byte = peek(0), byte != UInt8(ascii: "<") { index += 1 }
            if index > start { stack[stack.count - 1].element.text += try Self.decode(bytes[start..<index]) }
            guard index < bytes.count else { throw failure("unterminated element \(stack[stack.count - 1].qualified)") }
            if hasPrefix("<!--") {
                try skip(past: "-->", "comment")
            } else if hasPrefix("<![CDATA[") {
                index += 9
                let begin = index
                try skip(past: "]]>", "CDATA section")
                stack[stack.count - 1].element.text += String(decoding: bytes[begin..<(index - 3)], as: UTF8.self)
            } else if hasPrefix("<?") {
                try skip(past: "?>", "processing instruction")
            } else if hasPrefix("<!") {
                throw failure("a declaration is not allowed inside an element")
            } else if hasPrefix("</") {
                index += 2
                let closing = try name()
                skipSpaces()
                guard peek(0) == UInt8(ascii: ">") else { throw failure("expected > after </\(closing)") }
                index += 1
                guard let open = stack.popLast(), open.qualified == closing else {
                    throw failure("</\(closing)> does not close the open element")
                }
                if let done = Self.close(open.element, into: &stack) { return done }
            } else {
                return nil
            }
        }
    }

    /// Adds a finished element to its parent; the element itself when it is the root.
    private static func close(
        _ element: BulkXMLElement, into stack: inout [(qualified: String, element: BulkXMLElement)]
    ) -> BulkXMLElement? {
        guard !stack.isEmpty else { return element }
        stack[stack.count - 1].element.children.append(element)
        return nil
    }

    /// Text with its entity and character references replaced.
    private static func decode(_ slice: ArraySlice<UInt8>) throws(BulkXMLError) -> String {
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var position = slice.startIndex
        while position < slice.endIndex {
            let byte = slice[position]
            guard byte == UInt8(ascii: "&") else {
                out.append(byte)
                position += 1
                continue
            }
            guard let end = slice[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw BulkXMLError(message: "Invalid XML: an & that starts no reference")
            }
            let reference = String(decoding: slice[(position + 1)..<end], as: UTF8.self)
            guard let scalar = entity(reference) else {
                throw BulkXMLError(message: "Invalid XML: unknown reference &\(reference);")
            }
            out += Array(String(scalar).utf8)
            position = end + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func entity(_ reference: String) -> Unicode.Scalar? {
        switch reference {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let number: UInt32?
            if reference.hasPrefix("#x") {
                number = UInt32(reference.dropFirst(2), radix: 16)
            } else if reference.hasPrefix("#") {
                number = UInt32(reference.dropFirst(), radix: 10)
            } else {
                number = nil
            }
            guard let number, number != 0, let scalar = Unicode.Scalar(number) else { return nil }
            return scalar
        }
    }
}
