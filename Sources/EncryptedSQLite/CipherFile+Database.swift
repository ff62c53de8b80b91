import GRDBSQLite

/// The database file: every page encrypted in place, at the same offsets SQLite uses.
extension CipherFile {
    private static var pageSize: Int64 { Int64(CipherFormat.pageSize) }

    func readDatabase(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        guard !isPlaintext else { return refusePlaintext() }
        guard offset >= 0 else { return ResultCode.ioerrRead }
        var result = SQLITE_OK
        for span in PageSpans(offset: offset, count: buffer.count) {
            let rc = readPlainPage(index: span.index)
            if rc == ResultCode.ioerrShortRead {
                result = ResultCode.ioerrShortRead
            } else if rc != SQLITE_OK {
                return rc
            }
            plain.withUnsafeBytes { page in
                UnsafeMutableRawBufferPointer(rebasing: buffer[span.done..<span.done + span.count]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: page[span.within..<span.within + span.count]))
            }
        }
        return result
    }

    /// Reads page `index` (0-based) into ``plain``: zeros and `ResultCode.ioerrShortRead` past
    /// the end of the file.
    private func readPlainPage(index: Int64) -> Int32 {
        guard let number = UInt32(exactly: index + 1) else { return ResultCode.ioerrRead }
        let rc = stored.withUnsafeMutableBytes { realRead($0, at: index * Self.pageSize) }
        guard rc == SQLITE_OK || rc == ResultCode.ioerrShortRead else { return rc }
        if rc == ResultCode.ioerrShortRead, !stored.contains(where: { $0 != 0 }) {
            for position in plain.indices { plain[position] = 0 }
            return rc
        }
        if number == 1 {
            let layout = checkLayout(ofPage1: Array(stored.prefix(CipherFormat.layoutProbeSize)))
            guard layout == SQLITE_OK else { return layout }
        }
        // Page 1 of the salt layout names its salt; a plaintext header's is the registration's.
        let salt = number == 1 && registration.layout == .saltHeader ? Array(stored.prefix(CipherFormat.saltSize)) : nil
        guard let codec = databaseCodec(salt: salt) else { return ResultCode.ioerrRead }
        do {
            try stored.withUnsafeBytes { source in
                try plain.withUnsafeMutableBytes { target in try decrypt(source, number: number, codec: codec, into: target) }
            }
        } catch {
            if number == 1 {
                registration.record(.wrongKey)
                return SQLITE_NOTADB
            }
            registration.record(.corruptPage(number, file: .database))
            return Self.dataError
        }
        return rc
    }

    func writeDatabase(_ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        guard !isPlaintext else { return refusePlaintext() }
        guard offset >= 0 else { return ResultCode.ioerrWrite }
        for span in PageSpans(offset: offset, count: buffer.count) {
            if span.within != 0 || span.count != CipherFormat.pageSize {
                // A partial page (SQLite writes whole pages; kept correct all the same).
                let rc = readPlainPage(index: span.index)
                guard rc == SQLITE_OK || rc == ResultCode.ioerrShortRead else { return rc }
            }
            plain.withUnsafeMutableBytes { page in
                UnsafeMutableRawBufferPointer(rebasing: page[span.within..<span.within + span.count]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: buffer[span.done..<span.done + span.count]))
            }
            let rc = writePlainPage(index: span.index)
            guard rc == SQLITE_OK else { return rc }
        }
        return SQLITE_OK
    }

    /// Encrypts ``plain`` as page `index` (0-based) and writes it.
    private func writePlainPage(index: Int64) -> Int32 {
        guard let number = UInt32(exactly: index + 1) else { return ResultCode.ioerrWrite }
        if number == 1 {
            // SQLite's header: the page size (big-endian at 16) and the reserved bytes (at 20)
            // must leave the cipher its room, or encrypting would overwrite SQLite's data.
            let pageSize = Int(plain[16]) << 8 | Int(plain[17])
            guard pageSize == CipherFormat.pageSize, Int(plain[20]) >= CipherFormat.reserveSize else {
                registration.record(.missingReserve)
                return ResultCode.ioerrWrite
            }
        }
        guard let codec = databaseCodec(salt: nil) else { return ResultCode.ioerrWrite }
        // A checkpoint copying a page it just read from the log: stored as the log stores it.
        if let copy = plain.withUnsafeBytes({ registration.storedCopy(ofPage: number, salt: codec.keys.salt, plain: $0) }) {
            let rc = copy.withUnsafeBytes { realWrite($0, at: index * Self.pageSize) }
            if rc == SQLITE_OK {
                plain.withUnsafeBytes { page in copy.withUnsafeBytes { remember(page, number: number, stored: $0, codec: codec) } }
            }
            return rc
        }
        return plain.withUnsafeBytes { writeEncrypted($0, number: number, codec: codec, at: index * Self.pageSize) }
    }

    private func refusePlaintext() -> Int32 {
        registration.record(.plaintextDatabase)
        return SQLITE_NOTADB
    }
}

/// The pages a read or write of `count` bytes at `offset` touches, in order.
struct PageSpans: Sequence, IteratorProtocol {
    /// One page's part of the range.
    struct Span {
        /// The page's index (0-based).
        let index: Int64
        /// Where the range starts within the page.
        let within: Int
        /// Where the page's part starts within the range.
        let done: Int
        /// The bytes of the range in the page.
        let count: Int
    }

    let offset: Int64
    let count: Int
    private var done = 0

    init(offset: Int64, count: Int) {
        self.offset = offset
        self.count = count
    }

    mutating func next() -> Span? {
        guard done < count else { return nil }
        let position = offset + Int64(done)
        let pageSize = Int64(CipherFormat.pageSize)
        let within = Int(position % pageSize)
        let span = Span(
            index: position / pageSize, within: within, done: done, count: Swift.min(count - done, CipherFormat.pageSize - within))
        done += span.count
        return span
    }
}
