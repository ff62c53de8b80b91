import FastJSON
import SalesforceWire

/// `FORMAT()`'s output for an `en_US` user in GMT in a USD org: currency `$1,234.50`, numbers
/// grouped by thousands (`1,234.5`), percents `12.5%`, dates `1/2/2024`, datetimes
/// `1/2/2024, 3:04 PM`; other values as they are.
enum ValueFormat {
    static func json(_ value: SQLValue, for type: FieldType) -> JSONValue {
        let plain = FieldCodec.json(value, for: type)
        switch (type, plain) {
        case (.currency, .double(let number)): return .string((number < 0 ? "-$" : "$") + grouped(abs(number), decimals: 2))
        case (.double, .double(let number)): return .string((number < 0 ? "-" : "") + grouped(abs(number), decimals: nil))
        case (.int, .int(let number)): return .string((number < 0 ? "-" : "") + grouped(Double(number.magnitude), decimals: 0))
        case (.percent, .double(let number)): return .string((number < 0 ? "-" : "") + grouped(abs(number), decimals: nil) + "%")
        case (.date, .string(let text)): return .string(date(text) ?? text)
        case (.datetime, .string(let text)): return .string(dateTime(text) ?? text)
        default: return plain
        }
    }

    /// `1,234.5`: thousands grouped; `decimals` fixed, or up to 6 without trailing zeros.
    private static func grouped(_ number: Double, decimals: Int?) -> String {
        guard number.isFinite, number < 1e15 else { return String(number) }
        let scale = Double(decimals ?? 6)
        let factor = (0..<Int(scale)).reduce(1.0) { value, _ in value * 10 }
        let scaled = (number * factor).rounded()
        guard let units = Int64(exactly: scaled) else { return String(number) }
        let whole = units / Int64(factor)
        var fraction = String(units % Int64(factor))
        while fraction.count < Int(scale) { fraction = "0" + fraction }
        if decimals == nil { while fraction.hasSuffix("0") { fraction.removeLast() } }
        var digits = Array(String(whole))
        var text = ""
        while digits.count > 3 {
            text = "," + String(digits.suffix(3)) + text
            digits.removeLast(3)
        }
        text = String(digits) + text
        return fraction.isEmpty ? text : text + "." + fraction
    }

    /// `2024-01-02` → `1/2/2024`.
    private static func date(_ text: String) -> String? {
        let parts = text.prefix(10).split(separator: "-")
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        return "\(month)/\(day)/\(year)"
    }

    /// `2024-01-02T15:04:05.000+0000` → `1/2/2024, 3:04 PM`.
    private static func dateTime(_ text: String) -> String? {
        guard let day = date(text), text.count >= 16 else { return nil }
        let clock = text.dropFirst(11).prefix(5).split(separator: ":")
        guard clock.count == 2, let hour = Int(clock[0]), let minute = Int(clock[1]) else { return nil }
        let twelve = hour % 12 == 0 ? 12 : hour % 12
        return "\(day), \(twelve):\(minute < 10 ? "0" : "")\(minute) \(hour < 12 ? "AM" : "PM")"
    }
}
