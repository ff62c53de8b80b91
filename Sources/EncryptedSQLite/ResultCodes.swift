import GRDBSQLite

/// SQLite's extended result codes, which Swift does not import from `<sqlite3.h>` (they are
/// macros over other macros): the primary code | (n << 8), as sqlite3.h defines them.
enum ResultCode {
    /// `SQLITE_IOERR_READ`.
    static let ioerrRead = SQLITE_IOERR | (1 << 8)
    /// `SQLITE_IOERR_SHORT_READ`.
    static let ioerrShortRead = SQLITE_IOERR | (2 << 8)
    /// `SQLITE_IOERR_WRITE`.
    static let ioerrWrite = SQLITE_IOERR | (3 << 8)
    /// `SQLITE_IOERR_FSYNC`.
    static let ioerrFsync = SQLITE_IOERR | (4 << 8)
    /// `SQLITE_IOERR_TRUNCATE`.
    static let ioerrTruncate = SQLITE_IOERR | (6 << 8)
    /// `SQLITE_IOERR_FSTAT`.
    static let ioerrFstat = SQLITE_IOERR | (7 << 8)
    /// `SQLITE_IOERR_UNLOCK`.
    static let ioerrUnlock = SQLITE_IOERR | (8 << 8)
    /// `SQLITE_IOERR_CHECKRESERVEDLOCK`.
    static let ioerrCheckReservedLock = SQLITE_IOERR | (14 << 8)
    /// `SQLITE_IOERR_LOCK`.
    static let ioerrLock = SQLITE_IOERR | (15 << 8)
    /// `SQLITE_IOERR_CLOSE`.
    static let ioerrClose = SQLITE_IOERR | (16 << 8)
    /// `SQLITE_IOERR_SHMLOCK`.
    static let ioerrShmLock = SQLITE_IOERR | (20 << 8)
    /// `SQLITE_IOERR_SHMMAP`.
    static let ioerrShmMap = SQLITE_IOERR | (21 << 8)
    /// `SQLITE_IOERR_DATA`.
    static let ioerrData = SQLITE_IOERR | (32 << 8)
    /// `SQLITE_OK_SYMLINK`: a path resolved through a symbolic link.
    static let okSymlink = SQLITE_OK | (2 << 8)
}
