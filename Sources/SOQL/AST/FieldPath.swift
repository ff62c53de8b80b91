/// A dotted field reference: `Name`, `Account.Name`, `Account.Owner.Name`.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The components as written.
    public var components: [String]
    /// Where the path starts in the query text, when it was parsed (not compared).
    public var location: SourceLocation?

    /// A path from its components.
    public init(_ components: [String], at location: SourceLocation? = nil) {
        self.components = components
        self.location = location
    }

    /// The last component: the field itself.
    public var field: String { components.last ?? "" }
    /// The relationship names leading to the field (empty for a field of the queried object).
    public var relationships: ArraySlice<String> { components.dropLast() }

    /// The components joined by dots.
    public var description: String { components.joined(separator: ".") }

    /// Paths are equal when their components are; locations are ignored.
    public static func == (lhs: FieldPath, rhs: FieldPath) -> Bool { lhs.components == rhs.components }
    /// Hashes the components only, like `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(components) }
}
