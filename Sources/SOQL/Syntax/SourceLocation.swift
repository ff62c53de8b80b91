/// A position in a query text: 1-based line and column, and the 0-based UTF-8 offset.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, in UTF-8 bytes from the start of the line (a character outside ASCII counts 2 to 4).
    public var column: Int
    /// The offset in UTF-8 bytes, from 0.
    public var offset: Int

    /// A position; see the properties.
    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// `Row:N:Column:M`, Salesforce's wording.
    public var description: String { "Row:\(line):Column:\(column)" }
}
