/// Splits SOQL text into tokens. Newlines are whitespace; lines and columns are tracked for errors.
struct Lexer {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var location: SourceLocation {
        SourceLocation(line: line, column: index - lineStart + 1, offset: index)
    }

    static func tokens(_ text: String) throws(SOQLError) -> [Token] {
        try tokens(Lexer(text))
    }

    static func tokens(_ lexer: Lexer) throws(SOQLError) -> [Token] {
        var lexer = lexer
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .endOfInput { return tokens }
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            case 0x20, 0x09, 0x0D:
                index += 1
            default:
                return
            }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isWordStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }

    private static func isWordByte(_ byte: UInt8) -> Bool { isWordStart(byte) || isDigit(byte) }

    private func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    mutating func next() throws(SOQLError) -> Token {
        skipWhitespace()
        let start = location
        guard let byte = peek() else { return Token(kind: .endOfInput, location: start) }
        if Self.isWordStart(byte) {
            let begin = index
            while let next = peek(), Self.isWordByte(next) { index += 1 }
            return Token(kind: .word(String(decoding: bytes[begin..<index], as: UTF8.self)), location: start)
        }
        if Self.isDigit(byte) || (byte == UInt8(ascii: "-") && peek(1).map(Self.isDigit) == true) {
            return try numberOrDate(start)
        }
        if byte == UInt8(ascii: "'") {
            return try string(start)
        }
        let twoByte = peek(1).map { String(decoding: [byte, $0], as: UTF8.self) }
        if let twoByte, ["!=", "<>", "<=", ">="].contains(twoByte) {
            index += 2
            return Token(kind: .symbol(twoByte), location: start)
        }
        if "(),.:=<>".utf8.contains(byte) {
            index += 1
            return Token(kind: .symbol(String(UnicodeScalar(byte))), location: start)
        }
        let scalarText = String(decoding: bytes[index..<min(bytes.count, index + 1)], as: UTF8.self)
        throw SOQLError(.malformedQuery, "unexpected token: \(scalarText)", at: start)
    }

    private mutating func digits() -> String {
        let begin = index
        while let next = peek(), Self.isDigit(next) { index += 1 }
        return String(decoding: bytes[begin..<index], as: UTF8.self)
    }

    /// Numbers, dates (`2024-01-02`) and datetimes (`2024-01-02T03:04:05.000+0000`).
    private mutating func numberOrDate(_ start: SourceLocation) throws(SOQLError) -> Token {
        let begin = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        let first = digits()
        // A date: 4 digits, '-', 2 digits, '-', 2 digits (never negative).
        if begin == index - first.count, first.count == 4, peek() == UInt8(ascii: "-"), peek(1).map(Self.isDigit) == true {
            index += 1
            guard digits().count == 2, peek() == UInt8(ascii: "-") else { throw malformedDate(begin, start) }
            index += 1
            guard digits().count == 2 else { throw malformedDate(begin, start) }
            if peek() == UInt8(ascii: "T") {
                index += 1
                try timePart(begin, start)
                return Token(kind: .dateTime(String(decoding: bytes[begin..<index], as: UTF8.self)), location: start)
            }
            return Token(kind: .date(String(decoding: bytes[begin..<index], as: UTF8.self)), location: start)
        }
        if peek() == UInt8(ascii: "."), peek(1).map(Self.isDigit) == true {
            index += 1
            _ = digits()
        }
        if let next = peek(), Self.isWordStart(next) {
            throw SOQLError(.malformedQuery, "unexpected token: \(String(decoding: bytes[begin...index], as: UTF8.self))", at: start)
        }
        return Token(kind: .number(String(decoding: bytes[begin..<index], as: UTF8.self)), location: start)
    }

    private mutating func twoDigits() -> Bool {
        guard let first = peek(), let second = peek(1), Self.isDigit(first), Self.isDigit(second) else { return false }
        index += 2
        return true
    }

    /// `hh:mm:ss[.fff](Z|±hh[:]mm)`.
    private mutating func timePart(_ begin: Int, _ start: SourceLocation) throws(SOQLError) {
        guard digits().count == 2, peek() == UInt8(ascii: ":") else { throw malformedDate(begin, start) }
        index += 1
        guard digits().count == 2, peek() == UInt8(ascii: ":") else { throw malformedDate(begin, start) }
        index += 1
        guard digits().count == 2 else { throw malformedDate(begin, start) }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard !digits().isEmpty else { throw malformedDate(begin, start) }
        }
        switch peek() {
        case UInt8(ascii: "Z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            index += 1
            guard twoDigits() else { throw malformedDate(begin, start) }
            if peek() == UInt8(ascii: ":") { index += 1 }
            guard twoDigits(), peek().map(Self.isDigit) != true else { throw malformedDate(begin, start) }
        default:
            throw malformedDate(begin, start)
        }
        if let next = peek(), Self.isWordByte(next) { throw malformedDate(begin, start) }
    }

    private func malformedDate(_ begin: Int, _ start: SourceLocation) -> SOQLError {
        var end = index
        while end < bytes.count,
            !(bytes[end] == 0x20 || bytes[end] == 0x0A || bytes[end] == UInt8(ascii: ")") || bytes[end] == UInt8(ascii: ","))
        {
            end += 1
        }
        return SOQLError(
            .malformedQuery,
            "line \(start.line):\(start.column) no viable alternative at character '\(String(decoding: bytes[begin..<end], as: UTF8.self))'",
            at: start)
    }

    /// A single-quoted string with backslash escapes: `\n \r \t \b \f \" \' \\` (either case),
    /// and `\% \_` (literal wildcards, meaningful in LIKE).
    private mutating func string(_ start: SourceLocation) throws(SOQLError) -> Token {
        index += 1
        var value: [UInt8] = []
        var like: [UInt8] = []
        while let byte = peek() {
            index += 1
            switch byte {
            case UInt8(ascii: "'"):
                return Token(
                    kind: .string(value: String(decoding: value, as: UTF8.self), likePattern: String(decoding: like, as: UTF8.self)),
                    location: start)
            case UInt8(ascii: "\\"):
                guard let escaped = peek() else { break }
                index += 1
                let decoded: UInt8
                switch escaped {
                case UInt8(ascii: "n"), UInt8(ascii: "N"): decoded = 0x0A
                case UInt8(ascii: "r"), UInt8(ascii: "R"): decoded = 0x0D
                case UInt8(ascii: "t"), UInt8(ascii: "T"): decoded = 0x09
                case UInt8(ascii: "b"), UInt8(ascii: "B"): decoded = 0x08
                case UInt8(ascii: "f"), UInt8(ascii: "F"): decoded = 0x0C
                case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"): decoded = escaped
                case UInt8(ascii: "%"), UInt8(ascii: "_"):
                    value.append(escaped)
                    like.append(contentsOf: [UInt8(ascii: "\\"), escaped])
                    continue
                default:
                    throw SOQLError(
                        .malformedQuery, "Invalid string literal: illegal escape sequence '\\\(UnicodeScalar(escaped))'", at: start)
                }
                value.append(decoded)
                like.append(decoded == UInt8(ascii: "\\") ? UInt8(ascii: "\\") : decoded)
                if decoded == UInt8(ascii: "\\") { like.append(UInt8(ascii: "\\")) }
            case 0x0A:
                line += 1
                lineStart = index
                value.append(byte)
                like.append(byte)
            default:
                value.append(byte)
                like.append(byte)
            }
        }
        throw SOQLError(.malformedQuery, "unexpected token: <EOF> (unterminated string)", at: start)
    }
}
