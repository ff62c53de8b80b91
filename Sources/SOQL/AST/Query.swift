/// A parsed SOQL query.
///
/// <!-- snippet: Snippets/SalesforceReference.swift#soql -->
/// ```swift
/// let query = try SOQLParser.parse("SELECT Id, Account.Name FROM Contact WHERE LastName LIKE 'S%' ORDER BY LastName LIMIT 10")
/// let object = query.object            // "Contact"
/// let text = query.description         // the query printed back
/// ```
public struct Query: Sendable, Hashable {
    /// The SELECT list, in order.
    public var selectItems: [SelectItem]
    /// The object queried (`FROM Account`).
    public var object: String
    /// The alias of the object (`FROM Account a`). The parser resolves aliases into the field
    /// paths (`a.Name` → `Name`) and leaves this `nil`; a query built by hand may set it.
    public var alias: String?
    /// Relationships aliased in FROM (`FROM Contact c, c.Account a`). The parser resolves them
    /// into the field paths (`a.Name` → `Account.Name`) and leaves this empty.
    public var fromRelationships: [FromRelationship]
    /// `USING SCOPE everything` / `mine` / `team` / …, if written.
    public var scope: String?
    /// The WHERE condition, if any.
    public var condition: Condition?
    /// The WITH clauses, in order.
    public var with: [WithClause]
    /// The GROUP BY clause, if any.
    public var groupBy: GroupBy?
    /// The HAVING condition, if any (aggregate functions on the left of its comparisons).
    public var having: Condition?
    /// The ORDER BY items, in order (empty: none).
    public var orderBy: [OrderItem]
    /// The LIMIT, if any.
    public var limit: Int?
    /// The OFFSET, if any (Salesforce allows at most 2000).
    public var offset: Int?
    /// `FOR VIEW`, `FOR REFERENCE` or `FOR UPDATE`.
    public var forClause: ForClause?
    /// `UPDATE TRACKING` or `UPDATE VIEWSTAT`.
    public var update: UpdateClause?

    /// A query; see the properties.
    public init(
        selectItems: [SelectItem], object: String, alias: String? = nil, fromRelationships: [FromRelationship] = [],
        scope: String? = nil, condition: Condition? = nil, with: [WithClause] = [], groupBy: GroupBy? = nil,
        having: Condition? = nil, orderBy: [OrderItem] = [], limit: Int? = nil, offset: Int? = nil, forClause: ForClause? = nil,
        update: UpdateClause? = nil
    ) {
        self.selectItems = selectItems
        self.object = object
        self.alias = alias
        self.fromRelationships = fromRelationships
        self.scope = scope
        self.condition = condition
        self.with = with
        self.groupBy = groupBy
        self.having = having
        self.orderBy = orderBy
        self.limit = limit
        self.offset = offset
        self.forClause = forClause
        self.update = update
    }

    /// Whether the query is `SELECT COUNT() FROM …` (the answer is `totalSize` only).
    public var isCountOnly: Bool {
        selectItems == [.countAll]
    }

    /// Whether the query aggregates (GROUP BY, or an aggregate function such as `COUNT(Id)` or
    /// `MAX(Amount)` in its SELECT list): its rows are `AggregateResult`s, not records.
    /// `SELECT COUNT()` counts records and is not one.
    public var isAggregate: Bool {
        groupBy != nil || having != nil
            || selectItems.contains { if case .function(let call, _) = $0 { call.containsAggregate } else { false } }
    }

    /// The field paths selected, in order (plain fields only: no functions, subqueries,
    /// TYPEOF or FIELDS()).
    public var selectedFields: [FieldPath] {
        selectItems.compactMap { if case .field(let path) = $0 { return path } else { return nil } }
    }
}

/// One item of a SELECT list.
public enum SelectItem: Sendable, Hashable {
    /// A field (`Name`, `Account.Name`).
    case field(FieldPath)
    /// A field with an alias, as aggregate queries allow (`SELECT LeadSource src, COUNT(Id) …`).
    case aliasedField(FieldPath, alias: String)
    /// A function (`COUNT(Id)`, `toLabel(Status)`, `CALENDAR_YEAR(CreatedDate)`) with its alias, if any.
    case function(FunctionCall, alias: String?)
    /// `(SELECT … FROM ChildRelationship …)`.
    case subquery(Subquery)
    /// `COUNT()`: the number of records, alone in its SELECT list.
    case countAll
    /// `TYPEOF relationship WHEN … THEN … ELSE … END`.
    case typeOf(TypeOf)
    /// `FIELDS(ALL)`, `FIELDS(STANDARD)`, `FIELDS(CUSTOM)`.
    case fields(FieldsSelector)
}

/// A child-relationship subquery of a SELECT list.
public struct Subquery: Sendable, Hashable {
    /// The subquery's SELECT list: fields, functions (`toLabel(Status)`), TYPEOF.
    public var items: [SelectItem]
    /// The child relationship name (`Contacts`).
    public var relationship: String
    /// The subquery's WHERE condition, if any.
    public var condition: Condition?
    /// The subquery's ORDER BY items.
    public var orderBy: [OrderItem]
    /// The subquery's LIMIT, if any.
    public var limit: Int?

    /// A subquery; see the properties.
    public init(items: [SelectItem], relationship: String, condition: Condition? = nil, orderBy: [OrderItem] = [], limit: Int? = nil) {
        self.items = items
        self.relationship = relationship
        self.condition = condition
        self.orderBy = orderBy
        self.limit = limit
    }

    /// A subquery of plain fields.
    public init(fields: [FieldPath], relationship: String, condition: Condition? = nil, orderBy: [OrderItem] = [], limit: Int? = nil) {
        self.init(items: fields.map(SelectItem.field), relationship: relationship, condition: condition, orderBy: orderBy, limit: limit)
    }

    /// The plain fields of the SELECT list, in order.
    public var fields: [FieldPath] {
        items.compactMap { if case .field(let path) = $0 { return path } else { return nil } }
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

    /// What is sorted by: a field, or a function (`COUNT(Id)`, `CALENDAR_YEAR(CreatedDate)`).
    public var expression: FieldExpression
    /// `nil` when not written (ascending).
    public var direction: Direction?
    /// `nil` when not written (Salesforce: nulls first).
    public var nulls: Nulls?

    /// An ORDER BY item; nil parts were not written.
    public init(expression: FieldExpression, direction: Direction? = nil, nulls: Nulls? = nil) {
        self.expression = expression
        self.direction = direction
        self.nulls = nulls
    }

    /// An ORDER BY item on a field; nil parts were not written.
    public init(field: FieldPath, direction: Direction? = nil, nulls: Nulls? = nil) {
        self.init(expression: .field(field), direction: direction, nulls: nulls)
    }

    /// The field sorted by, when the item sorts by a plain field.
    public var field: FieldPath? { expression.fieldPath }
}

/// The FOR clause.
public enum ForClause: String, Sendable, Hashable {
    case view = "VIEW"
    case reference = "REFERENCE"
    case update = "UPDATE"
}
