/// A parsed SOSL search: `FIND {terms} [IN … FIELDS] [RETURNING …] [LIMIT n] [OFFSET n]`.
public struct SearchQuery: Sendable, Hashable {
    /// Which fields the terms are matched against.
    public enum Scope: String, Sendable, Hashable {
        case all = "ALL"
        case name = "NAME"
        case email = "EMAIL"
        case phone = "PHONE"
        case sidebar = "SIDEBAR"
    }

    /// The text between the braces, as written.
    public var searchText: String
    /// The search terms as an expression.
    public var expression: SearchExpression
    /// The fields searched (`IN … FIELDS`; ALL by default).
    public var scope: Scope
    /// The objects to return (empty: every searchable object, `Id` only).
    public var returning: [ReturningObject]
    /// The LIMIT over all objects, if any.
    public var limit: Int?
    /// The OFFSET, if any.
    public var offset: Int?

    /// A search; see the properties.
    public init(
        searchText: String, expression: SearchExpression, scope: Scope = .all, returning: [ReturningObject] = [],
        limit: Int? = nil, offset: Int? = nil
    ) {
        self.searchText = searchText
        self.expression = expression
        self.scope = scope
        self.returning = returning
        self.limit = limit
        self.offset = offset
    }
}

/// One object of a RETURNING clause, with its optional field list and filters.
public struct ReturningObject: Sendable, Hashable {
    /// The object returned.
    public var object: String
    /// Its fields to return (empty: `Id` only).
    public var fields: [FieldPath]
    /// Its WHERE condition, if any.
    public var condition: Condition?
    /// Its ORDER BY items.
    public var orderBy: [OrderItem]
    /// Its LIMIT, if any.
    public var limit: Int?
    /// Its OFFSET, if any.
    public var offset: Int?

    /// One RETURNING object; see the properties.
    public init(
        object: String, fields: [FieldPath] = [], condition: Condition? = nil, orderBy: [OrderItem] = [],
        limit: Int? = nil, offset: Int? = nil
    ) {
        self.object = object
        self.fields = fields
        self.condition = condition
        self.orderBy = orderBy
        self.limit = limit
        self.offset = offset
    }
}

/// Search terms combined with AND, OR and AND NOT (adjacent terms are ANDed).
public indirect enum SearchExpression: Sendable, Hashable {
    /// A word, possibly with `*` (any run) and `?` (one character) wildcards.
    case term(String)
    /// A quoted phrase.
    case phrase(String)
    case and([SearchExpression])
    case or([SearchExpression])
    case andNot(SearchExpression, SearchExpression)
}
