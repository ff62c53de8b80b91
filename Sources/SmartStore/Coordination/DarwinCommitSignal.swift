#if canImport(Darwin)
    import Crypto
    import Darwin
    import Dispatch
    import Foundation

    /// Darwin notifications (`notify_post`, `notify_register_dispatch`): the one place SmartStore
    /// uses them. The name is derived from the store file's resolved path, so every process that
    /// opens the file (an app and its extensions, through their app-group container) posts and
    /// hears the same one, and no other store's.
    struct DarwinCommitSignal: CommitSignal {
        /// The notification's name: `msync.smartstore.commit.` and a digest of the path.
        let name: String

        init(storePath: String) {
            let resolved = URL(fileURLWithPath: storePath).resolvingSymlinksInPath().standardizedFileURL.path
            name = "msync.smartstore.commit." + StoreKey.hex(SHA256.hash(data: Data(resolved.utf8)).prefix(16))
        }

        func post() {
            _ = notify_post(name)
        }

        func observe(_ handler: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
            var token: Int32 = 0
            let queue = DispatchQueue(label: "SmartStore.DarwinCommitSignal")
            // 0: NOTIFY_STATUS_OK (whose imported type differs between SDKs; the call returns a UInt32).
            guard notify_register_dispatch(name, &token, queue, { _ in handler() }) == 0 else { return nil }
            let registered = token
            return { _ = notify_cancel(registered) }
        }
    }
#endif
