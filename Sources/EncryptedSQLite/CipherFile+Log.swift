import GRDBSQLite

/// What a write-ahead log needs between calls.
struct LogState {
    /// A frame header SQLite wrote, held back until its page arrives (the checksum stored on
    /// disk covers the encrypted page).
    var pending: (frame: Int64, header: [UInt8])?
    /// Each frame's checksums as stored (over ciphertext) and as SQLite sees them (over
    /// plaintext), for the frames this handle wrote or read.
    var checksums: [Int64: (stored: WALChecksum, plain: WALChecksum)] = [:]
    /// Whether checksums read words big-endian, once the log header was read or written.
    var bigEndian: Bool?
    /// The frame this handle last read whole. SQLite rewrites a frame's header right after
    /// reading the frame (recomputing checksums at commit): that header is written at once,
    /// while a header for a frame being appended waits for its page.
    var lastFrameRead: Int64?
}

/// The write-ahead log, in SQLCipher's layout: the 32-byte header and each 24-byte frame header
/// in the clear, each page encrypted with its page number, and every checksum computed over
/// what is stored. SQLite computes its checksums over plaintext, so the checksums it writes
/// are replaced by stored ones, and those it reads are translated back.
extension CipherFile {
    static let logHeaderSize: Int64 = 32
    static let frameHeaderSize = 24
    static var frameSize: Int64 { Int64(frameHeaderSize + CipherFormat.pageSize) }

    static func frameOffset(_ frame: Int64) -> Int64 { logHeaderSize + (frame - 1) * frameSize }

    func writeLog(_ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        if offset < Self.logHeaderSize {
            let rc = flushPendingFrameHeader()
            guard rc == SQLITE_OK else { return rc }
            if offset == 0 {
                log.checksums.removeAll()
                log.bigEndian = buffer.count >= 4 ? buffer[3] & 1 == 1 : nil
            }
            return realWrite(buffer, at: offset)
        }
        let frame = (offset - Self.logHeaderSize) / Self.frameSize + 1
        let within = Int((offset - Self.logHeaderSize) % Self.frameSize)
        let justRead = log.lastFrameRead == frame
        log.lastFrameRead = nil
        switch (within, buffer.count) {
        case (0, Self.frameHeaderSize):
            let rc = flushPendingFrameHeader()
            guard rc == SQLITE_OK else { return rc }
            log.pending = (frame, Array(buffer))
            // A checksum rewrite of a frame on disk is written now, not when the next operation
            // comes (none may come before a crash: the commit would be lost).
            return justRead ? flushPendingFrameHeader() : SQLITE_OK
        case (Self.frameHeaderSize, CipherFormat.pageSize):
            if let pending = log.pending, pending.frame == frame {
                log.pending = nil
                return pending.header.withUnsafeBytes { writeFrame(frame, header: $0, page: buffer) }
            }
            let rc = flushPendingFrameHeader()
            guard rc == SQLITE_OK else { return rc }
            return rewritePage(frame, page: buffer)
        case (0, Int(Self.frameSize)):
            let rc = flushPendingFrameHeader()
            guard rc == SQLITE_OK else { return rc }
            return writeFrame(
                frame, header: UnsafeRawBufferPointer(rebasing: buffer[..<Self.frameHeaderSize]),
                page: UnsafeRawBufferPointer(rebasing: buffer[Self.frameHeaderSize...]))
        default:
            // Not a shape SQLite writes: refused rather than written in the clear.
            return ResultCode.ioerrWrite
        }
    }

    /// Encrypts and writes a whole frame, with the stored checksum chained from the frame before.
    private func writeFrame(_ frame: Int64, header: UnsafeRawBufferPointer, page: UnsafeRawBufferPointer) -> Int32 {
        guard let number = Self.pageNumber(header), let codec = companionCodec() else { return ResultCode.ioerrWrite }
        guard let previous = storedChecksum(before: frame) else { return ResultCode.ioerrWrite }
        var record = [UInt8](repeating: 0, count: Int(Self.frameSize))
        let encrypted = record.withUnsafeMutableBytes {
            encrypt(page, number: number, codec: codec, into: UnsafeMutableRawBufferPointer(rebasing: $0[Self.frameHeaderSize...]))
        }
        guard encrypted else { return ResultCode.ioerrWrite }
        return record.withUnsafeMutableBytes { record in
            UnsafeMutableRawBufferPointer(rebasing: record[..<16]).copyMemory(from: UnsafeRawBufferPointer(rebasing: header[..<16]))
            var checksum = previous
            checksum.add(UnsafeRawBufferPointer(rebasing: record[..<8]), bigEndian: logIsBigEndian())
            checksum.add(UnsafeRawBufferPointer(rebasing: record[Self.frameHeaderSize...]), bigEndian: logIsBigEndian())
            checksum.store(into: record, at: 16)
            log.checksums[frame] = (checksum, WALChecksum(stored: header, at: 16))
            let rc = realWrite(UnsafeRawBufferPointer(record), at: Self.frameOffset(frame))
            if rc == SQLITE_OK {
                remember(page, number: number, stored: UnsafeRawBufferPointer(rebasing: record[Self.frameHeaderSize...]), codec: codec)
            }
            return rc
        }
    }

    /// A page SQLite overwrote within its transaction: its header (and checksum) follows later.
    private func rewritePage(_ frame: Int64, page: UnsafeRawBufferPointer) -> Int32 {
        var header = [UInt8](repeating: 0, count: 4)
        let read = header.withUnsafeMutableBytes { realRead($0, at: Self.frameOffset(frame)) }
        guard read == SQLITE_OK, let number = header.withUnsafeBytes({ Self.pageNumber($0) }), let codec = companionCodec() else {
            return ResultCode.ioerrWrite
        }
        log.checksums[frame] = nil
        return writeEncrypted(page, number: number, codec: codec, at: Self.frameOffset(frame) + Int64(Self.frameHeaderSize))
    }

    /// Writes a held-back header whose page is already on disk (SQLite recomputing checksums
    /// after it overwrote pages), with the checksum recomputed over the stored page.
    func flushPendingFrameHeader() -> Int32 {
        guard let pending = log.pending else { return SQLITE_OK }
        log.pending = nil
        let offset = Self.frameOffset(pending.frame)
        let rc = stored.withUnsafeMutableBytes { realRead($0, at: offset + Int64(Self.frameHeaderSize)) }
        guard rc == SQLITE_OK, var checksum = storedChecksum(before: pending.frame) else { return ResultCode.ioerrWrite }
        var header = pending.header
        header.withUnsafeBytes { checksum.add(UnsafeRawBufferPointer(rebasing: $0[..<8]), bigEndian: logIsBigEndian()) }
        stored.withUnsafeBytes { checksum.add($0, bigEndian: logIsBigEndian()) }
        let plain = pending.header.withUnsafeBytes { WALChecksum(stored: $0, at: 16) }
        header.withUnsafeMutableBytes { checksum.store(into: $0, at: 16) }
        log.checksums[pending.frame] = (checksum, plain)
        return header.withUnsafeBytes { realWrite($0, at: offset) }
    }

    func readLog(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        let settled = flushPendingFrameHeader()
        guard settled == SQLITE_OK else { return settled }
        guard offset >= 0 else { return ResultCode.ioerrRead }
        var result = SQLITE_OK
        var done = 0
        while done < buffer.count {
            let position = offset + Int64(done)
            if position < Self.logHeaderSize {
                let count = min(buffer.count - done, Int(Self.logHeaderSize - position))
                let rc = realRead(UnsafeMutableRawBufferPointer(rebasing: buffer[done..<done + count]), at: position)
                guard rc == SQLITE_OK || rc == ResultCode.ioerrShortRead else { return rc }
                if rc != SQLITE_OK { result = rc }
                done += count
                continue
            }
            let frame = (position - Self.logHeaderSize) / Self.frameSize + 1
            let within = Int((position - Self.logHeaderSize) % Self.frameSize)
            let count = min(buffer.count - done, Int(Self.frameSize) - within)
            log.lastFrameRead = within == 0 && count == Int(Self.frameSize) ? frame : nil
            if within == Self.frameHeaderSize, count == CipherFormat.pageSize {
                // A page (SQLite's usual read): decrypted straight into SQLite's buffer.
                let rc = readFramePage(frame, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done..<done + count]))
                guard rc == SQLITE_OK || rc == ResultCode.ioerrShortRead else { return rc }
                if rc != SQLITE_OK { result = rc }
                done += count
                continue
            }
            var view = [UInt8](repeating: 0, count: Int(Self.frameSize))
            let rc = view.withUnsafeMutableBytes { plainFrame(frame, into: $0, translatingHeader: within < Self.frameHeaderSize) }
            guard rc == SQLITE_OK || rc == ResultCode.ioerrShortRead else { return rc }
            if rc != SQLITE_OK { result = rc }
            view.withUnsafeBytes { view in
                UnsafeMutableRawBufferPointer(rebasing: buffer[done..<done + count]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: view[within..<within + count]))
            }
            done += count
        }
        return result
    }

    /// The frame as SQLite wrote it: header with SQLite's checksum (when `translatingHeader`),
    /// page decrypted. A frame whose stored checksum does not chain (a torn write) gets a
    /// checksum SQLite will reject, as it would have rejected the frame.
    private func plainFrame(_ frame: Int64, into view: UnsafeMutableRawBufferPointer, translatingHeader: Bool) -> Int32 {
        let page = UnsafeMutableRawBufferPointer(rebasing: view[Self.frameHeaderSize...])
        guard translatingHeader else { return readFramePage(frame, into: page) }
        var raw = [UInt8](repeating: 0, count: Int(Self.frameSize))
        let rc = raw.withUnsafeMutableBytes { realRead($0, at: Self.frameOffset(frame)) }
        guard rc == SQLITE_OK else {
            if rc == ResultCode.ioerrShortRead { view.initializeMemory(as: UInt8.self, repeating: 0) }
            return rc
        }
        guard let previous = chainedChecksums(before: frame) else { return ResultCode.ioerrRead }
        return raw.withUnsafeBytes { raw in
            var stored = previous.stored
            stored.add(UnsafeRawBufferPointer(rebasing: raw[..<8]), bigEndian: logIsBigEndian())
            stored.add(UnsafeRawBufferPointer(rebasing: raw[Self.frameHeaderSize...]), bigEndian: logIsBigEndian())
            let chains = stored == WALChecksum(stored: raw, at: 16)
            let decrypted = decryptFramePage(raw, into: page, tolerant: !chains)
            guard decrypted == SQLITE_OK else { return decrypted }
            UnsafeMutableRawBufferPointer(rebasing: view[..<16]).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[..<16]))
            var plain = previous.plain
            plain.add(UnsafeRawBufferPointer(rebasing: view[..<8]), bigEndian: logIsBigEndian())
            plain.add(UnsafeRawBufferPointer(rebasing: view[Self.frameHeaderSize...]), bigEndian: logIsBigEndian())
            if chains {
                log.checksums[frame] = (stored, plain)
            } else {
                plain.first ^= 1
            }
            plain.store(into: view, at: 16)
            return SQLITE_OK
        }
    }

    /// Reads frame `frame` and decrypts its page into `target` (zeros past the end of the log).
    private func readFramePage(_ frame: Int64, into target: UnsafeMutableRawBufferPointer) -> Int32 {
        var raw = [UInt8](repeating: 0, count: Int(Self.frameSize))
        let rc = raw.withUnsafeMutableBytes { realRead($0, at: Self.frameOffset(frame)) }
        guard rc == SQLITE_OK else {
            if rc == ResultCode.ioerrShortRead { target.initializeMemory(as: UInt8.self, repeating: 0) }
            return rc
        }
        return raw.withUnsafeBytes { decryptFramePage($0, into: target, tolerant: false) }
    }

    /// Decrypts the page of the raw frame `raw` into `target`. With `tolerant` (a frame SQLite
    /// will discard), a page that does not authenticate becomes zeros.
    private func decryptFramePage(_ raw: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer, tolerant: Bool) -> Int32 {
        guard let codec = companionCodec() else { return ResultCode.ioerrRead }
        let number = Self.pageNumber(raw)
        do {
            guard let number else { throw PageCodec.Failure.authentication }
            let stored = UnsafeRawBufferPointer(rebasing: raw[Self.frameHeaderSize...])
            try decrypt(stored, number: number, codec: codec, into: target)
            if !tolerant {
                registration.rememberLogPage(number, salt: codec.keys.salt, plain: UnsafeRawBufferPointer(target), stored: stored)
            }
        } catch {
            guard tolerant else {
                registration.record(.corruptPage(number ?? 0, file: .writeAheadLog))
                return Self.dataError
            }
            target.initializeMemory(as: UInt8.self, repeating: 0)
        }
        return SQLITE_OK
    }

    /// The stored and plain checksums of the frame before `frame` (the log header's for the
    /// first), computed forward from the last frame known, reading each one.
    private func chainedChecksums(before frame: Int64) -> (stored: WALChecksum, plain: WALChecksum)? {
        var start = frame - 1
        while start >= 1 {
            if let known = log.checksums[start], storedChecksumOnDisk(of: start) == known.stored { break }
            start -= 1
        }
        var chain: (stored: WALChecksum, plain: WALChecksum)
        if start >= 1, let known = log.checksums[start] {
            chain = known
        } else {
            guard let header = logHeaderChecksum() else { return nil }
            chain = (header, header)
            start = 0
        }
        var next = start + 1
        while next < frame {
            var view = [UInt8](repeating: 0, count: Int(Self.frameSize))
            let rc = view.withUnsafeMutableBytes { plainFrame(next, into: $0, translatingHeader: true) }
            guard rc == SQLITE_OK, let known = log.checksums[next] else { return nil }
            chain = known
            next += 1
        }
        return chain
    }

    /// The checksum stored in the frame before `frame`, or in the log header for the first.
    private func storedChecksum(before frame: Int64) -> WALChecksum? {
        frame <= 1 ? logHeaderChecksum() : storedChecksumOnDisk(of: frame - 1)
    }

    private func storedChecksumOnDisk(of frame: Int64) -> WALChecksum? {
        var bytes = [UInt8](repeating: 0, count: 8)
        let rc = bytes.withUnsafeMutableBytes { realRead($0, at: Self.frameOffset(frame) + 16) }
        guard rc == SQLITE_OK else { return nil }
        return bytes.withUnsafeBytes { WALChecksum(stored: $0, at: 0) }
    }

    private func logHeaderChecksum() -> WALChecksum? {
        var bytes = [UInt8](repeating: 0, count: 8)
        let rc = bytes.withUnsafeMutableBytes { realRead($0, at: 24) }
        guard rc == SQLITE_OK else { return nil }
        return bytes.withUnsafeBytes { WALChecksum(stored: $0, at: 0) }
    }

    /// Whether the log's checksums read words big-endian (the magic number's low bit).
    private func logIsBigEndian() -> Bool {
        if let known = log.bigEndian { return known }
        var magic = [UInt8](repeating: 0, count: 4)
        let rc = magic.withUnsafeMutableBytes { realRead($0, at: 0) }
        guard rc == SQLITE_OK else { return false }
        log.bigEndian = magic[3] & 1 == 1
        return magic[3] & 1 == 1
    }

    /// The page number at the start of a frame header; `nil` for 0.
    static func pageNumber(_ header: UnsafeRawBufferPointer) -> UInt32? {
        guard header.count >= 4 else { return nil }
        let value = UInt32(header[0]) << 24 | UInt32(header[1]) << 16 | UInt32(header[2]) << 8 | UInt32(header[3])
        return value == 0 ? nil : value
    }
}
