import GRDBSQLite

/// The database file: every page encrypted in place, at the same offsets SQLite uses.
extension CipherFile {
    private static var pageSize: Int64 { Int64(CipherFormat.pageSize) }

    func readDatabase(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        guard !isPlaintext else { return refusePlaintext() }
        guard offset >= 0 else { return ResultCode.ioerrRead }
        var result = SQLITE_OK
        var done = 0
        while done < buffer.count {
            let position = offset + Int64(done)
            let index = position / Self.pageSize
            let within = Int(position % Self.pageSize)
            let count = min(buffer.count - done, CipherFormat.pageSize - within)
            let rc = readPlainPage(index: index)
            if rc == ResultCode.ioerrShortRead {
                result = ResultCode.ioerrShortRead
            } else if rc != SQLITE_OK {
                return rc
            }
            plain.withUnsafeBytes { page in
                UnsafeMutableRawBufferPointer(rebasing: buffer[done..<done + count]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: page[within..<within + count]))
            }
            done += count
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
        if number == 1, stored.starts(with: CipherFormat.sqliteHeader) {
            isPlaintext = true
            return refusePlaintext()
        }
        guard let codec = databaseCodec(salt: number == 1 ? Array(stored.prefix(CipherFormat.saltSize)) : nil) else {
            return ResultCode.ioerrRead
        }
        do {
            try stored.withUnsafeBytes { source in
                try plain.withUnsafeMutableBytes { target in try codec.decrypt(source, page: number, into: target) }
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
        var done = 0
        while done < buffer.count {
            let position = offset + Int64(done)
            let index = position / Self.pageSize
            let within = Int(position % Self.pageSize)
            let count = min(buffer.count - done, CipherFormat.pageSize - within)
            if within != 0 || count != CipherFormat.pageSize {
                // A partial page (SQLite writes whole pages; kept correct all the same).
                let rc = readPlainPage(index: index)
                guard rc == SQLITE_OK || rc == ResultCode.ioerrShortRead else { return rc }
            }
            plain.withUnsafeMutableBytes { page in
                UnsafeMutableRawBufferPointer(rebasing: page[within..<within + count]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: buffer[done..<done + count]))
            }
            let rc = writePlainPage(index: index)
            guard rc == SQLITE_OK else { return rc }
            done += count
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
            return copy.withUnsafeBytes { realWrite($0, at: index * Self.pageSize) }
        }
        do {
            let iv = randomPool.nextIV()
            try plain.withUnsafeBytes { source in
                try stored.withUnsafeMutableBytes { target in try codec.encrypt(source, page: number, iv: iv, into: target) }
            }
        } catch {
            return ResultCode.ioerrWrite
        }
        return stored.withUnsafeBytes { realWrite($0, at: index * Self.pageSize) }
    }

    private func refusePlaintext() -> Int32 {
        registration.record(.plaintextDatabase)
        return SQLITE_NOTADB
    }
}
