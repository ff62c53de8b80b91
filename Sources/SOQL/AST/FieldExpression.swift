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
    /// `AVG(field)`: the mean.
    case avg = "AVG"
    /// `COUNT(field)`: the non-null values.
    case count = "COUNT"
    /// `COUNT_DISTINCT(field)`: the distinct non-null values.
    case countDistinct = "COUNT_DISTINCT"
    /// `MAX(field)`.
    case max = "MAX"
    /// `MIN(field)`.
    case min = "MIN"
    /// `SUM(field)`.
    case sum = "SUM"
    /// `GROUPING(field)`: 1 on the subtotal rows of ROLLUP and CUBE where `field` is not grouped.
    case grouping = "GROUPING"
    /// The month, 1–12.
    case calendarMonth = "CALENDAR_MONTH"
    /// The quarter, 1–4.
    case calendarQuarter = "CALENDAR_QUARTER"
    /// The year.
    case calendarYear = "CALENDAR_YEAR"
    /// The day of the month, 1–31.
    case dayInMonth = "DAY_IN_MONTH"
    /// The day of the week, 1 (Sunday) to 7.
    case dayInWeek = "DAY_IN_WEEK"
    /// The day of the year, 1–366.
    case dayInYear = "DAY_IN_YEAR"
    /// The date of a datetime.
    case dayOnly = "DAY_ONLY"
    /// The fiscal month.
    case fiscalMonth = "FISCAL_MONTH"
    /// The fiscal quarter.
    case fiscalQuarter = "FISCAL_QUARTER"
    /// The fiscal year.
    case fiscalYear = "FISCAL_YEAR"
    /// The hour of a datetime, 0–23.
    case hourInDay = "HOUR_IN_DAY"
    /// The week of the month, 1–5.
    case weekInMonth = "WEEK_IN_MONTH"
    /// The week of the year, 1–53.
    case weekInYear = "WEEK_IN_YEAR"
    /// `toLabel(field)`: a picklist value's label in the user's language.
    case toLabel = "TOLABEL"
    /// `FORMAT(field)`: the value formatted for the user's locale.
    case format = "FORMAT"
    /// `convertCurrency(field)`: an amount in the user's currency.
    case convertCurrency = "CONVERTCURRENCY"
    /// `convertTimezone(field)`: a datetime in the user's time zone.
    case convertTimezone = "CONVERTTIMEZONE"
    /// `DISTANCE(location, GEOLOCATION(lat, lon), 'mi' | 'km')`.
    case distance = "DISTANCE"
    /// `GEOLOCATION(latitude, longitude)`: a point.
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
