/// Why the encrypting VFS refused a read or a write of a registered file, kept so that the
/// store can turn SQLite's bare result code into a typed error.
package enum CipherFailure: Sendable, Equatable {
    /// Page 1 does not authenticate: the key is wrong (or page 1 is damaged).
    case wrongKey
    /// A key was given, but the file is a plaintext SQLite database.
    case plaintextDatabase
    /// A page other than the first does not authenticate: it was altered or damaged.
    case corruptPage(UInt32, file: CipherFileKind)
    /// SQLite wrote page 1 without the reserved bytes the cipher needs (a connection that
    /// skipped ``CipherVFS/prepare(connection:)``); nothing was written.
    case missingReserve
    /// Deriving the keys failed.
    case keyDerivation
    /// The file is encrypted with another layout of page 1 than the one asked for (a
    /// plaintext header, or the salt there): the key may be right, the options are not.
    case layoutMismatch(found: CipherLayout)
}

/// The files of a database that the VFS encrypts.
package enum CipherFileKind: Sendable, Equatable {
    /// The database file itself.
    case database
    /// Its write-ahead log (`-wal`).
    case writeAheadLog
    /// Its rollback journal (`-journal`).
    case journal
}
