import Foundation
import SalesforceWire
import TestSupport
import Testing

/// The wire's dates agree with Foundation's formatters where both apply (the behaviour the
/// client and server had before they shared one implementation), and refuse the rest.
@Suite struct DateTests {
    /// Random instants between 1900 and 2200, the same on every run.
    static let instants: [Int64] = {
        var generator = SplitMix64(seed: 42)
        return (0..<2_000).map { _ in Int64(generator.next() % 9_467_280_000_000) - 2_208_988_800_000 }
    }()

    static func httpFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    @Test func httpDatesMatchFoundation() {
        let formatter = Self.httpFormatter()
        for instant in Self.instants {
            let text = HTTPDate.format(instant)
            let seconds = instant - ((instant % 1000) + 1000) % 1000
            #expect(text == formatter.string(from: Date(timeIntervalSince1970: Double(seconds) / 1000)))
            #expect(HTTPDate.parse(text) == seconds)
        }
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func httpDatesInEveryFormARecipientMustAccept() {
        let expected: Int64 = 784_111_777_000
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT ") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("Thursday, 01-Jan-26 00:00:00 GMT") == 1_767_225_600_000)
    }

    @Test(arguments: [
        "", "GMT", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 99999999999 08:49:37 GMT", "Sun, -6 Nov 1994 08:49:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "2024-01-02T03:04:05Z",
        "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 123 08:49:37 1994",
    ])
    func httpDatesThatAreNot(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func salesforceTimesMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        for instant in Self.instants {
            let zulu = SalesforceTime.format(instant, zulu: true)
            #expect(zulu == formatter.string(from: Date(timeIntervalSince1970: Double(instant) / 1000)))
            #expect(SalesforceTime.parse(zulu) == instant)
            #expect(SalesforceTime.parse(SalesforceTime.format(instant)) == instant)
            #expect(SalesforceTime.format(instant).hasSuffix("+0000"))
        }
    }

    @Test func salesforceTimesInTheFormsTheAPIUses() {
        let expected: Int64 = 1_704_164_645_000
        for text in [
            "2024-01-02T03:04:05.000+0000", "2024-01-02T03:04:05.000Z", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05+00:00",
            "2024-01-02T08:34:05+05:30", "2024-01-01T22:04:05.000-0500", "2024-01-02T03:04:05",
        ] {
            #expect(SalesforceTime.parse(text) == expected, "\(text)")
        }
        #expect(SalesforceTime.parse("2024-01-02T03:04:05.123Z") == expected + 123)
        #expect(SalesforceTime.parse("2024-01-02") == 1_704_153_600_000)
        #expect(SalesforceTime.formatDate(days: 19_724) == "2024-01-02")
    }

    @Test(arguments: [
        "", "2024", "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z", "2024-01-02T25:00:00Z", "2024-01-02T03:04:05.Z",
        "2024-01-02T03:04:05+5", "2024-01-02T03:04:05Zjunk", "99999-01-02T03:04:05Z", "Sun, 06 Nov 1994 08:49:37 GMT",
    ])
    func salesforceTimesThatAreNot(_ text: String) {
        #expect(SalesforceTime.parse(text) == nil)
    }
}
