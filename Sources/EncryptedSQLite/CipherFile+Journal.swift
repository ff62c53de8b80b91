import GRDBSQLite

/// What a rollback journal needs between calls.
struct JournalState {
    /// For each page record whose page this handle wrote or read: the stored checksum minus
    /// SQLite's, by the offset of the page.
    var checksumShifts: [Int64: UInt32] = [:]
}

/// The rollback journal, in SQLCipher's layout: headers, page numbers and checksums in the
/// clear, each page encrypted with its page number, each checksum computed over the stored
/// page. A record is the page number (4 bytes), the page, and SQLite's checksum: the initial
/// value plus every 200th byte of the page, so the stored checksum differs from SQLite's by
/// the difference of those sums, which is added on writing and taken away on reading.
///
/// Pages are told apart from headers by their shape: a page is written and read whole, at an
/// offset 4 past a multiple of 8 (records start after a sector-aligned header and are
/// page size + 8 long); headers and page numbers sit at multiples of 8 or are shorter.
extension CipherFile {
    func writeJournal(_ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        if buffer.count == CipherFormat.pageSize, offset % 8 == 4 {
            guard let number = journalPageNumber(before: offset), number != 0, let codec = companionCodec() else {
                return ResultCode.ioerrWrite
            }
            let rc = writeEncrypted(buffer, number: number, codec: codec, at: offset)
            if rc == SQLITE_OK {
                journal.checksumShifts[offset] = stored.withUnsafeBytes { Self.checksumSample($0) } &- Self.checksumSample(buffer)
            }
            return rc
        }
        let pageOffset = offset - Int64(CipherFormat.pageSize)
        if buffer.count == 4, let shift = journal.checksumShifts.removeValue(forKey: pageOffset) {
            let value = Self.bigEndianWord(buffer) &+ shift
            return Self.bigEndianBytes(value).withUnsafeBytes { realWrite($0, at: offset) }
        }
        return realWrite(buffer, at: offset)
    }

    func readJournal(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        if buffer.count == CipherFormat.pageSize, offset % 8 == 4 {
            // Page number 0 ends SQLite's playback once it has read the page: zeros then.
            if journalPageNumber(before: offset) == 0 {
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                return SQLITE_OK
            }
            let rc = readJournalPage(at: offset)
            guard rc == SQLITE_OK else { return rc }
            plain.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return SQLITE_OK
        }
        let rc = realRead(buffer, at: offset)
        // SQLite reads a record's checksum right after its page; a 4-byte read anywhere else
        // (a header field) is not one.
        guard rc == SQLITE_OK, buffer.count == 4,
            let shift = journal.checksumShifts.removeValue(forKey: offset - Int64(CipherFormat.pageSize))
        else { return rc }
        let value = Self.bigEndianWord(UnsafeRawBufferPointer(buffer)) &- shift
        Self.bigEndianBytes(value).withUnsafeBytes { buffer.copyMemory(from: $0) }
        return SQLITE_OK
    }

    /// Reads and decrypts the page stored at `offset` into ``plain``, noting its checksum shift.
    private func readJournalPage(at offset: Int64) -> Int32 {
        guard let number = journalPageNumber(before: offset), number != 0, let codec = companionCodec() else { return ResultCode.ioerrRead }
        let rc = stored.withUnsafeMutableBytes { realRead($0, at: offset) }
        guard rc == SQLITE_OK else { return rc }
        do {
            try stored.withUnsafeBytes { source in
                try plain.withUnsafeMutableBytes { target in try codec.decrypt(source, page: number, into: target) }
            }
        } catch {
            registration.record(.corruptPage(number, file: .journal))
            return Self.dataError
        }
        journal.checksumShifts[offset] =
            stored.withUnsafeBytes { Self.checksumSample($0) } &- plain.withUnsafeBytes { Self.checksumSample($0) }
        return SQLITE_OK
    }

    /// The page number written just before the page at `offset` (`nil` when it cannot be read).
    private func journalPageNumber(before offset: Int64) -> UInt32? {
        guard offset >= 4 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 4)
        let rc = bytes.withUnsafeMutableBytes { realRead($0, at: offset - 4) }
        guard rc == SQLITE_OK else { return nil }
        return bytes.withUnsafeBytes { Self.bigEndianWord($0) }
    }

    /// The part of SQLite's journal checksum that depends on the page: every 200th byte,
    /// counting down from 200 before its end.
    static func checksumSample(_ page: UnsafeRawBufferPointer) -> UInt32 {
        var sum: UInt32 = 0
        var index = page.count - 200
        while index > 0 {
            sum &+= UInt32(page[index])
            index -= 200
        }
        return sum
    }

    static func bigEndianWord(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
    }

    static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }
}
