public import Foundation

/// One rule of the briefcase served by `/connect/briefcase/priming-records`: the records of an
/// object matching a SOQL condition.
public struct BriefcaseRule: Sendable, Hashable, Decodable {
    /// The sObject type whose records the briefcase holds.
    public var object: String
    /// A SOQL WHERE condition (without `WHERE`), or nil for every record.
    public var condition: String?

    /// A rule; nil `condition` takes every record of `object`.
    public init(object: String, condition: String? = nil) {
        self.object = object
        self.condition = condition
    }

    enum CodingKeys: String, CodingKey {
        case object
        case condition = "where"
    }

    /// Reads `{"rules": [{"object": "Account", "where": "Industry = 'Energy'"}, …]}`.
    public static func load(contentsOf url: URL) throws -> [BriefcaseRule] {
        struct File: Decodable { var rules: [BriefcaseRule] }
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).rules
    }
}
