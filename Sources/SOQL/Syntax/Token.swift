/// A lexical token of SOQL or SOSL.
public struct Token: Sendable, Hashable {
    /// What a token is, with its text.
    public enum Kind: Sendable, Hashable {
        /// A word: keyword or identifier (keywords are recognised by the parser, case-insensitively).
        case word(String)
        /// A single-quoted string. `value` has every escape decoded; `likePattern` keeps `\%`
        /// and `\_` escaped so LIKE can tell literal from wildcard.
        case string(value: String, likePattern: String)
        /// A number as written (`42`, `-3.5`).
        case number(String)
        /// An unquoted date `YYYY-MM-DD`.
        case date(String)
        /// An unquoted datetime `YYYY-MM-DDThh:mm:ss[.fff](Z|±hh[:]mm)`.
        case dateTime(String)
        /// Punctuation and operators: `( ) , . : = != <> < <= > >=`.
        case symbol(String)
        /// The end of the text.
        case endOfInput
    }

    /// What the token is.
    public var kind: Kind
    /// Where it starts in the query text.
    public var location: SourceLocation

    /// How the token reads in an error message (`unexpected token: X`).
    public var text: String {
        switch kind {
        case .word(let word): word
        case .string(let value, _): "'\(value)'"
        case .number(let number): number
        case .date(let date): date
        case .dateTime(let dateTime): dateTime
        case .symbol(let symbol): symbol
        case .endOfInput: "<EOF>"
        }
    }

    /// The word, upper-cased, when this token is a word.
    var keyword: String? {
        if case .word(let word) = kind { return word.uppercased() }
        return nil
    }
}
