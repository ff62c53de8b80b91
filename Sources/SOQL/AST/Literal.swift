/// A value written in a query.
public enum Literal: Sendable, Hashable {
    case null
    case boolean(Bool)
    /// A number, kept as written so no precision is lost (`42`, `-3.50`).
    case number(String)
    /// A string. `likePattern` keeps `\%` and `\_` escaped (see ``Token/Kind/string(value:likePattern:)``).
    case string(String, likePattern: String)
    /// `YYYY-MM-DD`.
    case date(String)
    /// `YYYY-MM-DDThh:mm:ss[.fff](Z|±hh[:]mm)`.
    case dateTime(String)
    /// `TODAY`, `LAST_N_DAYS:30`, …
    case dateLiteral(DateLiteral)
    /// A currency amount of a multi-currency org, as written: ISO code then digits, with an
    /// optional fraction (`USD5000`, `EUR3.50`).
    case currency(String)

    /// A string literal without LIKE escapes.
    public static func string(_ value: String) -> Literal {
        .string(value, likePattern: value.replacingLikeEscapes())
    }
}

extension String {
    /// Escapes `\`, `%` and `_` so the text matches itself in a LIKE pattern.
    func replacingLikeEscapes() -> String {
        var result = ""
        for character in self {
            if character == "\\" || character == "%" || character == "_" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
