import Foundation
import MobileSync
import SmartStore

/// What `msync sync` checks before it opens its store: the store is a SmartStore store (or a
/// new file, in a folder that exists), and for a new store every entry of `--syncs` is valid and
/// every name asked for is one of them, so that a mistake leaves no store behind.
enum SyncInputs {
    static func check(
        store path: String, encryption: StoreKeyOptions, soups: StoreConfig?, syncs config: SyncsConfig?, names: [String],
        waits: Bool = true
    ) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure("no folder \(folder) for the store \(path): create it first")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw CommandFailure("\(path) is a directory: give the store's file, such as \(path)/store.sqlite") }
            try InputFile.check(path, option: "--store") // a FIFO or a device is never opened
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        if let size, size > 0 {
            // An existing file must be a store: opening it for writing would add a store's tables to
            // any SQLite file (a LocalForce org's database, another program's).
            let existing: SmartStore
            do {
                existing = try encryption.open(path, readOnly: true)
            } catch SmartStoreError.database(let message) where message.contains("is not a SmartStore store") {
                throw CommandFailure("\(message): msync sync writes into a SmartStore store or a new file only")
            }
            defer { try? existing.close() }
            if !waits { try failIfBusy(existing, names: names.isEmpty ? config?.entries.map(\.name) ?? [] : names) }
            return
        }
        if let rejection = config?.rejected.first {
            let entry = rejection.name.map { "sync \($0)" } ?? "syncs[\(rejection.position)]"
            throw CommandFailure("--syncs: \(entry): \(rejection.reason); no store was created")
        }
        let known = config?.entries.map(\.name) ?? []
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw CommandFailure(Suggestion.unknown("sync", unknown, known: known) + "; no store was created")
        }
        // A new store has no soups but those of --store-config.
        let registered = Set(soups?.soups.map(\.soupName) ?? [])
        for entry in config?.entries ?? [] where names.isEmpty || names.contains(entry.name) {
            guard !registered.contains(entry.soupName) else { continue }
            throw CommandFailure(
                "sync \(entry.name) needs soup \(entry.soupName), and a new store has none: register it with --store-config and a "
                    + "userstore.json; no store was created")
        }
    }

    /// With `--wait 0`, a sync that another process is running, or whose soups it is syncing,
    /// fails here, before any request: the sync's lock (`sync:ID`) and its soups'
    /// (`soup:NAME`, those of its target included) are only looked at, not taken.
    private static func failIfBusy(_ store: SmartStore, names: [String]) throws {
        let states = try SyncManager.syncStates(in: store)
        let targets = SyncTargetRegistry()
        for name in names {
            guard let state = states.first(where: { $0.name == name }) else { continue }
            let extra =
                state.kind == .syncDown
                ? (try? targets.syncDownTarget(state.target))?.additionalSoupNames
                : (try? targets.syncUpTarget(state.target))?.additionalSoupNames
            let busy = ["sync:\(state.id)"] + Set([state.soupName] + (extra ?? [])).sorted().map { "soup:\($0)" }
            if let held = busy.first(where: store.isLocked) {
                throw CommandFailure(
                    "sync \(name): another process is syncing it or its soups (\(held)); --wait 0 does not wait: give --wait SECONDS to wait"
                )
            }
        }
    }
}
