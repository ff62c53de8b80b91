import GRDBSQLite

/// One open encrypted file: the platform's file it wraps, and what reading and writing it
/// through the cipher needs. SQLite uses a file from one thread at a time.
final class CipherFile {
    /// The platform's file, inside the memory SQLite allocated for ours.
    let real: UnsafeMutablePointer<sqlite3_file>
    /// Which file of the database this is.
    let kind: CipherFileKind
    /// The key and shared state of the database.
    let registration: CipherRegistration
    /// The codec of the keys in use, once known.
    var codec: PageCodec?
    /// Set when a key was given for a plaintext database file.
    var isPlaintext = false
    /// A page as stored and a page as SQLite sees it, reused by every operation.
    var stored = [UInt8](repeating: 0, count: CipherFormat.pageSize)
    var plain = [UInt8](repeating: 0, count: CipherFormat.pageSize)
    /// Where IVs come from.
    var randomPool = RandomPool()
    /// The write-ahead log's translation state.
    var log = LogState()
    /// The rollback journal's translation state.
    var journal = JournalState()

    /// The result code of a page that fails its HMAC (`ResultCode.ioerrData`, as SQLite's
    /// checksum VFS reports a mismatch).
    static let dataError = ResultCode.ioerrData

    init(real: UnsafeMutablePointer<sqlite3_file>, kind: CipherFileKind, registration: CipherRegistration) {
        self.real = real
        self.kind = kind
        self.registration = registration
    }

    // MARK: - Keys

    /// Reads the start of a database file when it opens: whether it is plaintext (the keys
    /// derive from its salt when first needed).
    func openDatabase() -> Int32 {
        var size: sqlite3_int64 = 0
        let rc = realFileSize(&size)
        guard rc == SQLITE_OK else { return rc }
        guard size >= CipherFormat.layoutProbeSize else { return SQLITE_OK }
        var head = [UInt8](repeating: 0, count: CipherFormat.layoutProbeSize)
        let read = head.withUnsafeMutableBytes { realRead($0, at: 0) }
        guard read == SQLITE_OK else { return read }
        isPlaintext = CipherLayout.of(fileStart: head) == nil
        return SQLITE_OK
    }

    /// Whether page 1 as stored (`head`, its first bytes) is laid out as the registration says;
    /// records why not. A plaintext file sets ``isPlaintext``.
    func checkLayout(ofPage1 head: [UInt8]) -> Int32 {
        guard let found = CipherLayout.of(fileStart: head) else {
            isPlaintext = true
            registration.record(.plaintextDatabase)
            return SQLITE_NOTADB
        }
        guard found == registration.layout else {
            registration.record(.layoutMismatch(found: found))
            return SQLITE_NOTADB
        }
        return SQLITE_OK
    }

    /// The codec for a database whose page 1 starts with `salt` (the registration's salt for a
    /// new file, or for any file with a plaintext header, when `salt` is `nil`).
    func databaseCodec(salt: [UInt8]?) -> PageCodec? {
        let salt = salt ?? codec?.keys.salt ?? registration.newFileSalt
        if let codec, codec.keys.salt == salt { return codec }
        do {
            codec = PageCodec(keys: try registration.keys(salt: salt), layout: registration.layout)
        } catch {
            registration.record(.keyDerivation)
            codec = nil
        }
        return codec
    }

    /// The salt of the database a WAL or journal belongs to, read when it opens (`nil` for a
    /// database with no pages yet, which will get the registration's new-file salt).
    var databaseSalt: [UInt8]?

    /// The codec of the WAL or journal: that of the database they belong to, from its salt.
    func companionCodec() -> PageCodec? {
        if let codec { return codec }
        do {
            codec = PageCodec(keys: try registration.keys(salt: databaseSalt ?? registration.newFileSalt), layout: registration.layout)
        } catch {
            registration.record(.keyDerivation)
        }
        return codec
    }

    // MARK: - Encryption

    /// Encrypts `page` as page `number` into `target`, with a fresh IV; `false` when the cipher fails.
    func encrypt(_ page: UnsafeRawBufferPointer, number: UInt32, codec: PageCodec, into target: UnsafeMutableRawBufferPointer) -> Bool {
        do {
            try codec.encrypt(page, page: number, iv: randomPool.nextIV(), into: target)
            return true
        } catch {
            return false
        }
    }

    /// Encrypts `page` as page `number` into ``stored`` and writes it at `offset`; a page of the
    /// database or its log joins the shared cache (see ``remember(_:number:stored:codec:)``).
    func writeEncrypted(_ page: UnsafeRawBufferPointer, number: UInt32, codec: PageCodec, at offset: Int64) -> Int32 {
        guard stored.withUnsafeMutableBytes({ encrypt(page, number: number, codec: codec, into: $0) }) else { return ResultCode.ioerrWrite }
        let rc = stored.withUnsafeBytes { realWrite($0, at: offset) }
        // A journal's before-images are read back only by a rollback, which decrypts them.
        if rc == SQLITE_OK, kind != .journal { stored.withUnsafeBytes { remember(page, number: number, stored: $0, codec: codec) } }
        return rc
    }

    /// Decrypts the stored page `stored` numbered `number` into `target`, from the shared page
    /// cache when it holds the page with the same IV and HMAC, else after checking its HMAC
    /// (and then kept in the cache).
    func decrypt(_ stored: UnsafeRawBufferPointer, number: UInt32, codec: PageCodec, into target: UnsafeMutableRawBufferPointer)
        throws(PageCodec.Failure)
    {
        let pages = registration.pages
        if pages.copy(page: number, salt: codec.keys.salt, stored: stored, into: target) { return }
        try codec.decrypt(stored, page: number, into: target)
        pages.insert(page: number, salt: codec.keys.salt, stored: stored, plain: UnsafeRawBufferPointer(target))
    }

    /// Keeps the plaintext `page` that was just stored, encrypted, as `stored` in the shared
    /// page cache: the next read of it by any connection needs no decryption.
    func remember(_ page: UnsafeRawBufferPointer, number: UInt32, stored: UnsafeRawBufferPointer, codec: PageCodec) {
        registration.pages.insert(page: number, salt: codec.keys.salt, stored: stored, plain: page)
    }

    // MARK: - The platform file

    func realRead(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        guard let call = real.pointee.pMethods?.pointee.xRead else { return ResultCode.ioerrRead }
        return call(real, buffer.baseAddress, Int32(buffer.count), offset)
    }

    func realWrite(_ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        guard let call = real.pointee.pMethods?.pointee.xWrite else { return ResultCode.ioerrWrite }
        return call(real, buffer.baseAddress, Int32(buffer.count), offset)
    }

    func realFileSize(_ size: inout sqlite3_int64) -> Int32 {
        guard let call = real.pointee.pMethods?.pointee.xFileSize else { return ResultCode.ioerrFstat }
        return call(real, &size)
    }

    // MARK: - Dispatch

    func read(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        switch kind {
        case .database: readDatabase(buffer, at: offset)
        case .writeAheadLog: readLog(buffer, at: offset)
        case .journal: readJournal(buffer, at: offset)
        }
    }

    func write(_ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        switch kind {
        case .database: writeDatabase(buffer, at: offset)
        case .writeAheadLog: writeLog(buffer, at: offset)
        case .journal: writeJournal(buffer, at: offset)
        }
    }

    /// Writes what is held back (a WAL frame header) before any other operation.
    func settle() -> Int32 {
        kind == .writeAheadLog ? flushPendingFrameHeader() : SQLITE_OK
    }
}
