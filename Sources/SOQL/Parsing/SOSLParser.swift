/// Parses SOSL: `FIND {terms} [IN ALL|NAME|EMAIL|PHONE|SIDEBAR FIELDS]
/// [RETURNING Object [(fields [WHERE …] [ORDER BY …] [LIMIT n] [OFFSET n])], …] [LIMIT n] [OFFSET n]`.
public enum SOSLParser {
    /// Parses a SOSL search.
    ///
    /// - Throws: ``SOQLError`` with Salesforce's code and the position of the problem.
    public static func parse(_ text: String) throws(SOQLError) -> SearchQuery {
        try SOQLParser.checkLength(text, of: "SOSL")
        var bytes = Array(text.utf8)
        let (searchText, braces) = try extractSearchText(bytes)
        // Blank the braces out so the rest lexes with its real positions.
        for index in braces { bytes[index] = 0x20 }
        var parser = TokenParser(tokens: try Lexer.tokens(Lexer(bytes: bytes)))
        guard parser.accept("FIND") else { throw parser.unexpected() }
        var query = SearchQuery(searchText: searchText, expression: try SearchTextParser.parse(searchText))
        if parser.accept("IN") {
            guard let keyword = parser.current.keyword, let scope = SearchQuery.Scope(rawValue: keyword) else { throw parser.unexpected() }
            parser.advance()
            try parser.expect("FIELDS")
            query.scope = scope
        }
        if parser.accept("RETURNING") {
            repeat { query.returning.append(try returningObject(&parser)) } while parser.acceptSymbol(",")
        }
        if parser.accept("LIMIT") { query.limit = try parser.integer() }
        if parser.isKeyword("OFFSET") {
            let location = parser.current.location
            parser.advance()
            let offset = try parser.integer()
            guard offset <= 2000 else { throw SOQLError(.numberOutsideValidRange, "Maximum SOSL offset allowed is 2000", at: location) }
            query.offset = offset
        }
        try parser.expectEnd()
        return query
    }

    /// Parses search terms alone (the text of `FIND {…}`, or `q` of a parameterized search).
    public static func parseSearchTerms(_ text: String) throws(SOQLError) -> SearchExpression {
        try SOQLParser.checkLength(text, of: "SOSL")
        return try SearchTextParser.parse(text)
    }

    private static func returningObject(_ parser: inout TokenParser) throws(SOQLError) -> ReturningObject {
        var object = ReturningObject(object: try parser.identifier())
        guard parser.acceptSymbol("(") else { return object }
        repeat { object.fields.append(try parser.fieldPath()) } while parser.acceptSymbol(",")
        if parser.accept("WHERE") { object.condition = try parser.condition() }
        if parser.isKeyword("ORDER") { object.orderBy = try parser.orderBy() }
        if parser.accept("LIMIT") { object.limit = try parser.integer() }
        if parser.accept("OFFSET") { object.offset = try parser.integer() }
        try parser.expectSymbol(")")
        return object
    }

    /// The text between `FIND {` and the matching `}` (`\}` does not close), and the byte
    /// positions of the whole `{…}`.
    private static func extractSearchText(_ bytes: [UInt8]) throws(SOQLError) -> (String, Range<Int>) {
        guard let open = bytes.firstIndex(of: UInt8(ascii: "{")) else {
            throw SOQLError(
                .malformedQuery, "unexpected token: search text must be enclosed in braces",
                at: SourceLocation(line: 1, column: 1, offset: 0))
        }
        var index = open + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                return (String(decoding: bytes[(open + 1)..<index], as: UTF8.self), open..<(index + 1))
            }
            index += 1
        }
        throw SOQLError(
            .malformedQuery, "unexpected token: <EOF> (unterminated search text)",
            at: SourceLocation(line: 1, column: open + 1, offset: open))
    }
}

/// Parses the terms between the braces: words, "phrases", AND, OR, AND NOT, parentheses;
/// `\` escapes the next character.
enum SearchTextParser {
    enum Piece: Equatable {
        case word(String)
        case phrase(String)
        case open
        case close
    }

    static func parse(_ text: String) throws(SOQLError) -> SearchExpression {
        let pieces = try split(text)
        guard !pieces.isEmpty else {
            throw SOQLError(
                .malformedQuery, "search term must be longer than one character", at: SourceLocation(line: 1, column: 1, offset: 0))
        }
        var parser = PieceParser(pieces: pieces)
        let expression = try parser.parseOr()
        guard parser.position == pieces.count else {
            throw SOQLError(.malformedQuery, "unexpected token in search text: \(pieces[parser.position])")
        }
        return expression
    }

    private static func split(_ text: String) throws(SOQLError) -> [Piece] {
        var pieces: [Piece] = []
        var word = ""
        var iterator = Array(text).makeIterator()
        func flush() {
            if !word.isEmpty { pieces.append(.word(word)) }
            word = ""
        }
        while let character = iterator.next() {
            switch character {
            case "\\":
                if let escaped = iterator.next() { word.append(escaped) }
            case "\"":
                flush()
                var phrase = ""
                var closed = false
                while let next = iterator.next() {
                    if next == "\"" {
                        closed = true
                        break
                    }
                    phrase.append(next == "\\" ? (iterator.next() ?? next) : next)
                }
                guard closed else { throw SOQLError(.malformedQuery, "unterminated phrase in search text") }
                pieces.append(.phrase(phrase))
            case "(":
                flush()
                pieces.append(.open)
            case ")":
                flush()
                pieces.append(.close)
            case " ", "\t", "\n", "\r":
                flush()
            default:
                word.append(character)
            }
        }
        flush()
        return pieces
    }

    /// The recursive-descent parser over the pieces. Parentheses nest at most
    /// ``SOQLParser/maximumNesting`` deep, and the tree built (AND NOT wraps what came before)
    /// at most ``maximumTreeDepth``; beyond either, `QUERY_TOO_COMPLICATED`.
    private struct PieceParser {
        /// The deepest expression tree accepted, so that whatever walks it (the search compiler,
        /// equality, deallocation) recurses a bounded number of levels.
        static let maximumTreeDepth = 2 * SOQLParser.maximumNesting

        let pieces: [Piece]
        var position = 0
        private var nesting = 0

        init(pieces: [Piece]) {
            self.pieces = pieces
        }

        private func isOperator(_ piece: Piece, _ name: String) -> Bool {
            if case .word(let word) = piece { return word.uppercased() == name }
            return false
        }

        /// An expression with the depth of its tree (a term is 1).
        private typealias Built = (expression: SearchExpression, depth: Int)

        /// Combines operands under one node, refusing a tree deeper than allowed.
        private func node(_ operands: [Built], _ make: ([SearchExpression]) -> SearchExpression) throws(SOQLError) -> Built {
            if operands.count == 1, let only = operands.first { return only }
            let depth = 1 + (operands.map(\.depth).max() ?? 0)
            guard depth <= Self.maximumTreeDepth else { throw SOQLError.tooComplicated(at: nil) }
            return (make(operands.map(\.expression)), depth)
        }

        mutating func parseOr() throws(SOQLError) -> SearchExpression {
            try parseOrTree().expression
        }

        private mutating func parseOrTree() throws(SOQLError) -> Built {
            var operands = [try parseAnd()]
            while position < pieces.count, isOperator(pieces[position], "OR") {
                position += 1
                operands.append(try parseAnd())
            }
            return try node(operands) { .or($0) }
        }

        private mutating func parseAnd() throws(SOQLError) -> Built {
            var result = [try parsePrimary()]
            while position < pieces.count, pieces[position] != .close, !isOperator(pieces[position], "OR") {
                if isOperator(pieces[position], "AND") {
                    position += 1
                    if position < pieces.count, isOperator(pieces[position], "NOT") {
                        position += 1
                        let left = try node(result) { .and($0) }
                        let right = try parsePrimary()
                        result = [try node([left, right]) { operands in .andNot(operands[0], operands[1]) }]
                        continue
                    }
                }
                result.append(try parsePrimary())
            }
            return try node(result) { .and($0) }
        }

        private mutating func parsePrimary() throws(SOQLError) -> Built {
            guard position < pieces.count else { throw SOQLError(.malformedQuery, "unexpected end of search text") }
            let piece = pieces[position]
            position += 1
            switch piece {
            case .open:
                guard nesting < SOQLParser.maximumNesting else { throw SOQLError.tooComplicated(at: nil) }
                nesting += 1
                defer { nesting -= 1 }
                let inner = try parseOrTree()
                guard position < pieces.count, pieces[position] == .close else {
                    throw SOQLError(.malformedQuery, "missing ) in search text")
                }
                position += 1
                return inner
            case .close:
                throw SOQLError(.malformedQuery, "unexpected ) in search text")
            case .phrase(let phrase):
                return (.phrase(phrase), 1)
            case .word(let word):
                if ["AND", "OR", "NOT"].contains(word.uppercased()) {
                    throw SOQLError(.malformedQuery, "unexpected \(word) in search text")
                }
                return (.term(word), 1)
            }
        }
    }
}
