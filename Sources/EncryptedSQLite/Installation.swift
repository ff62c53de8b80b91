import GRDBSQLite

/// The VFS and I/O method tables, made and registered with SQLite once per process.
struct Installation: @unchecked Sendable {
    // Written once, before `shared` is published, and only read afterwards.
    /// The platform VFS everything is delegated to.
    let base: UnsafeMutablePointer<sqlite3_vfs>
    /// Ours, registered under ``CipherVFS/name``.
    let vfs: UnsafeMutablePointer<sqlite3_vfs>
    /// Whether ours is also the process's default VFS: only when this SQLite build does not
    /// understand URI filenames, through which encrypted databases name it otherwise.
    let isDefault: Bool
    /// The methods of an encrypted file.
    let methods: UnsafeMutablePointer<sqlite3_io_methods>

    /// The installation, made on first use; `nil` when SQLite has no VFS to build on.
    static let shared: Installation? = make()

    /// Bytes before the platform's own file structure in ours: the methods pointer, then the
    /// pointer to the file's ``CipherFile`` (8-byte aligned on every platform).
    static let headerSize = (2 * MemoryLayout<UnsafeRawPointer>.stride + 7) / 8 * 8
    /// Where the ``CipherFile`` pointer sits.
    static let contextOffset = MemoryLayout<UnsafeRawPointer>.stride

    /// Makes every method of `vfs` but `xOpen` call the platform VFS's (``base``), found
    /// through ``shared`` when SQLite calls it.
    private static func delegateToBase(_ vfs: UnsafeMutablePointer<sqlite3_vfs>) {
        vfs.pointee.xDelete = { _, name, syncDirectory in
            guard let base = Installation.shared?.base, let call = base.pointee.xDelete else { return SQLITE_ERROR }
            return call(base, name, syncDirectory)
        }
        vfs.pointee.xAccess = { _, name, flags, result in
            guard let base = Installation.shared?.base, let call = base.pointee.xAccess else { return SQLITE_ERROR }
            return call(base, name, flags, result)
        }
        vfs.pointee.xFullPathname = { _, name, count, out in
            guard let base = Installation.shared?.base, let call = base.pointee.xFullPathname else { return SQLITE_ERROR }
            return call(base, name, count, out)
        }
        vfs.pointee.xDlOpen = { _, name in
            guard let base = Installation.shared?.base, let call = base.pointee.xDlOpen else { return nil }
            return call(base, name)
        }
        vfs.pointee.xDlError = { _, count, out in
            guard let base = Installation.shared?.base, let call = base.pointee.xDlError else { return }
            call(base, count, out)
        }
        vfs.pointee.xDlSym = { _, handle, symbol in
            guard let base = Installation.shared?.base, let call = base.pointee.xDlSym else { return nil }
            return call(base, handle, symbol)
        }
        vfs.pointee.xDlClose = { _, handle in
            guard let base = Installation.shared?.base, let call = base.pointee.xDlClose else { return }
            call(base, handle)
        }
        vfs.pointee.xRandomness = { _, count, out in
            guard let base = Installation.shared?.base, let call = base.pointee.xRandomness else { return 0 }
            return call(base, count, out)
        }
        vfs.pointee.xSleep = { _, microseconds in
            guard let base = Installation.shared?.base, let call = base.pointee.xSleep else { return 0 }
            return call(base, microseconds)
        }
        vfs.pointee.xCurrentTime = { _, out in
            guard let base = Installation.shared?.base, let call = base.pointee.xCurrentTime else { return SQLITE_ERROR }
            return call(base, out)
        }
        vfs.pointee.xGetLastError = { _, count, out in
            guard let base = Installation.shared?.base, let call = base.pointee.xGetLastError else { return 0 }
            return call(base, count, out)
        }
        vfs.pointee.xCurrentTimeInt64 = { _, out in
            guard let base = Installation.shared?.base else { return SQLITE_ERROR }
            if base.pointee.iVersion >= 2, let call = base.pointee.xCurrentTimeInt64 { return call(base, out) }
            var days = 0.0
            guard let call = base.pointee.xCurrentTime, call(base, &days) == SQLITE_OK,
                let milliseconds = sqlite3_int64(exactly: (days * 86_400_000).rounded(.down))
            else { return SQLITE_ERROR }
            out?.pointee = milliseconds
            return SQLITE_OK
        }
    }

    private static func make() -> Installation? {
        guard sqlite3_initialize() == SQLITE_OK else { return nil }
        guard let base = sqlite3_vfs_find(nil) else { return nil }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: sqlite3_vfs())
        vfs.pointee.iVersion = 2
        vfs.pointee.szOsFile = base.pointee.szOsFile + Int32(headerSize)
        vfs.pointee.mxPathname = base.pointee.mxPathname
        let name = Array(CipherVFS.name.utf8CString)
        let storedName = UnsafeMutablePointer<CChar>.allocate(capacity: name.count)
        storedName.initialize(from: name, count: name.count)
        vfs.pointee.zName = UnsafePointer(storedName)
        vfs.pointee.xOpen = { _, name, file, flags, outFlags in CipherFile.open(name: name, file: file, flags: flags, outFlags: outFlags) }
        delegateToBase(vfs)
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: CipherFile.methods())
        // Not the default where URIs work: the system SQLite is shared with Core Data, SwiftData
        // and URLCache on Apple platforms, whose files have no business passing through ours.
        let isDefault = sqlite3_compileoption_used("USE_URI") == 0
        guard sqlite3_vfs_register(vfs, isDefault ? 1 : 0) == SQLITE_OK else { return nil }
        return Installation(base: base, vfs: vfs, isDefault: isDefault, methods: methods)
    }
}
