/// Datetimes as Salesforce writes them (`2024-01-02T03:04:05.000+0000`, UTC) and reads them
/// (`Z`, `±hh:mm` or `±hhmm`, with or without milliseconds), kept as milliseconds since 1970.
public enum SalesforceTime {
    /// Formats epoch milliseconds as `yyyy-MM-dd'T'HH:mm:ss.SSS+0000`.
    public static func format(_ milliseconds: Int64, zulu: Bool = false) -> String {
        let (days, remainder) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let hours = remainder / 3_600_000
        let minutes = remainder / 60_000 % 60
        let seconds = remainder / 1000 % 60
        let millis = remainder % 1000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hours, 2) + ":" + pad(minutes, 2) + ":" + pad(seconds, 2)
            + "." + pad(millis, 3) + (zulu ? "Z" : "+0000")
    }

    /// Formats a day number (days since 1970-01-01) as `yyyy-MM-dd`.
    public static func formatDate(days: Int64) -> String {
        let (year, month, day) = civil(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    /// Parses `YYYY-MM-DDThh:mm:ss[.fff](Z|±hh[:]mm)` (also a bare `YYYY-MM-DD`, as midnight UTC).
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard let days = parseDays(bytes) else { return nil }
        if bytes.count == 10 { return days * 86_400_000 }
        guard bytes.count >= 19, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            let hours = number(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"), let minutes = number(bytes, 14, 2),
            bytes[16] == UInt8(ascii: ":"), let seconds = number(bytes, 17, 2), hours < 24, minutes < 60, seconds < 61
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale: Int64 = 100
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                millis += Int64(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if index == bytes.count {
            offsetMinutes = 0 // no zone: UTC
        } else if bytes[index] == UInt8(ascii: "Z"), index + 1 == bytes.count {
            offsetMinutes = 0
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "+") ? 1 : -1
            guard let offsetHours = number(bytes, index + 1, 2) else { return nil }
            var minuteIndex = index + 3
            if minuteIndex < bytes.count, bytes[minuteIndex] == UInt8(ascii: ":") { minuteIndex += 1 }
            guard let offsetMins = number(bytes, minuteIndex, 2), minuteIndex + 2 == bytes.count else { return nil }
            offsetMinutes = sign * (offsetHours * 60 + offsetMins)
        } else {
            return nil
        }
        return days * 86_400_000 + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + millis - offsetMinutes * 60_000
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` prefix, validated.
    static func parseDays(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 10, let year = number(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(bytes, 5, 2),
            bytes[7] == UInt8(ascii: "-"), let day = number(bytes, 8, 2), (1...12).contains(month), day >= 1,
            day <= daysInMonth(year, month)
        else { return nil }
        return days(fromCivil: year, month, day)
    }

    /// Validates a `YYYY-MM-DD` date.
    public static func isDate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 10 && parseDays(bytes) != nil
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[start..<(start + count)] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        // Swift's division truncates; stepping down one when a negative value leaves a remainder
        // floors without the overflow of `value - divisor + 1` near Int64.min.
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }

    /// Howard Hinnant's days-from-civil.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
