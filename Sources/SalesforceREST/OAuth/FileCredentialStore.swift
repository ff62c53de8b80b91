public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Credentials in JSON files only their owner can read: `<directory>/<account>.json`, mode
/// 0600, in a directory made 0700.
///
/// A save writes a new file and renames it over the old one, so a crash leaves the old
/// credentials or the new, never half of either. A file that others can read is refused
/// rather than trusted.
public struct FileCredentialStore: CredentialStore {
    /// The directory of the account files.
    public let directory: URL

    /// A store in `directory` (created on the first save).
    public init(directory: URL) {
        self.directory = directory
    }

    /// `$XDG_CONFIG_HOME/msync/credentials`, or `~/.config/msync/credentials`.
    public static func defaultDirectory(environment: [String: String]) -> URL {
        let base: URL
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            base = URL(fileURLWithPath: config)
        } else {
            base = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        }
        return base.appendingPathComponent("msync").appendingPathComponent("credentials")
    }

    /// The file of an account.
    public func file(account: String) throws(CredentialStoreError) -> URL {
        try CredentialStoreError.check(account: account)
        return directory.appendingPathComponent(account + ".json")
    }

    /// The account's credentials, or `nil` without a file.
    ///
    /// - Throws: ``CredentialStoreError`` when the file is readable by others, unreadable or
    ///   not credentials.
    public func load(account: String) throws -> OAuthCredentials? {
        let path = try file(account: account).path
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw CredentialStoreError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw CredentialStoreError("\(path) can be read by others (chmod 600 it, or log in again)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw CredentialStoreError("cannot read \(path)") }
        do {
            return try JSONDecoder().decode(OAuthCredentials.self, from: data)
        } catch {
            throw CredentialStoreError("\(path) does not hold credentials: \(error)")
        }
    }

    /// Writes the account's file (0600) through a temporary file and a rename.
    public func save(_ credentials: OAuthCredentials, account: String) throws {
        let target = try file(account: account).path
        try makeDirectory()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(credentials)
        let temporary = target + ".\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CredentialStoreError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        // On Apple platforms fsync only reaches the drive's cache: F_FULLFSYNC reaches the disk.
        #if canImport(Darwin)
            let synced = fcntl(descriptor, F_FULLFSYNC) == 0 ? 0 : fsync(descriptor)
        #else
            let synced = fsync(descriptor)
        #endif
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CredentialStoreError("cannot write \(target): \(reason)")
        }
    }

    /// Deletes the account's file.
    public func delete(account: String) throws {
        let path = try file(account: account).path
        guard unlink(path) == 0 || errno == ENOENT else {
            throw CredentialStoreError("cannot delete \(path): \(String(cString: strerror(errno)))")
        }
    }

    private func makeDirectory() throws {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CredentialStoreError("cannot create \(directory.path): \(error.localizedDescription)")
        }
    }
}
