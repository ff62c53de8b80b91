import EncryptedSQLite
import Foundation
import GRDB
import GRDBSQLite
import Locking

/// A local store of JSON entries kept in soups, on SQLite.
///
/// The on-disk schema is SmartStore's (`soup_attrs`, `soup_index_map`,
/// `long_operations_status`, one `TABLE_N` per soup with `TABLE_N_i` index columns and an
/// optional `TABLE_N_fts` FTS5 table), so Smart SQL translates exactly as in the Salesforce
/// Mobile SDK.
///
/// <!-- snippet: Snippets/SmartStoreReference.swift#smartStore -->
/// ```swift
/// let store = try SmartStore(path: "/tmp/app/store.sqlite")
/// try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("Name", .string)])
/// let saved = try store.upsert(["Id": "001A", "Name": "Acme"], in: "accounts", externalIdPath: "Id")
/// let rows = try store.query(.smart("select {accounts:Name} from {accounts}", pageSize: 10))
/// ```
///
/// A store is `Sendable`: use it from any number of tasks. A file store uses a WAL-mode
/// connection pool, so reads run concurrently with a write; writes are serialised.
///
/// The entry, query and ingest methods come in two forms with the same name. The synchronous
/// ones block the calling thread for the duration of the SQL work. The `async` ones (chosen
/// by Swift in asynchronous code, where they need `await`) run that work on GRDB's database
/// queues and suspend the caller instead, so long store work does not hold a thread of
/// Swift's cooperative pool. Cancelling the calling task does not interrupt them: an
/// operation that has started completes, so that what a sync learnt from the server is
/// always recorded.
///
/// ### Booleans in index columns
/// JSON `true` / `false` are projected into every index column as the integers `1` / `0`, the
/// same values SQLite's `json_extract` yields for json1 and non-indexed paths. So the predicate
/// `{soup:__local__} = 1` finds dirty records whatever index type (or none) `__local__` has.
/// (In the SDK, Android stores `'true'` and iOS `1`, and the predicate only works with a
/// `string` index.)
public final class SmartStore: Sendable {
    let writer: any DatabaseWriter
    let cache = SoupCache()
    /// The database file, or `nil` for an in-memory store.
    public let path: String?
    /// Whether the store is encrypted.
    public var isEncrypted: Bool { lease != nil }
    /// Keeps the store's key registered with the encrypting VFS while the store is open.
    let lease: CipherLease?
    /// Plain read-only connections for single-statement reads of a file store (see
    /// ``ReadConnections``); `nil` for in-memory and read-only stores.
    let readers: ReadConnections?
    /// An in-memory store's locks (a file store's are in a file, opened when first needed:
    /// see ``lockFile(forTaking:)``).
    let memoryLocks: LockFile?
    /// Whether the store was opened read-only: its lock file is read, never created.
    let isReadOnly: Bool
    /// Wakes live queries on other processes' commits (file stores opened for writing only).
    let changeWatcher: ChangeWatcher?
    /// Drops an encrypted store's shared decrypted pages on memory warnings and in the background.
    let memoryRelease: MemoryRelease?
    /// The threads running an ``inTransaction(_:)`` body: the store's own calls refuse to run
    /// there (GRDB would stop the process on a nested write, and a read would not see the
    /// transaction's writes).
    let transactionThreads = Locked(Set<ObjectIdentifier>())

    /// Opens (creating if needed) the store in the SQLite file at `path`, in WAL mode, and resumes
    /// any long operation (``alterSoup(_:indexSpecs:reIndexData:)``) a crash interrupted.
    ///
    /// - Throws: ``SmartStoreError/database(_:)`` when something other than a regular file (a
    ///   directory, a FIFO, a device) is at `path`, or SQLite cannot open it.
    public convenience init(path: String) throws {
        try self.init(path: path, key: nil, resumeLongOperations: true)
    }

    /// Opens (creating if needed) the store at `path`, encrypted with `key` in SQLCipher 4's
    /// format (or in plaintext when `key` is `nil`), in WAL mode, and resumes any long operation
    /// a crash interrupted.
    ///
    /// The database, its write-ahead log and its rollback journal are encrypted page by page;
    /// temporary files stay in memory. A store written here opens in SQLCipher 4 with the same
    /// key, and the reverse (see <doc:EncryptingStores>).
    ///
    /// - Throws: ``SmartStoreError/wrongKey(path:)`` when `key` does not open the store,
    ///   ``SmartStoreError/notEncrypted(path:)`` when the file is plaintext,
    ///   ``SmartStoreError/keyRequired(path:)`` when `key` is `nil` and the file is encrypted.
    ///   The file is never changed or deleted when it cannot be opened.
    public convenience init(path: String, key: StoreKey?) throws {
        try self.init(path: path, key: key, resumeLongOperations: true)
    }

    /// Opens (creating if needed) the store at `path` as ``init(path:key:)`` does, with
    /// `options` for its connections' memory, durability and file protection (see ``StoreOptions``).
    public convenience init(path: String, key: StoreKey? = nil, options: StoreOptions) throws {
        try self.init(path: path, key: key, resumeLongOperations: true, options: options)
    }

    init(path: String, key: StoreKey?, resumeLongOperations: Bool, options: StoreOptions = .default) throws {
        guard !path.isEmpty else { throw SmartStoreError.database("A store path must not be empty") }
        try StoreFileKind.requireRegularFileOrNothing(at: path)
        let lease = try StoreEncryption.lease(
            path: path, key: key, sharedCacheKiB: options.sharedCacheKiB,
            plaintextHeader: key.map { options.usesPlaintextHeader(forStoreAt: path, key: $0) } ?? false)
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                // A folder made for the store, before SQLite creates its files there, so that
                // they inherit its class (a folder that was there holds other files too).
                StoreFileProtection.protect(folder: directory, options.fileProtection)
            }
            let configuration = Self.configuration(lease: lease, options: options)
            let location = StoreEncryption.location(of: path, lease: lease)
            writer = try DatabasePool(path: location, configuration: configuration)
            readers = ReadConnections(path: location, configuration: configuration)
            StoreFileProtection.protect(storeAt: path, options.fileProtection)
        } catch {
            throw StoreEncryption.openError(error, path: path, encrypted: lease != nil)
        }
        self.path = path
        self.lease = lease
        memoryLocks = nil
        isReadOnly = false
        let signal = platformCommitSignal(storePath: path)
        if let signal { writer.add(transactionObserver: CommitPoster(signal: signal), extent: .databaseLifetime) }
        changeWatcher = ChangeWatcher(writer: writer, signal: signal)
        memoryRelease = lease.map { MemoryRelease(lease: $0) }
        try open(resumeLongOperations: resumeLongOperations)
    }

    /// Opens an existing store file for reading only: nothing is created, migrated or resumed,
    /// and every write fails. For tools that inspect a store (`msync query`).
    ///
    /// When no write-ahead log is beside the file (no process has the store open), it is read as
    /// an immutable SQLite database, so not even the `-wal` / `-shm` files a WAL reader needs are
    /// created; otherwise it joins the existing log read-only. An encrypted store is read with
    /// `key` (see ``init(path:key:)``).
    ///
    /// - Throws: ``SmartStoreError/database(_:)`` naming the path when there is no file there,
    ///   it is not a regular file, SQLite cannot open it, or it is not a SmartStore store (no `soup_attrs` table); the
    ///   key errors of ``init(path:key:)``.
    public init(readOnlyAt path: String, key: StoreKey? = nil) throws {
        guard !path.isEmpty else { throw SmartStoreError.database("A store path must not be empty") }
        guard FileManager.default.fileExists(atPath: path) else { throw SmartStoreError.database("No store at \(path)") }
        try StoreFileKind.requireRegularFileOrNothing(at: path)
        let lease = try StoreEncryption.lease(path: path, key: key, sharedCacheKiB: StoreOptions.default.sharedCacheKiB)
        var configuration = Self.configuration(lease: lease)
        configuration.readonly = true
        var location = StoreEncryption.location(of: path, lease: lease)
        if lease == nil, !FileManager.default.fileExists(atPath: path + "-wal"), sqlite3_compileoption_used("USE_URI") == 1 {
            location = CipherVFS.plainURI(path: path, parameters: [(name: "immutable", value: "1")])
        }
        do {
            writer = try DatabaseQueue(path: location, configuration: configuration)
            let isStore = try writer.read { db in try db.tableExists("soup_attrs") }
            guard isStore else { throw SmartStoreError.database("\(path) is not a SmartStore store (it has no soup_attrs table)") }
        } catch let error as DatabaseError {
            throw StoreEncryption.openError(error, path: path, encrypted: lease != nil)
        }
        self.path = path
        self.lease = lease
        readers = nil
        memoryLocks = nil
        isReadOnly = true
        changeWatcher = nil
        memoryRelease = lease.map { MemoryRelease(lease: $0) }
    }

    /// Creates a store that lives in memory only (tests, caches).
    public init() throws {
        writer = try DatabaseQueue(configuration: Self.configuration(lease: nil))
        path = nil
        lease = nil
        readers = nil
        memoryLocks = .local()
        isReadOnly = false
        changeWatcher = nil
        memoryRelease = nil
        try open(resumeLongOperations: false)
    }

    /// The connections' configuration; with a lease, each connection is prepared for encryption.
    /// The store ends the lease when it closes or goes away (``close()``, `deinit`).
    private static func configuration(lease: CipherLease?, options: StoreOptions = .default) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // The SDK's Smart SQL (and its tests) use "" for the empty string.
        configuration.acceptsDoubleQuotedStringLiterals = true
        configuration.maximumReaderCount = options.maximumReaderCount
        configuration.observesSuspensionNotifications = options.observesSuspensionNotifications
        configuration.prepareDatabase { db in
            if let lease { try StoreEncryption.prepare(db, lease: lease) }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            let encryptedDefault = db.configuration.readonly ? StoreEncryption.readerCacheKiB : StoreEncryption.cacheKiB
            if let cacheKiB = options.cacheSizeKiB ?? (lease == nil ? nil : encryptedDefault) {
                try db.execute(sql: "PRAGMA cache_size = -\(max(1, cacheKiB))")
            }
            if options.fullFsync { try db.execute(sql: "PRAGMA fullfsync = ON") }
        }
        return configuration
    }

    /// Closes the store's connections now, rather than when the last reference to it goes.
    ///
    /// Every later use of the store throws. Close a store before changing its key
    /// (``changeKey(ofStoreAt:from:to:plaintextHeader:)``) or removing its files.
    ///
    /// - Throws: ``SmartStoreError/database(_:)`` when a connection is still in use (a query
    ///   running in another task); the store stays open then.
    public func close() throws {
        try mapErrors {
            try readers?.close()
            // The log is emptied first: GRDB closes the writer before its readers, and a
            // read-only connection closing last cannot checkpoint.
            if writer is DatabasePool { _ = try writer.writeWithoutTransaction { try $0.checkpoint(.truncate) } }
            try writer.close()
        }
        lease?.end()
    }

    deinit {
        // The plain readers close before the pool: the last connection to close checkpoints and
        // removes the write-ahead log, which a read-only connection cannot do.
        readers?.closeIdle()
        // The key is forgotten with the store, not later when GRDB releases the last
        // connection's configuration, so that the file can be reopened (or rekeyed) at once.
        lease?.end()
    }

    private func open(resumeLongOperations: Bool) throws {
        try write { db in try StoreSchema.createMetaTables(db) }
        if resumeLongOperations { try self.resumeLongOperations() }
    }

    // MARK: - Database access

    /// Runs `body` in a write transaction, mapping database errors to ``SmartStoreError``.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try refuseInsideTransaction()
        return try mapErrors { try writer.write(body) }
    }

    /// Runs `body` with a read-only connection.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try refuseInsideTransaction()
        return try mapErrors { try writer.read(body) }
    }

    /// Throws when called from an ``inTransaction(_:)`` body on this thread.
    private func refuseInsideTransaction() throws {
        let threads = transactionThreads.withLock { $0 }
        guard !threads.isEmpty, threads.contains(ObjectIdentifier(Thread.current)) else { return }
        throw SmartStoreError.database("A store call inside inTransaction: use the transaction's own calls (tx.create, tx.query…)")
    }

    /// Runs `body`, which executes a single statement, on a read-only connection without
    /// wrapping it in a transaction (one statement is atomic on its own): one of the store's
    /// plain ``ReadConnections`` when one is free, else the pool's. In-memory stores have no
    /// separate readers, so they keep the guarded `read`.
    func readSingleStatement<T>(_ body: (Database) throws -> T) throws -> T {
        guard writer is DatabasePool else { return try read(body) }
        try refuseInsideTransaction()
        return try mapErrors {
            if let result = try readers?.withConnection(body) { return result }
            return try writer.unsafeRead(body)
        }
    }

    /// Runs `body` in a write transaction on the writer's queue, suspending the caller until it
    /// ends. Not cancelled with the calling task (see the type's discussion).
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writer.asyncWrite(body) { _, result in continuation.resume(with: result.mapError(self.mapped)) }
        }
    }

    /// Runs `body` with a read-only connection, suspending the caller until it ends.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writer.asyncRead { connection in continuation.resume(with: Result { try body(connection.get()) }.mapError(self.mapped)) }
        }
    }

    /// The single-statement read above, for asynchronous callers.
    func readSingleStatement<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        guard writer is DatabasePool else { return try await read(body) }
        return try await withCheckedThrowingContinuation { continuation in
            writer.asyncUnsafeRead { connection in continuation.resume(with: Result { try body(connection.get()) }.mapError(self.mapped)) }
        }
    }

    private func mapErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw mapped(error)
        }
    }

    /// Database errors as ``SmartStoreError``; other errors unchanged.
    func mapped(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        if isEncrypted, let path, let failure = StoreEncryption.failure(error, path: path) { return failure }
        return SmartStoreError.database(error.message ?? error.description)
    }

    /// A query's database error as ``SmartStoreError/queryFailed(sql:message:)``, or as what
    /// the encrypted store says went wrong (a damaged page, a wrong key).
    func queryFailure(_ error: DatabaseError, sql: String) -> SmartStoreError {
        if isEncrypted, let path, let failure = StoreEncryption.failure(error, path: path) { return failure }
        return SmartStoreError.queryFailed(sql: sql, message: error.message ?? error.description)
    }

    /// The soup named `name`, from the cache or the meta tables.
    func soup(_ db: Database, named name: String) throws -> Soup? {
        if let soup = cache.soup(named: name) { return soup }
        guard let soup = try StoreSchema.loadSoup(db, named: name) else { return nil }
        cache.store(soup)
        return soup
    }

    /// Like ``soup(_:named:)`` but throws ``SmartStoreError/unknownSoup(_:)``.
    func requireSoup(_ db: Database, named name: String) throws -> Soup {
        guard let soup = try soup(db, named: name) else { throw SmartStoreError.unknownSoup(name) }
        return soup
    }

    /// Milliseconds since 1970, the SDK's timestamp unit.
    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The `_soupLastModifiedDate` of what a write transaction writes: the clock in
    /// milliseconds, but later than every stamp the store gave before, from any process (the
    /// last one is kept in the store, written under the write lock). So every write of an entry
    /// changes its stamp, even two in one millisecond, and a copy's stamp tells whether the
    /// entry changed since it was read. In a burst of more than one write transaction per
    /// millisecond the stamps run ahead of the clock by the excess, until the clock catches up.
    /// Takes a stamp in a write transaction of its own: every entry written after this call
    /// has a later `_soupLastModifiedDate` (a ghost cleanup tells what appeared meanwhile).
    package func takeStamp() async throws -> Int64 {
        try await write { db in try Self.stamp(db) }
    }

    static func stamp(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE store_clock SET stamp = max(stamp + 1, ?)", arguments: [now()])
        guard let stamp = try Int64.fetchOne(db, sql: "SELECT stamp FROM store_clock") else {
            throw SmartStoreError.database("The store's clock (store_clock) has no row")
        }
        return stamp
    }
}
