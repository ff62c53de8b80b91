/// HTTP dates (RFC 9110 §5.6.7), as in the `Date`, `If-Modified-Since` and
/// `If-Unmodified-Since` headers, kept as milliseconds since 1970 (whole seconds).
///
/// Parsing and formatting are arithmetic on the text: no `DateFormatter`, no locale, and no
/// conversion that can trap on a hostile header.
public enum HTTPDate {
    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longWeekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats epoch milliseconds as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
    /// dropping the milliseconds.
    public static func format(_ milliseconds: Int64) -> String {
        let (days, remainder) = SalesforceTime.floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = SalesforceTime.civil(fromDays: days)
        // 1970-01-01 was a Thursday (index 3 from Monday).
        let weekday = SalesforceTime.floorDivide(days + 3, 7).1
        let seconds = remainder / 1000
        return weekdays[Int(weekday)] + ", " + SalesforceTime.pad(day, 2) + " " + months[Int(month - 1)] + " "
            + SalesforceTime.pad(year, 4) + " " + SalesforceTime.pad(seconds / 3600, 2) + ":"
            + SalesforceTime.pad(seconds / 60 % 60, 2) + ":" + SalesforceTime.pad(seconds % 60, 2) + " GMT"
    }

    /// Parses the three forms a recipient must accept: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
    /// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
    /// Surrounding spaces are ignored; the weekday is checked for spelling, not against the date.
    ///
    /// - Returns: Milliseconds since 1970, or `nil` when the text is none of the three.
    public static func parse(_ text: String) -> Int64? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if fields.count == 6, fields[5] == "GMT", let weekday = fields[0].dropLastIfComma, weekdays.contains(weekday) {
            // IMF-fixdate: weekday, day month year time GMT.
            guard fields[1].utf8.count == 2, fields[3].utf8.count == 4, let day = Int64(digits: fields[1]),
                let month = months.firstIndex(of: fields[2]), let year = Int64(digits: fields[3])
            else { return nil }
            return milliseconds(year: year, month: Int64(month + 1), day: day, time: fields[4])
        }
        if fields.count == 4, fields[3] == "GMT", let weekday = fields[0].dropLastIfComma, longWeekdays.contains(weekday) {
            // RFC 850: two-digit years; fifty or more are read as 19xx (RFC 9110's rule, fixed).
            let parts = fields[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].utf8.count == 2, parts[2].utf8.count == 2, let day = Int64(digits: parts[0]),
                let month = months.firstIndex(of: parts[1]), let shortYear = Int64(digits: parts[2])
            else { return nil }
            return milliseconds(year: shortYear + (shortYear >= 50 ? 1900 : 2000), month: Int64(month + 1), day: day, time: fields[2])
        }
        if fields.count == 5, weekdays.contains(fields[0]) {
            // asctime: weekday month day time year (the day padded with a space).
            guard let month = months.firstIndex(of: fields[1]), (1...2).contains(fields[2].utf8.count),
                let day = Int64(digits: fields[2]), fields[4].utf8.count == 4, let year = Int64(digits: fields[4])
            else { return nil }
            return milliseconds(year: year, month: Int64(month + 1), day: day, time: fields[3])
        }
        return nil
    }

    private static func milliseconds(year: Int64, month: Int64, day: Int64, time: String) -> Int64? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard day >= 1, day <= SalesforceTime.daysInMonth(year, month), parts.count == 3, parts.allSatisfy({ $0.utf8.count == 2 }),
            let hours = Int64(digits: parts[0]), let minutes = Int64(digits: parts[1]), let seconds = Int64(digits: parts[2]),
            hours < 24, minutes < 60, seconds < 61
        else { return nil }
        let days = SalesforceTime.days(fromCivil: year, month, day)
        return days * 86_400_000 + hours * 3_600_000 + minutes * 60_000 + seconds * 1000
    }
}

extension String {
    /// The text without a trailing comma, or nil when it has none.
    fileprivate var dropLastIfComma: String? {
        hasSuffix(",") ? String(dropLast()) : nil
    }
}

extension Int64 {
    /// A number written with ASCII digits only (at most 4 here, so it cannot overflow).
    fileprivate init?(digits text: String) {
        guard !text.isEmpty, text.utf8.count <= 4, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 { value = value * 10 + Int64(byte - 0x30) }
        self = value
    }
}
