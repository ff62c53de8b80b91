import Foundation
import SmartStore

/// Account-like records of about 600 bytes, the same for every scenario of a run.
enum BenchRecords {
    static let industries = ["Agriculture", "Banking", "Chemicals", "Energy", "Media", "Retail", "Technology", "Utilities"]
    static let cities = ["San Francisco", "New York", "Paris", "Tokyo", "Berlin", "Sydney", "Toronto", "Lyon"]

    static func make(count: Int) -> [JSONValue] {
        make(0..<count, of: count)
    }

    /// Records `range` of a set of `count` (the same records `make(count:)` has at those places).
    static func make(_ range: Range<Int>, of count: Int) -> [JSONValue] {
        range.map { index in
            let id = String(format: "001%012dAAA", index)
            let minute = index % 60
            let hour = (index / 60) % 24
            let day = 1 + (index / 1440) % 28
            return [
                "attributes": ["type": "Account", "url": .string("/services/data/v66.0/sobjects/Account/\(id)")],
                "Id": .string(id),
                "Name": .string("Account \(String(format: "%06d", (index * 7919) % count)) \(industries[index % 8])"),
                "Industry": .string(industries[index % 8]),
                "NumberOfEmployees": .int(Int64((index * 37) % 100_000)),
                "AnnualRevenue": .double(Double(index % 1000) * 1234.5),
                "BillingCity": .string(cities[index % 8]), "BillingCountry": "USA",
                "Phone": .string("(415) 555-\(String(format: "%04d", index % 10_000))"),
                "Website": .string("https://www.account\(index).example.com"),
                "Description": .string(
                    "Long-standing customer record used by the store benchmark; padding text to reach a realistic size. #\(index)"),
                "IsDeleted": false, "OwnerId": "005000000000001AAA",
                "CreatedDate": "2026-01-01T00:00:00.000+0000",
                "LastModifiedDate": .string(String(format: "2026-11-%02dT%02d:%02d:00.000+0000", day, hour, minute)),
            ]
        }
    }

    /// Index specs of the benchmark soup: 4 column indexes.
    static let indexSpecs = [
        IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("NumberOfEmployees", .integer),
        IndexSpec("LastModifiedDate", .string),
    ]
}
