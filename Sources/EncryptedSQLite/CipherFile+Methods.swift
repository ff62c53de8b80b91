import GRDBSQLite

/// The C entry points: SQLite's VFS calls, routed to the ``CipherFile`` of each open file.
extension CipherFile {
    /// Opens a file for SQLite: encrypted when it belongs to a registered database, otherwise
    /// the platform VFS opens it in place, as if this VFS were not there.
    static func open(
        name: UnsafePointer<CChar>?, file: UnsafeMutablePointer<sqlite3_file>?, flags: Int32, outFlags: UnsafeMutablePointer<Int32>?
    ) -> Int32 {
        guard let installation = Installation.shared, let file, let baseOpen = installation.base.pointee.xOpen else {
            return SQLITE_CANTOPEN
        }
        guard let name, let kind = kind(flags: flags), let registration = CipherVFS.registration(forFile: String(cString: name), kind: kind)
        else {
            return baseOpen(installation.base, name, file, flags, outFlags)
        }
        file.pointee.pMethods = nil
        let real = realFile(file)
        let rc = baseOpen(installation.base, name, real, flags, outFlags)
        guard rc == SQLITE_OK else {
            if let close = real.pointee.pMethods?.pointee.xClose { _ = close(real) }
            return rc
        }
        let context = CipherFile(real: real, kind: kind, registration: registration)
        if kind == .database {
            let opened = context.openDatabase()
            guard opened == SQLITE_OK else {
                if let close = real.pointee.pMethods?.pointee.xClose { _ = close(real) }
                return opened
            }
        } else {
            let path = String(cString: name)
            context.databaseSalt = CipherFormat.salt(ofDatabaseAt: String(path.dropLast(kind == .writeAheadLog ? 4 : 8)))
        }
        UnsafeMutableRawPointer(file).advanced(by: Installation.contextOffset).storeBytes(
            of: Unmanaged.passRetained(context).toOpaque(), as: UnsafeMutableRawPointer.self)
        file.pointee.pMethods = UnsafePointer(installation.methods)
        return SQLITE_OK
    }

    private static func kind(flags: Int32) -> CipherFileKind? {
        if flags & SQLITE_OPEN_MAIN_DB != 0 { return .database }
        if flags & SQLITE_OPEN_WAL != 0 { return .writeAheadLog }
        if flags & SQLITE_OPEN_MAIN_JOURNAL != 0 { return .journal }
        return nil
    }

    private static func realFile(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        UnsafeMutableRawPointer(file).advanced(by: Installation.headerSize).assumingMemoryBound(to: sqlite3_file.self)
    }

    private static func context(_ file: UnsafeMutablePointer<sqlite3_file>?) -> CipherFile? {
        guard let file else { return nil }
        let slot = UnsafeMutableRawPointer(file).advanced(by: Installation.contextOffset).load(as: UnsafeMutableRawPointer.self)
        return Unmanaged<CipherFile>.fromOpaque(slot).takeUnretainedValue()
    }

    /// The platform file's method `method`, applied after the held-back state is written.
    private static func forward<R>(
        _ file: UnsafeMutablePointer<sqlite3_file>?, failure: R,
        _ body: (UnsafeMutablePointer<sqlite3_file>, sqlite3_io_methods) -> R?
    ) -> R {
        guard let context = context(file), let methods = context.real.pointee.pMethods?.pointee else { return failure }
        return body(context.real, methods) ?? failure
    }

    /// The method table of an encrypted file (version 2: no memory-mapped reads, which would
    /// bypass decryption).
    static func methods() -> sqlite3_io_methods {
        var methods = sqlite3_io_methods()
        methods.iVersion = 2
        methods.xClose = { file in
            guard let file, let context = CipherFile.context(file) else { return ResultCode.ioerrClose }
            let settled = context.settle()
            var rc = SQLITE_OK
            if let close = context.real.pointee.pMethods?.pointee.xClose { rc = close(context.real) }
            let slot = UnsafeMutableRawPointer(file).advanced(by: Installation.contextOffset)
            Unmanaged<CipherFile>.fromOpaque(slot.load(as: UnsafeMutableRawPointer.self)).release()
            file.pointee.pMethods = nil
            return settled == SQLITE_OK ? rc : settled
        }
        methods.xRead = { file, buffer, amount, offset in
            guard let context = CipherFile.context(file), let buffer, amount >= 0 else { return ResultCode.ioerrRead }
            return context.read(UnsafeMutableRawBufferPointer(start: buffer, count: Int(amount)), at: offset)
        }
        methods.xWrite = { file, buffer, amount, offset in
            guard let context = CipherFile.context(file), let buffer, amount >= 0 else { return ResultCode.ioerrWrite }
            return context.write(UnsafeRawBufferPointer(start: buffer, count: Int(amount)), at: offset)
        }
        methods.xTruncate = { file, size in
            guard let context = CipherFile.context(file) else { return ResultCode.ioerrTruncate }
            let settled = context.settle()
            guard settled == SQLITE_OK else { return settled }
            context.log.checksums = context.log.checksums.filter { CipherFile.frameOffset($0.key) + CipherFile.frameSize <= size }
            context.journal.checksumShifts.removeAll()
            return CipherFile.forward(file, failure: ResultCode.ioerrTruncate) { real, methods in methods.xTruncate?(real, size) }
        }
        methods.xSync = { file, flags in
            guard let context = CipherFile.context(file) else { return ResultCode.ioerrFsync }
            let settled = context.settle()
            guard settled == SQLITE_OK else { return settled }
            return CipherFile.forward(file, failure: ResultCode.ioerrFsync) { real, methods in methods.xSync?(real, flags) }
        }
        methods.xFileSize = { file, size in
            guard let context = CipherFile.context(file) else { return ResultCode.ioerrFstat }
            let settled = context.settle()
            guard settled == SQLITE_OK else { return settled }
            return CipherFile.forward(file, failure: ResultCode.ioerrFstat) { real, methods in methods.xFileSize?(real, size) }
        }
        methods.xLock = { file, level in
            CipherFile.forward(file, failure: ResultCode.ioerrLock) { real, methods in methods.xLock?(real, level) }
        }
        methods.xUnlock = { file, level in
            CipherFile.forward(file, failure: ResultCode.ioerrUnlock) { real, methods in methods.xUnlock?(real, level) }
        }
        methods.xCheckReservedLock = { file, result in
            CipherFile.forward(file, failure: ResultCode.ioerrCheckReservedLock) { real, methods in
                methods.xCheckReservedLock?(real, result)
            }
        }
        methods.xFileControl = { file, operation, argument in
            CipherFile.forward(file, failure: SQLITE_NOTFOUND) { real, methods in methods.xFileControl?(real, operation, argument) }
        }
        methods.xSectorSize = { file in
            CipherFile.forward(file, failure: 4096) { real, methods in methods.xSectorSize?(real) }
        }
        methods.xDeviceCharacteristics = { file in
            // No batch-atomic writes: SQLite would skip the journal and hand the file writes
            // that are not whole pages.
            CipherFile.forward(file, failure: 0) { real, methods in methods.xDeviceCharacteristics?(real) } & ~SQLITE_IOCAP_BATCH_ATOMIC
        }
        methods.xShmMap = { file, region, size, extend, pointer in
            CipherFile.forward(file, failure: ResultCode.ioerrShmMap) { real, methods in
                methods.xShmMap?(real, region, size, extend, pointer)
            }
        }
        methods.xShmLock = { file, offset, count, flags in
            CipherFile.forward(file, failure: ResultCode.ioerrShmLock) { real, methods in methods.xShmLock?(real, offset, count, flags) }
        }
        methods.xShmBarrier = { file in
            CipherFile.forward(file, failure: ()) { real, methods in methods.xShmBarrier?(real) }
        }
        methods.xShmUnmap = { file, delete in
            CipherFile.forward(file, failure: ResultCode.ioerrShmMap) { real, methods in methods.xShmUnmap?(real, delete) }
        }
        return methods
    }
}
