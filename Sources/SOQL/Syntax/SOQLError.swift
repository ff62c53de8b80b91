/// A query that cannot be lexed, parsed or resolved, with Salesforce's error code.
public struct SOQLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Salesforce `errorCode` a server answers with.
    public enum Code: String, Sendable, Hashable {
        /// Syntax error (`MALFORMED_QUERY`).
        case malformedQuery = "MALFORMED_QUERY"
        /// Unknown field or a type mismatch (`INVALID_FIELD`).
        case invalidField = "INVALID_FIELD"
        /// Unknown object (`INVALID_TYPE`).
        case invalidType = "INVALID_TYPE"
        /// OFFSET above 2000 and similar (`NUMBER_OUTSIDE_VALID_RANGE`).
        case numberOutsideValidRange = "NUMBER_OUTSIDE_VALID_RANGE"
        /// Conditions nested deeper, or more predicates, than the parser accepts (`QUERY_TOO_COMPLICATED`).
        case queryTooComplicated = "QUERY_TOO_COMPLICATED"
    }

    /// The error for a query beyond the parser's bounds (conditions nested deeper than
    /// ``SOQLParser/maximumNesting``, more than ``SOQLParser/maximumPredicates`` predicates), in
    /// Salesforce's wording.
    public static func tooComplicated(at location: SourceLocation? = nil) -> SOQLError {
        SOQLError(
            .queryTooComplicated, "Query is either selecting too many fields or the filter conditions are too complicated.", at: location)
    }

    /// Salesforce's error code (`MALFORMED_QUERY`, …), as the API answers it.
    public var code: Code
    /// The message, e.g. `unexpected token: SELEKT`.
    public var message: String
    /// Where the problem is, when known.
    public var location: SourceLocation?

    /// An error with its code, message and, when known, position.
    public init(_ code: Code, _ message: String, at location: SourceLocation? = nil) {
        self.code = code
        self.message = message
        self.location = location
    }

    /// The message, followed by the position when known (`… at Row:1:Column:8`).
    public var description: String {
        location.map { "\(message) at \($0)" } ?? message
    }

    /// Salesforce's caret form: the offending line, a caret under the column, `ERROR at Row:…`,
    /// then the message. Errors on the very first token are answered with the bare message,
    /// as Salesforce does (`unexpected token: SELEKT`).
    public func salesforceMessage(for query: String) -> String {
        guard let location, location.offset > 0 else { return message }
        let lines = query.split(separator: "\n", omittingEmptySubsequences: false)
        let line = location.line - 1 < lines.count ? String(lines[location.line - 1]) : ""
        let caret = String(repeating: " ", count: max(0, location.column - 1)) + "^"
        return "\n\(line)\n\(caret)\nERROR at \(location)\n\(message)"
    }
}
