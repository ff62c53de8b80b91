import ArgumentParser
import Foundation
import SmartStore

/// How a command finds the key of an encrypted store: in an environment variable, never on
/// the command line (where other users see it in the process list).
struct StoreKeyOptions: ParsableArguments {
    /// The variable read when `--key-env` is not given.
    static let defaultVariable = "MSYNC_STORE_KEY"

    @Option(
        name: .customLong("key-env"),
        help: ArgumentHelp(
            "The environment variable that holds the store key (default: MSYNC_STORE_KEY; the store is plaintext when that is unset).",
            valueName: "name"))
    var keyVariable: String?

    @Option(help: "PBKDF2 iterations of a passphrase key: 256000 is SQLCipher 4's default, 4000 the Mobile SDK's.")
    var kdfIterations = StoreKey.defaultKDFIterations

    func validate() throws {
        guard (1...Int(UInt32.max)).contains(kdfIterations) else { throw ValidationError("--kdf-iterations must be in 1...4294967295") }
        if let keyVariable, ProcessInfo.processInfo.environment[keyVariable]?.isEmpty ?? true {
            throw ValidationError("--key-env names \(keyVariable), which is not set")
        }
    }

    /// The variable read: `--key-env`'s, or `MSYNC_STORE_KEY`.
    var variable: String { keyVariable ?? Self.defaultVariable }

    /// The key (SQLCipher's syntax: a passphrase, or `x'…'` with 64 hex digits), or `nil` for
    /// a plaintext store.
    func key() -> StoreKey? {
        Self.key(variable: variable, kdfIterations: kdfIterations)
    }

    /// The key, which the command needs: without it, an error saying what to set.
    func requiredKey(_ role: String) throws -> StoreKey {
        guard let key = key() else { throw ValidationError("set \(variable) to \(role)") }
        return key
    }

    /// The key in `variable`, or `nil` when it is unset or empty.
    static func key(variable: String, kdfIterations: Int) -> StoreKey? {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
        return StoreKey(sqlcipherKey: text, kdfIterations: kdfIterations)
    }
}

extension StoreKeyOptions {
    /// Opens the store at `path` with this key (read-only, or for writing); a directory, an
    /// encrypted store without a key, or a key for a plaintext store, is refused with what to do
    /// instead (SQLite would answer "disk I/O error", the store's error would name the Swift API).
    func open(_ path: String, readOnly: Bool) throws -> SmartStore {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandFailure("\(path) is a directory: give the store's file, such as \(path)/store.sqlite")
        }
        do {
            return readOnly ? try SmartStore(readOnlyAt: path, key: key()) : try SmartStore(path: path, key: key())
        } catch SmartStoreError.keyRequired {
            // An encrypted store's first bytes look random; a text file (JSON, a config) is no store.
            if Self.startsWithText(path) {
                throw CommandFailure("\(path) is a text file (JSON?), not a store: give the store's SQLite file")
            }
            throw CommandFailure("The store at \(path) is encrypted: set \(variable) to its key (or name another variable with --key-env)")
        } catch SmartStoreError.database(let message) where message.contains("not a database") && Self.startsWithText(path) {
            throw CommandFailure("\(path) is a text file (JSON?), not a store: give the store's SQLite file")
        } catch SmartStoreError.notEncrypted {
            // Say how to encrypt it with msync, not with the Swift API the store's error names.
            throw CommandFailure(
                "The store at \(path) is not encrypted, but \(variable) holds a key: encrypt it with `msync store encrypt --store \(DemoCommand.quoted(path))`, or unset \(variable) to open it as it is"
            )
        }
    }

    /// Whether the file's first bytes (up to 64) are printable text: never so for an encrypted
    /// store, whose bytes are random (64 such bytes by chance: about one in 10^26).
    static func startsWithText(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let bytes = try? handle.read(upToCount: 64), !bytes.isEmpty else { return false }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }
}
