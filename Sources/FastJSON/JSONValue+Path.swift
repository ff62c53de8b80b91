extension JSONValue {
    /// The value at a dot-separated path, as SmartStore projects index paths.
    ///
    /// Arrays met along the way are traversed element-wise and the results flattened:
    /// in `{"a":{"b":[{"c":"xx"},{"c":"xy"}]}}` the path `a.b.c` is `["xx","xy"]`. A traversal
    /// through arrays that finds nothing gives `nil`.
    ///
    /// - Returns: `nil` when the path is missing, `.null` when it is present with a null value.
    public func value(atPath path: String) -> JSONValue? {
        // Most index paths are one member name: looked up without splitting the path.
        if case .object(let members) = self, !path.utf8.contains(UInt8(ascii: ".")) { return members[path] }
        return project(path.split(separator: ".", omittingEmptySubsequences: false)[...])
    }

    private func project(_ components: ArraySlice<Substring>) -> JSONValue? {
        guard let first = components.first else { return self }
        switch self {
        case .object(let members):
            guard let child = members[String(first)] else { return nil }
            return child.project(components.dropFirst())
        case .array(let elements):
            var results: [JSONValue] = []
            for element in elements {
                switch element.project(components) {
                case .array(let nested)?: results.append(contentsOf: nested)
                case let value?: results.append(value)
                case nil: continue
                }
            }
            return results.isEmpty ? nil : .array(results)
        default:
            return nil
        }
    }
}
