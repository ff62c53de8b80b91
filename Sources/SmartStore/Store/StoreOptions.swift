import Foundation

/// How a store file's connections are set up (``SmartStore/init(path:key:options:)``): their
/// memory, durability, and how the store behaves in an app's lifecycle on Apple platforms.
///
/// A store holds one writer connection, up to ``maximumReaderCount`` pool readers and two plain
/// readers for single-statement queries, each with its own page cache: at most
/// `(3 + maximumReaderCount) × cacheSizeKiB` of cache, allocated as pages are read. An
/// encrypted store adds ``sharedCacheKiB`` of decrypted pages all its connections share, and
/// by default gives its writer 16 MiB and each reader 4 MiB (every page it misses is decrypted
/// and authenticated). With the defaults that is about 16 MiB for a plaintext store and 108 MiB
/// for an encrypted one; ``appExtension`` keeps either under 4 MiB, for app extensions, whose
/// memory limit is tens of MB.
public struct StoreOptions: Sendable, Equatable {
    /// Each connection's page cache, in KiB; nil: 2 MiB for a plaintext store (SQLite's
    /// default); for an encrypted one 16 MiB for the writer and 4 MiB for each reader.
    public var cacheSizeKiB: Int?
    /// Encrypted stores: decrypted pages shared by all the store's connections in this process,
    /// in KiB (0: none). A page any connection decrypted once is served from it to every other
    /// one, until it changes on disk, without decrypting it again (each page on disk is still
    /// read and its IV and HMAC compared, so a change by another connection or process is never
    /// missed). Allocated as pages are read, about 4.6 KiB a page with its bookkeeping, and
    /// dropped by ``SmartStore/releaseMemory()``, on memory warnings and when the app goes to the
    /// background. Stores of one file in a process share one cache, bounded by the largest size
    /// any of them asked for. Ignored for a plaintext store, whose pages the system's file
    /// cache keeps.
    public var sharedCacheKiB: Int
    /// How many pool readers may read at once (at least 1).
    public var maximumReaderCount: Int
    /// Whether each commit asks the disk itself to persist (`PRAGMA fullfsync`). On Apple
    /// platforms `fsync` only hands the data to the drive, which may reorder or lose it on power
    /// loss: true there by default; elsewhere it changes nothing.
    public var fullFsync: Bool
    /// Apple platforms: the data protection class of the store's files, set when it opens: on a
    /// folder the store creates for itself first (as ``StoreDirectory``'s are), so that every
    /// file created in it later (the log, the shared memory, the lock file, a journal) inherits
    /// it, then on the store's files that exist; nil keeps the app's default. A store synced in
    /// the background needs ``FileProtection/completeUntilFirstUserAuthentication`` or weaker:
    /// with `complete`, a locked device cannot open it. Ignored elsewhere.
    public var fileProtection: FileProtection?
    /// Apple platforms: whether the store's connections listen to GRDB's suspension
    /// notifications (`Database.suspendNotification`): post it when the app goes to the
    /// background, and a store in an app-group container releases its file locks, so the system
    /// does not end the suspended app (the 0xdead10cc exception).
    public var observesSuspensionNotifications: Bool
    /// Encrypted stores created from now on: whether page 1 keeps SQLite's 32-byte header in
    /// plaintext, with the salt derived from the key instead of stored there (SQLCipher's
    /// `cipher_plaintext_header_size = 32` with `cipher_salt`; open it in SQLCipher with
    /// ``StoreKey/withPlaintextHeaderSalt()``). iOS lets a suspended app keep a lock on a database
    /// in an app-group container only when it sees that header; without it the app is ended
    /// (0xdead10cc). It reveals that the file is a SQLite database, its page size and change
    /// counters, nothing of its content. Needs a raw key (``StoreKey/raw(_:)``, as
    /// `KeychainStoreKeyProvider` gives). nil: on for a store with a raw key in an app-group
    /// container (`…/Containers/Shared/AppGroup/…` on iOS, `~/Library/Group Containers/…` on
    /// macOS), off elsewhere. An existing store opens in the layout it has.
    public var plaintextHeader: Bool?

    /// The data protection classes of Apple platforms.
    public enum FileProtection: String, Sendable, Equatable {
        /// Readable only while the device is unlocked.
        case complete
        /// Files open when the device locks stay readable; new ones need it unlocked.
        case completeUnlessOpen
        /// Readable once the device has been unlocked after a restart (background sync).
        case completeUntilFirstUserAuthentication
        /// No protection beyond the device's.
        case none
    }

    /// Options; the defaults suit an app.
    public init(
        cacheSizeKiB: Int? = nil, sharedCacheKiB: Int = StoreOptions.defaultSharedCacheKiB, maximumReaderCount: Int = 5,
        fullFsync: Bool = StoreOptions.defaultFullFsync, fileProtection: FileProtection? = nil,
        observesSuspensionNotifications: Bool = false, plaintextHeader: Bool? = nil
    ) {
        self.cacheSizeKiB = cacheSizeKiB
        self.sharedCacheKiB = max(0, sharedCacheKiB)
        self.maximumReaderCount = max(1, maximumReaderCount)
        self.fullFsync = fullFsync
        self.fileProtection = fileProtection
        self.observesSuspensionNotifications = observesSuspensionNotifications
        self.plaintextHeader = plaintextHeader
    }

    /// Whether a new encrypted store at `path`, with `key`, gets a plaintext header:
    /// ``plaintextHeader``, or when nil, whether `path` is in an app-group container and the
    /// key is raw (a passphrase keeps SQLCipher's default layout, its salt in the file).
    func usesPlaintextHeader(forStoreAt path: String, key: StoreKey) -> Bool {
        if let plaintextHeader { return plaintextHeader }
        if case .passphrase = key.material { return false }
        return Self.isInAppGroupContainer(path)
    }

    /// Whether `path` lies in an app group's shared container (iOS, macOS).
    static func isInAppGroupContainer(_ path: String) -> Bool {
        path.contains("/Containers/Shared/AppGroup/") || path.contains("/Library/Group Containers/")
    }

    /// The defaults: an app's.
    public static let `default` = StoreOptions()

    /// ``sharedCacheKiB`` by default: 64 MiB.
    public static let defaultSharedCacheKiB = 65536

    /// For app extensions: a 512 KiB cache per connection, a 1 MiB shared cache and two pool
    /// readers (under 4 MiB of cache in all), suspension notifications observed, files readable
    /// after the first unlock.
    public static let appExtension = StoreOptions(
        cacheSizeKiB: 512, sharedCacheKiB: 1024, maximumReaderCount: 2, fileProtection: .completeUntilFirstUserAuthentication,
        observesSuspensionNotifications: true)

    /// The options for this process: ``appExtension`` in an app extension (a bundle whose name
    /// ends in `.appex`), else ``default``. ``StoreDirectory`` and MobileSyncSDKCompat's
    /// `MobileSyncSDKManager` use them unless given others.
    public static var forCurrentProcess: StoreOptions {
        forBundle(atPath: Bundle.main.bundlePath)
    }

    /// ``appExtension`` for the bundle at `path` when it is an app extension (`.appex`), else
    /// ``default``.
    public static func forBundle(atPath path: String) -> StoreOptions {
        var bundle = path
        while bundle.hasSuffix("/") { bundle.removeLast() }
        return bundle.lowercased().hasSuffix(".appex") ? .appExtension : .default
    }

    /// Whether ``fullFsync`` is on by default: on Apple platforms.
    public static var defaultFullFsync: Bool {
        #if canImport(Darwin)
            true
        #else
            false
        #endif
    }
}
