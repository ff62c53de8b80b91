import ArgumentParser
import Foundation
import SmartStore

/// `msync store encrypt|rekey|export`: encryption of a closed store file.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Encrypt a store, change its key, or export a decrypted copy.",
        discussion: """
            Keys are read from environment variables, never from the command line. A key is a \
            passphrase, or x' and 64 hex digits for a raw key, as in SQLCipher's PRAGMA key. \
            The store must not be open in another process.
            """,
        subcommands: [Encrypt.self, Rekey.self, Export.self]
    )

    /// `msync store encrypt --store F`: encrypts a plaintext store in place.
    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt a plaintext store in place with the key in MSYNC_STORE_KEY (or --key-env).")

        @Option(help: "The store file.")
        var store: String

        @OptionGroup(title: "Encryption")
        var encryption: StoreKeyOptions

        func run() throws {
            try SmartStore.encrypt(storeAt: store, with: try encryption.requiredKey("the new key"))
            print("encrypted \(store)")
        }
    }

    /// `msync store rekey --store F --new-key-env NAME`: changes the key of an encrypted store.
    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Change the key of an encrypted store: the current key from MSYNC_STORE_KEY (or --key-env), the new one from --new-key-env."
        )

        @Option(help: "The store file.")
        var store: String

        @OptionGroup(title: "Encryption")
        var encryption: StoreKeyOptions

        @Option(help: ArgumentHelp("The environment variable that holds the new key.", valueName: "name"))
        var newKeyEnv: String

        @Option(help: "PBKDF2 iterations of a new passphrase key.")
        var newKdfIterations = StoreKey.defaultKDFIterations

        func validate() throws {
            guard (1...Int(UInt32.max)).contains(newKdfIterations) else {
                throw ValidationError("--new-kdf-iterations must be in 1...4294967295")
            }
        }

        func run() throws {
            let old = try encryption.requiredKey("the current key")
            guard let new = StoreKeyOptions.key(variable: newKeyEnv, kdfIterations: newKdfIterations) else {
                throw ValidationError("--new-key-env names \(newKeyEnv), which is not set")
            }
            try SmartStore.changeKey(ofStoreAt: store, from: old, to: new)
            print("changed the key of \(store)")
        }
    }

    /// `msync store export --store F --output G`: writes a decrypted copy.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a decrypted copy of an encrypted store (the key from MSYNC_STORE_KEY or --key-env).")

        @Option(help: "The store file.")
        var store: String

        @Option(help: "The copy to write (it must not exist).")
        var output: String

        @OptionGroup(title: "Encryption")
        var encryption: StoreKeyOptions

        func run() throws {
            try SmartStore.exportDecrypted(storeAt: store, key: try encryption.requiredKey("the store's key"), to: output)
            print("wrote \(output), decrypted")
        }
    }
}
