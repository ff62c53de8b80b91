import FastJSON
import Testing

@testable import MobileSync

/// The MERGE_FIELDS merge as a pure function: one row per situation of a field.
@Suite struct ThreeWayMergeTests {
    static let base: JSONValue = ["Id": "001", "Name": "Acme", "Phone": "1", "Amount": 10, "Closed": "2026-01-01T00:00:00.000+0000"]

    /// (local changes, server changes, expected merged values, fields to send, conflicting fields)
    static let rows:
        [(local: [String: JSONValue], server: [String: JSONValue], merged: [String: JSONValue], send: [String], conflict: [String])] = [
            // Nothing changed.
            ([:], [:], [:], [], []),
            // Changed on one side only: that side's value.
            (["Name": "Local"], [:], ["Name": "Local"], ["Name"], []),
            ([:], ["Name": "Server"], ["Name": "Server"], [], []),
            // Disjoint fields on each side.
            (["Name": "Local"], ["Phone": "2"], ["Name": "Local", "Phone": "2"], ["Name"], []),
            // The same field, the same value on both sides: fine, nothing to send.
            (["Name": "Same"], ["Name": "Same"], ["Name": "Same"], [], []),
            // The same field, different values: a conflict.
            (["Name": "Local"], ["Name": "Server"], [:], [], ["Name"]),
            (["Name": "Local", "Phone": "3"], ["Name": "Server", "Phone": "4"], [:], [], ["Name", "Phone"]),
            // Values as the server stores them: 10 and 10.0, two spellings of an instant, "" and null.
            (["Amount": 10.0], ["Name": "Server"], ["Name": "Server"], [], []),
            (["Closed": "2026-01-01T00:00:00Z"], ["Closed": "2026-01-01T00:00:00.000+0000"], [:], [], []),
            (["Phone": ""], ["Phone": .null], [:], [], []),
            // A field removed locally is a change to null.
            (["Phone": .null], ["Name": "Server"], ["Phone": .null, "Name": "Server"], ["Phone"], []),
        ]

    @Test(arguments: 0..<rows.count)
    func row(_ index: Int) {
        let row = Self.rows[index]
        var local = Self.base
        var server = Self.base
        for (field, value) in row.local { local[field] = value }
        for (field, value) in row.server { server[field] = value }
        let fields = ["Name", "Phone", "Amount", "Closed"]
        switch ThreeWayMerge.merge(base: Self.base, local: local, server: server, fields: fields) {
        case .merged(let merged, let toSend):
            #expect(row.conflict.isEmpty, "row \(index): expected a conflict on \(row.conflict)")
            #expect(Set(toSend) == Set(row.send), "row \(index)")
            for (field, value) in row.merged { #expect(merged[field] == value, "row \(index): \(field)") }
            #expect(merged["Id"] == "001")
        case .conflict(let fields):
            #expect(Set(fields) == Set(row.conflict), "row \(index)")
        }
    }

    /// Without a base, which side changed cannot be told: every difference is a conflict.
    @Test func withoutABaseEveryDifferenceIsAConflict() {
        let local: JSONValue = ["Name": "Local", "Phone": "1"]
        let server: JSONValue = ["Name": "Server", "Phone": "1"]
        #expect(ThreeWayMerge.merge(base: nil, local: local, server: server, fields: ["Name", "Phone"]) == .conflict(fields: ["Name"]))
        #expect(ThreeWayMerge.merge(base: nil, local: server, server: server, fields: ["Name", "Phone"]) == .merged(server, toSend: []))
    }

    @Test func mergedFieldsLeaveOutIdsDatesAndBookkeeping() {
        let server: JSONValue = [
            "Id": "001", "Name": "x", "LastModifiedDate": "2026-01-01T00:00:00.000+0000", "attributes": ["type": "Account"],
            "__local__": false, "_soupEntryId": 3, "Phone": .null,
        ]
        #expect(
            ThreeWayMerge.mergedFields(of: server, idFieldName: "Id", modificationDateFieldName: "LastModifiedDate") == ["Name", "Phone"])
    }
}
