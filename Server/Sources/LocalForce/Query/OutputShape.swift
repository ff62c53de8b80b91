import SOQL

/// How selected columns become a record's JSON: fields in select order, relationship paths as
/// nested objects (with their own `attributes`, or `null` when the lookup is empty), child
/// subqueries as `{"totalSize","done","records"}` (or `null` without children).
final class OutputShape {
    enum Member {
        /// A field read from `column` of the row.
        case field(name: String, type: FieldType, column: Int)
        /// A `FORMAT()`ed field: `column`'s value formatted for the user (``ValueFormat``).
        case formatted(name: String, type: FieldType, column: Int)
        /// A parent relationship: its object, the column holding its Id, and its members.
        case parent(name: String, object: String, idColumn: Int, shape: OutputShape)
        /// A child relationship, filled from the subquery results.
        case children(name: String, subquery: Int)
        /// A TYPEOF relationship: the related record of the id in `idColumn`, from the
        /// `index`-th TYPEOF's results.
        case related(name: String, idColumn: Int, index: Int)
    }

    private(set) var members: [Member] = []
    private var parents: [String: OutputShape] = [:]

    func addField(_ name: String, type: FieldType, column: Int, formatted: Bool = false) {
        let taken = members.contains { member in
            switch member {
            case .field(let existing, _, _), .formatted(let existing, _, _): existing == name
            default: false
            }
        }
        guard !taken else { return }
        members.append(formatted ? .formatted(name: name, type: type, column: column) : .field(name: name, type: type, column: column))
    }

    /// The shape of the parent relationship `name`, created on first use.
    func parent(_ name: String, object: String, idColumn: () -> Int) -> OutputShape {
        if let shape = parents[name] { return shape }
        let shape = OutputShape()
        parents[name] = shape
        members.append(.parent(name: name, object: object, idColumn: idColumn(), shape: shape))
        return shape
    }

    func addRelated(_ name: String, idColumn: Int, index: Int) {
        members.append(.related(name: name, idColumn: idColumn, index: index))
    }

    func addChildren(_ name: String, subquery: Int) {
        members.append(.children(name: name, subquery: subquery))
    }
}
