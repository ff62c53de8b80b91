public import Foundation

/// A relative date literal (`TODAY`, `LAST_N_DAYS:30`, …): a range of days evaluated in UTC.
public enum DateLiteral: Sendable, Hashable, CustomStringConvertible {
    case yesterday, today, tomorrow
    case lastWeek, thisWeek, nextWeek
    case lastMonth, thisMonth, nextMonth
    case last90Days, next90Days
    case thisYear, lastYear, nextYear
    case lastNDays(Int)
    case nextNDays(Int)
    case nDaysAgo(Int)
    case lastNWeeks(Int)
    case nextNWeeks(Int)
    case lastNMonths(Int)
    case nextNMonths(Int)

    private static let fixed: [String: DateLiteral] = [
        "YESTERDAY": .yesterday, "TODAY": .today, "TOMORROW": .tomorrow,
        "LAST_WEEK": .lastWeek, "THIS_WEEK": .thisWeek, "NEXT_WEEK": .nextWeek,
        "LAST_MONTH": .lastMonth, "THIS_MONTH": .thisMonth, "NEXT_MONTH": .nextMonth,
        "LAST_90_DAYS": .last90Days, "NEXT_90_DAYS": .next90Days,
        "THIS_YEAR": .thisYear, "LAST_YEAR": .lastYear, "NEXT_YEAR": .nextYear,
    ]

    private static let parameterised: [String: @Sendable (Int) -> DateLiteral] = [
        "LAST_N_DAYS": { .lastNDays($0) }, "NEXT_N_DAYS": { .nextNDays($0) }, "N_DAYS_AGO": { .nDaysAgo($0) },
        "LAST_N_WEEKS": { .lastNWeeks($0) }, "NEXT_N_WEEKS": { .nextNWeeks($0) },
        "LAST_N_MONTHS": { .lastNMonths($0) }, "NEXT_N_MONTHS": { .nextNMonths($0) },
    ]

    /// The literal named `name` (upper case), if it takes no number.
    static func named(_ name: String) -> DateLiteral? { fixed[name] }

    /// Whether `name` (upper case) is a literal that takes `:n`.
    static func takesNumber(_ name: String) -> Bool { parameterised[name] != nil }

    static func named(_ name: String, number: Int) -> DateLiteral? { parameterised[name]?(number) }

    /// The largest `n` a literal named `name` (upper case) accepts: about 3,000 years of days,
    /// weeks or months, so that every range stays a representable date.
    static func maximumNumber(_ name: String) -> Int {
        if name.hasSuffix("WEEKS") { return 156_000 }
        if name.hasSuffix("MONTHS") { return 36_000 }
        return 1_095_000
    }

    /// The literal as written in SOQL (`LAST_N_DAYS:7`, `TODAY`).
    public var description: String {
        switch self {
        case .lastNDays(let n): "LAST_N_DAYS:\(n)"
        case .nextNDays(let n): "NEXT_N_DAYS:\(n)"
        case .nDaysAgo(let n): "N_DAYS_AGO:\(n)"
        case .lastNWeeks(let n): "LAST_N_WEEKS:\(n)"
        case .nextNWeeks(let n): "NEXT_N_WEEKS:\(n)"
        case .lastNMonths(let n): "LAST_N_MONTHS:\(n)"
        case .nextNMonths(let n): "NEXT_N_MONTHS:\(n)"
        default: Self.fixed.first { $0.value == self }?.key ?? ""
        }
    }

    /// The half-open range `[start, end)` the literal covers, with `now` in UTC. Weeks start on Sunday.
    ///
    /// `LAST_N_DAYS:n` includes today (n = 1 is yesterday and today); `NEXT_N_DAYS:n` starts tomorrow.
    /// An `n` beyond what the parser accepts is clamped to it, so any value gives a valid range.
    public func range(relativeTo now: Date) -> Range<Date> {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        calendar.firstWeekday = 1
        let today = calendar.startOfDay(for: now)
        func day(_ offset: Int) -> Date { calendar.date(byAdding: .day, value: offset, to: today) ?? today }
        let week = calendar.dateInterval(of: .weekOfYear, for: now)?.start ?? today
        func weekStart(_ offset: Int) -> Date { calendar.date(byAdding: .weekOfYear, value: offset, to: week) ?? week }
        let month = calendar.dateInterval(of: .month, for: now)?.start ?? today
        func monthStart(_ offset: Int) -> Date { calendar.date(byAdding: .month, value: offset, to: month) ?? month }
        let year = calendar.dateInterval(of: .year, for: now)?.start ?? today
        func yearStart(_ offset: Int) -> Date { calendar.date(byAdding: .year, value: offset, to: year) ?? year }
        switch self {
        case .yesterday: return span(day(-1), day(0))
        case .today: return span(day(0), day(1))
        case .tomorrow: return span(day(1), day(2))
        case .lastWeek: return span(weekStart(-1), weekStart(0))
        case .thisWeek: return span(weekStart(0), weekStart(1))
        case .nextWeek: return span(weekStart(1), weekStart(2))
        case .lastMonth: return span(monthStart(-1), monthStart(0))
        case .thisMonth: return span(monthStart(0), monthStart(1))
        case .nextMonth: return span(monthStart(1), monthStart(2))
        case .last90Days: return span(day(-90), day(1))
        case .next90Days: return span(day(1), day(91))
        case .thisYear: return span(yearStart(0), yearStart(1))
        case .lastYear: return span(yearStart(-1), yearStart(0))
        case .nextYear: return span(yearStart(1), yearStart(2))
        case .lastNDays(let n): return span(day(-bounded(n, "DAYS")), day(1))
        case .nextNDays(let n): return span(day(1), day(1 + bounded(n, "DAYS")))
        case .nDaysAgo(let n): return span(day(-bounded(n, "DAYS")), day(-bounded(n, "DAYS") + 1))
        case .lastNWeeks(let n): return span(weekStart(-bounded(n, "WEEKS")), weekStart(0))
        case .nextNWeeks(let n): return span(weekStart(1), weekStart(1 + bounded(n, "WEEKS")))
        case .lastNMonths(let n): return span(monthStart(-bounded(n, "MONTHS")), monthStart(0))
        case .nextNMonths(let n): return span(monthStart(1), monthStart(1 + bounded(n, "MONTHS")))
        }
    }

    /// `lower..<upper`, never inverted (a calendar that cannot add the offset falls back to a bound).
    private func span(_ lower: Date, _ upper: Date) -> Range<Date> { lower..<max(lower, upper) }

    /// `n` within `0...maximumNumber(unit)`.
    private func bounded(_ n: Int, _ unit: String) -> Int { min(max(n, 0), Self.maximumNumber(unit)) }
}
