/// A parsed SOQL query.
///
/// ```swift
/// let query = try SOQLParser.parse("SELECT Id, Account.Name FROM Contact WHERE LastName LIKE 'S%' ORDER BY LastName LIMIT 10")
/// query.object           // "Contact"
/// query.description      // the query printed back
/// ```
public struct Query: Sendable, Hashable {
    /// The SELECT list, in order.
    public var selectItems: [SelectItem]
    /// The object queried (`FROM Account`).
    public var object: String
    /// The alias of the object (`FROM Account a`), if any; stripped from field paths while parsing.
    public var alias: String?
    /// The WHERE condition, if any.
    public var condition: Condition?
    /// The ORDER BY items, in order (empty: none).
    public var orderBy: [OrderItem]
    /// The LIMIT, if any.
    public var limit: Int?
    /// The OFFSET, if any (Salesforce allows at most 2000).
    public var offset: Int?
    /// `FOR VIEW`, `FOR REFERENCE` or `FOR UPDATE`.
    public var forClause: ForClause?

    /// A query; see the properties.
    public init(
        selectItems: [SelectItem], object: String, alias: String? = nil, condition: Condition? = nil,
        orderBy: [OrderItem] = [], limit: Int? = nil, offset: Int? = nil, forClause: ForClause? = nil
    ) {
        self.selectItems = selectItems
        self.object = object
        self.alias = alias
        self.condition = condition
        self.orderBy = orderBy
        self.limit = limit
        self.offset = offset
        self.forClause = forClause
    }

    /// Whether the query is `SELECT COUNT() FROM …` (the answer is `totalSize` only).
    public var isCountOnly: Bool {
        selectItems.count == 1 && selectItems[0] == .count(nil)
    }

    /// The field paths selected, in order (subqueries and COUNT excluded).
    public var selectedFields: [FieldPath] {
        selectItems.compactMap { if case .field(let path) = $0 { return path } else { return nil } }
    }
}

/// One item of a SELECT list.
public enum SelectItem: Sendable, Hashable {
    case field(FieldPath)
    /// `(SELECT … FROM ChildRelationship …)`.
    case subquery(Subquery)
    /// `COUNT()` (nil) or `COUNT(field)`.
    case count(FieldPath?)
}

/// A child-relationship subquery of a SELECT list.
public struct Subquery: Sendable, Hashable {
    /// The fields of the subquery's SELECT list.
    public var fields: [FieldPath]
    /// The child relationship name (`Contacts`).
    public var relationship: String
    /// The subquery's WHERE condition, if any.
    public var condition: Condition?
    /// The subquery's ORDER BY items.
    public var orderBy: [OrderItem]
    /// The subquery's LIMIT, if any.
    public var limit: Int?

    /// A subquery; see the properties.
    public init(fields: [FieldPath], relationship: String, condition: Condition? = nil, orderBy: [OrderItem] = [], limit: Int? = nil) {
        self.fields = fields
        self.relationship = relationship
        self.condition = condition
        self.orderBy = orderBy
        self.limit = limit
    }
}

/// An ORDER BY item.
public struct OrderItem: Sendable, Hashable {
    /// ASC or DESC.
    public enum Direction: String, Sendable, Hashable {
        case ascending = "ASC"
        case descending = "DESC"
    }
    /// NULLS FIRST or NULLS LAST.
    public enum Nulls: String, Sendable, Hashable {
        case first = "FIRST"
        case last = "LAST"
    }

    /// The field sorted by.
    public var field: FieldPath
    /// `nil` when not written (ascending).
    public var direction: Direction?
    /// `nil` when not written (Salesforce: nulls first).
    public var nulls: Nulls?

    /// An ORDER BY item; nil parts were not written.
    public init(field: FieldPath, direction: Direction? = nil, nulls: Nulls? = nil) {
        self.field = field
        self.direction = direction
        self.nulls = nulls
    }
}

/// The FOR clause.
public enum ForClause: String, Sendable, Hashable {
    case view = "VIEW"
    case reference = "REFERENCE"
    case update = "UPDATE"
}
