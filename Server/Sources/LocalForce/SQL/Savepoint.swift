/// Runs `body` inside a SQL savepoint: its writes are undone if it throws, the rest of the
/// transaction is kept (used for per-record results with `allOrNone: false`). The change
/// events `capture` took meanwhile are dropped with them.
func withSavepoint<T>(_ db: any SQLConnection, capture: ChangeCapture?, _ body: () throws -> T) throws -> T {
    let mark = capture?.mark
    try db.execute("SAVEPOINT lf_item", [])
    do {
        let result = try body()
        try db.execute("RELEASE SAVEPOINT lf_item", [])
        return result
    } catch {
        if let mark { capture?.rollBack(to: mark) }
        try db.execute("ROLLBACK TO SAVEPOINT lf_item", [])
        try db.execute("RELEASE SAVEPOINT lf_item", [])
        throw error
    }
}
