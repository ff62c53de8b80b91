/// Bound values collected while SQL text is generated, in text order.
final class SQLArguments {
    private(set) var values: [SQLValue] = []
    let dialect: SQLDialect

    init(dialect: SQLDialect) {
        self.dialect = dialect
    }

    /// Binds `value` and returns its placeholder.
    func bind(_ value: SQLValue) -> String {
        values.append(value)
        return dialect.placeholder(values.count)
    }
}
