/// What SOQL computes a value from: a field, or a function of fields (`CALENDAR_YEAR(CreatedDate)`,
/// `COUNT(Id)`, `toLabel(Status)`, `DISTANCE(Location__c, GEOLOCATION(37.7, -122.4), 'mi')`).
public indirect enum FieldExpression: Sendable, Hashable {
    /// A field (`Name`, `Account.Industry`).
    case field(FieldPath)
    /// A function call (`CALENDAR_YEAR(CreatedDate)`).
    case function(FunctionCall)

    /// The field path when the expression is a plain field.
    public var fieldPath: FieldPath? {
        if case .field(let path) = self { return path }
        return nil
    }

    /// The same expression with every field path transformed.
    public func mapFields(_ transform: (FieldPath) -> FieldPath) -> FieldExpression {
        switch self {
        case .field(let path): .field(transform(path))
        case .function(let call): .function(call.mapFields(transform))
        }
    }
}

/// A function call: its name as written and its arguments.
public struct FunctionCall: Sendable, Hashable {
    /// The name as written (`COUNT`, `toLabel`); ``kind`` tells what it is.
    public var name: String
    /// The arguments, in order.
    public var arguments: [FunctionArgument]

    /// A call; see the properties.
    public init(_ name: String, _ arguments: [FunctionArgument]) {
        self.name = name
        self.arguments = arguments
    }

    /// What the function is, from its name (case-insensitive).
    public var kind: FunctionKind? { FunctionKind(name: name) }

    /// Whether the call is an aggregate function, or contains one (`FORMAT(MIN(CloseDate))`).
    public var containsAggregate: Bool {
        if kind?.isAggregate == true { return true }
        return arguments.contains { if case .function(let inner) = $0 { inner.containsAggregate } else { false } }
    }

    /// The field paths of the call's arguments, depth first.
    public var fieldPaths: [FieldPath] {
        arguments.flatMap { argument -> [FieldPath] in
            switch argument {
            case .field(let path): [path]
            case .function(let inner): inner.fieldPaths
            case .literal: []
            }
        }
    }

    /// The same call with every field path transformed.
    public func mapFields(_ transform: (FieldPath) -> FieldPath) -> FunctionCall {
        FunctionCall(
            name,
            arguments.map { argument in
                switch argument {
                case .field(let path): .field(transform(path))
                case .function(let inner): .function(inner.mapFields(transform))
                case .literal: argument
                }
            })
    }
}

/// One argument of a function call.
public indirect enum FunctionArgument: Sendable, Hashable {
    /// A field.
    case field(FieldPath)
    /// A nested call (`FORMAT(MIN(CloseDate))`, `HOUR_IN_DAY(convertTimezone(CreatedDate))`).
    case function(FunctionCall)
    /// A number or string (`GEOLOCATION(37.7, -122.4)`, `'mi'`).
    case literal(Literal)
}

/// The functions of SOQL.
public enum FunctionKind: String, Sendable, Hashable, CaseIterable {
    // Aggregates.
    case avg = "AVG"
    case count = "COUNT"
    case countDistinct = "COUNT_DISTINCT"
    case max = "MAX"
    case min = "MIN"
    case sum = "SUM"
    case grouping = "GROUPING"
    // Date functions.
    case calendarMonth = "CALENDAR_MONTH"
    case calendarQuarter = "CALENDAR_QUARTER"
    case calendarYear = "CALENDAR_YEAR"
    case dayInMonth = "DAY_IN_MONTH"
    case dayInWeek = "DAY_IN_WEEK"
    case dayInYear = "DAY_IN_YEAR"
    case dayOnly = "DAY_ONLY"
    case fiscalMonth = "FISCAL_MONTH"
    case fiscalQuarter = "FISCAL_QUARTER"
    case fiscalYear = "FISCAL_YEAR"
    case hourInDay = "HOUR_IN_DAY"
    case weekInMonth = "WEEK_IN_MONTH"
    case weekInYear = "WEEK_IN_YEAR"
    // Conversions and formatting.
    case toLabel = "TOLABEL"
    case format = "FORMAT"
    case convertCurrency = "CONVERTCURRENCY"
    case convertTimezone = "CONVERTTIMEZONE"
    // Location.
    case distance = "DISTANCE"
    case geolocation = "GEOLOCATION"

    /// The function a name denotes (case-insensitive), if any.
    public init?(name: String) {
        self.init(rawValue: name.uppercased())
    }

    /// `AVG`, `COUNT`, `COUNT_DISTINCT`, `MAX`, `MIN`, `SUM` (and `GROUPING`, which reads the
    /// grouping of an aggregate query).
    public var isAggregate: Bool {
        switch self {
        case .avg, .count, .countDistinct, .max, .min, .sum, .grouping: true
        default: false
        }
    }

    /// The date functions (`CALENDAR_YEAR`, `DAY_ONLY`, `HOUR_IN_DAY`, …).
    public var isDateFunction: Bool {
        switch self {
        case .calendarMonth, .calendarQuarter, .calendarYear, .dayInMonth, .dayInWeek, .dayInYear, .dayOnly, .fiscalMonth,
            .fiscalQuarter, .fiscalYear, .hourInDay, .weekInMonth, .weekInYear:
            true
        default: false
        }
    }
}
