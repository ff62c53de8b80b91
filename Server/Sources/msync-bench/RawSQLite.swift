import Foundation
import GRDBSQLite

/// A minimal wrapper over the SQLite C API: the baseline every store benchmark compares with.
final class RawSQLite {
    private var handle: OpaquePointer?
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw BenchError("cannot open \(path)")
        }
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            throw BenchError("\(text) in \(sql)")
        }
    }

    /// The bytes of a text or blob column of the current row (valid until the next step).
    static func columnBytes(_ row: OpaquePointer, _ column: Int32) -> UnsafeBufferPointer<UInt8> {
        let count = Int(sqlite3_column_bytes(row, column))
        guard let pointer = sqlite3_column_blob(row, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: count)
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError(String(cString: sqlite3_errmsg(handle)))
        }
        return Statement(statement)
    }

    /// A prepared statement, reset after each use.
    final class Statement {
        let pointer: OpaquePointer

        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { sqlite3_finalize(pointer) }

        func bind(_ index: Int32, _ text: [UInt8]) {
            text.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { characters in
                    _ = sqlite3_bind_text(self.pointer, index, characters.baseAddress, Int32(characters.count), RawSQLite.transient)
                }
            }
        }

        func bind(_ index: Int32, _ text: String) { sqlite3_bind_text(pointer, index, text, -1, RawSQLite.transient) }
        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(pointer, index, value) }

        /// Steps until done; calls `row` for each row. Then resets.
        func run(_ row: (OpaquePointer) -> Void = { _ in }) throws {
            defer { sqlite3_reset(pointer) }
            while true {
                let code = sqlite3_step(pointer)
                if code == SQLITE_DONE { return }
                guard code == SQLITE_ROW else { throw BenchError("step failed: \(code)") }
                row(pointer)
            }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
