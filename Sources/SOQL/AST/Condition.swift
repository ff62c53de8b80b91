/// A WHERE condition.
public indirect enum Condition: Sendable, Hashable {
    /// Two or more conditions joined by AND.
    case and([Condition])
    /// Two or more conditions joined by OR.
    case or([Condition])
    case not(Condition)
    /// A parenthesised condition (kept so the printer writes what was parsed).
    case group(Condition)
    case comparison(FieldPath, ComparisonOperator, Literal)
    /// `field LIKE 'pattern'` (`NOT field LIKE …` is a ``not(_:)`` around it).
    case like(FieldPath, pattern: Literal)
    /// `field [NOT] IN (values)`.
    case inList(FieldPath, negated: Bool, values: [Literal])
    /// `field [NOT] IN (SELECT field FROM object [WHERE …])`: a semi-join (anti-join when negated).
    case inSubquery(FieldPath, negated: Bool, subquery: SemiJoin)
    /// `field INCLUDES ('a;b', 'c')` / `EXCLUDES` on multi-select picklists.
    case includes(FieldPath, excludes: Bool, values: [String])
    /// `function(…) op value`: a date function in WHERE (`CALENDAR_YEAR(CreatedDate) = 2024`),
    /// `DISTANCE(…) < 20`, or an aggregate in HAVING (`COUNT(Id) > 1`).
    case functionComparison(FunctionCall, ComparisonOperator, Literal)
    /// `function(…) [NOT] IN (values)`.
    case functionInList(FunctionCall, negated: Bool, values: [Literal])
}

/// The comparison operators of SOQL.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
}

/// The inner query of a semi-join: `SELECT field FROM object [WHERE condition]`.
public struct SemiJoin: Sendable, Hashable {
    /// The field of the inner query's object whose values the outer field is compared with.
    public var field: FieldPath
    /// The inner query's object.
    public var object: String
    /// The inner query's WHERE condition, if any.
    public var condition: Condition?

    /// A semi-join; see the properties.
    public init(field: FieldPath, object: String, condition: Condition?) {
        self.field = field
        self.object = object
        self.condition = condition
    }
}
