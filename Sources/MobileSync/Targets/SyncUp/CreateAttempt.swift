import FastJSON
import SalesforceWire

/// A create sent without learning its outcome yet, as recorded in the record's
/// `__create_attempt__` before the request leaves (see ``CreateReconciler``).
struct CreateAttempt: Equatable {
    /// The server's time (epoch ms, from its `Date` header) read before the create was sent: a
    /// record the create made has a `CreatedDate` at or after it.
    /// When the record was sent more than once, the first sending's: a record made by any of
    /// them has a `CreatedDate` at or after it.
    var notBefore: Int64
    /// The server's time read before the latest sending (`notBefore` when sent once): that
    /// request may still be running on the server, and land, until a while after it.
    var lastSent: Int64
    /// The fields exactly as sent.
    var sent: [String: JSONValue]
    /// Whether the API answered the latest sending (an error of its own, for the whole
    /// request): that request ended, so it cannot land later.
    var ended = false

    var json: JSONValue {
        var json: JSONValue = ["notBefore": .int(notBefore), "lastSent": .int(lastSent), "sent": .object(sent)]
        if ended { json["ended"] = true }
        return json
    }

    /// The attempt a record carries; nil when it carries none or one this version cannot read
    /// (``isRecorded(in:)`` tells the two apart). A stamp without `lastSent` was sent once.
    init?(_ record: JSONValue) {
        guard let stamp = record[LocalFields.createAttempt], let notBefore = stamp["notBefore"]?.int64Value,
            let sent = stamp["sent"]?.objectValue
        else { return nil }
        self.init(notBefore: notBefore, lastSent: stamp["lastSent"]?.int64Value ?? notBefore, sent: sent)
        ended = stamp["ended"]?.boolValue ?? false
    }

    init(notBefore: Int64, lastSent: Int64, sent: [String: JSONValue]) {
        self.notBefore = notBefore
        self.lastSent = lastSent
        self.sent = sent
    }

    /// Whether a record carries an attempt mark at all, readable or not.
    static func isRecorded(in record: JSONValue) -> Bool {
        if case .null? = record[LocalFields.createAttempt] { return false }
        return record[LocalFields.createAttempt] != nil
    }

    /// Whether a server record holds the values sent. Sent values are compared with what the
    /// server returns as Salesforce stores them: numbers by value, date-times by instant, an
    /// empty string as null.
    func wasSent(as server: JSONValue) -> Bool {
        sent.allSatisfy { field, value in Self.same(value, server[field] ?? .null) }
    }

    /// Whether the record's current values differ from those sent (edited after the send).
    func differs(from current: [String: JSONValue]) -> Bool {
        Set(sent.keys) != Set(current.keys) || sent.contains { field, value in current[field].map { !Self.same(value, $0) } ?? true }
    }

    /// Sent values as one text, equal for values ``same(_:_:)`` finds equal (keys in order).
    static func signature(_ sent: [String: JSONValue]) -> String {
        sent.sorted { $0.key < $1.key }.map { field, value in
            let normalized: String =
                switch value {
                case .int(let int): "n:\(Double(int))"
                case .double(let double): "n:\(double)"
                case .null, .string(""): "null"
                case .string(let text): SalesforceTime.parse(text).map { "t:\($0)" } ?? value.jsonString
                default: value.jsonString
                }
            return JSONValue.string(field).jsonString + "=" + normalized
        }.joined(separator: ",")
    }

    static func same(_ sent: JSONValue, _ stored: JSONValue) -> Bool {
        switch (sent, stored) {
        case (.string(let a), .string(let b)):
            if a == b { return true }
            guard let left = SalesforceTime.parse(a), let right = SalesforceTime.parse(b) else { return false }
            return left == right
        case (.int(let a), .int(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(""), .null), (.null, .string("")): return true
        default: return sent == stored
        }
    }
}
