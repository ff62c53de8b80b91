/// Runs `body` inside a SQL savepoint: its writes are undone if it throws, the rest of the
/// transaction is kept (used for per-record results with `allOrNone: false`).
func withSavepoint<T>(_ db: any SQLConnection, _ body: () throws -> T) throws -> T {
    try db.execute("SAVEPOINT lf_item", [])
    do {
        let result = try body()
        try db.execute("RELEASE SAVEPOINT lf_item", [])
        return result
    } catch {
        try db.execute("ROLLBACK TO SAVEPOINT lf_item", [])
        try db.execute("RELEASE SAVEPOINT lf_item", [])
        throw error
    }
}
