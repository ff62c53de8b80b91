import GRDB
import GRDBSQLite

/// Binds values straight into a GRDB statement's SQLite statement, for the per-record writes
/// of a page ingest: no `StatementArguments`, no `String` for the document.
///
/// After ``prepare(_:)``, GRDB treats the statement's bindings as set and its `execute()`
/// only resets the statement (which keeps bindings) before stepping, so each ``bind(_:at:)``
/// applies to the next `execute()`. SQLite refuses bindings to a statement that has run and
/// not been reset: call ``reset()`` before binding the next row.
struct RawBindings {
    let statement: Statement

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Marks the statement's bindings as set (all `NULL`) for GRDB.
    static func prepare(_ statement: Statement) -> RawBindings {
        statement.setUncheckedArguments(StatementArguments())
        return RawBindings(statement: statement)
    }

    /// Resets the statement (keeping its bindings), so that it takes new ones.
    func reset() {
        sqlite3_reset(statement.sqliteStatement)
    }

    /// Binds text given as UTF-8 bytes (copied by SQLite); `index` is 1-based.
    func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32) {
        _ = bytes.withMemoryRebound(to: CChar.self) { chars in
            guard let base = chars.baseAddress else { return sqlite3_bind_text(statement.sqliteStatement, index, "", 0, nil) }
            return sqlite3_bind_text64(
                statement.sqliteStatement, index, base, sqlite3_uint64(chars.count), Self.transient, UInt8(SQLITE_UTF8))
        }
    }

    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(statement.sqliteStatement, index, value)
    }

    func bind(_ value: DatabaseValue, at index: Int32) {
        let pointer = statement.sqliteStatement
        switch value.storage {
        case .null: sqlite3_bind_null(pointer, index)
        case .int64(let int): sqlite3_bind_int64(pointer, index, int)
        case .double(let double): sqlite3_bind_double(pointer, index, double)
        case .string(var string): string.withUTF8 { bindText($0, at: index) }
        case .blob(let data):
            _ = data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(pointer, index, 0) }
                return sqlite3_bind_blob64(pointer, index, base, sqlite3_uint64(bytes.count), Self.transient)
            }
        }
    }
}
