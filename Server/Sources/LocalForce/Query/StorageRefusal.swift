import Logging
import SOQL

/// The storage's refusals of a query, in Salesforce's terms, never in the storage's own words:
/// a limit of SQLite or PostgreSQL (too many columns, terms, variables, a pattern or an
/// expression too complex) is `QUERY_TOO_COMPLICATED`, as Salesforce answers a query beyond its
/// own limits; anything else a plain `MALFORMED_QUERY` that the database refused it. The parser
/// and the engine check Salesforce's limits before a query reaches the storage: this is what
/// remains when a database's own limit is lower.
enum StorageRefusal {
    /// Fragments of the storages' messages for limits (lower-cased).
    static let limitMessages = [
        "too many", // columns, terms in ORDER BY or a compound SELECT, SQL variables, arguments, FROM terms
        "pattern too complex", "expression tree is too large", "parser stack overflow", "string or blob too big",
        "stack depth limit",
    ]

    private static let logger = Logger(label: "LocalForce")

    /// The answer for an error thrown while the storage ran a query; the storage's own message
    /// goes to the log.
    static func soqlError(_ error: any Error) -> SOQLError {
        if let error = error as? SOQLError { return error }
        let text = (error as? StatementError)?.message ?? "\(error)"
        logger.notice("the storage refused a query", metadata: ["error": "\(text)"])
        let message = text.lowercased()
        if limitMessages.contains(where: { message.contains($0) }) { return .tooComplicated() }
        return SOQLError(.malformedQuery, "query failed: the database refused the query")
    }
}
