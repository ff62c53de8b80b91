/// A value bound to or read from SQL, independent of the database backend.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    var isNull: Bool { self == .null }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value.rounded(.towardZero))
        default: nil
        }
    }
}
