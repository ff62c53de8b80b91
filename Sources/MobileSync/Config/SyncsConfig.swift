public import FastJSON
public import Foundation
import SmartStore

/// A `usersyncs.json` / `globalsyncs.json` file: named syncs to create, in the SDK's format.
///
/// ```json
/// { "syncs": [ { "syncName": "accounts", "syncType": "syncDown", "soupName": "accounts",
///                "target": { "type": "soql", "query": "SELECT Id, Name FROM Account" },
///                "options": { "mergeMode": "OVERWRITE" } } ] }
/// ```
public struct SyncsConfig: Sendable {
    /// One sync of the file.
    public struct Entry: Sendable {
        /// The sync's name (`syncName`), unique in the store.
        public var name: String
        /// `syncDown` or `syncUp` (`syncType`).
        public var kind: SyncState.Kind
        /// The soup the sync reads or writes (`soupName`).
        public var soupName: String
        /// The target as JSON (`target`), resolved through a ``SyncTargetRegistry`` when the entry is applied.
        public var target: JSONValue
        /// The merge mode and field list (`options`).
        public var options: SyncOptions
    }

    /// An entry that could not be read, and why.
    public struct Rejection: Sendable, Equatable {
        /// The entry's position in the `syncs` array.
        public var position: Int
        /// Its `syncName`, when it has one.
        public var name: String?
        /// What is wrong with it.
        public var reason: String
    }

    /// The valid syncs of the file, in order.
    public var entries: [Entry]
    /// The entries that were skipped, with why (the SDK's behaviour: the others still load).
    public var rejected: [Rejection] = []

    /// Reads a config. Each entry needs `syncName`, a valid `syncType`, `soupName`, `target` and
    /// `options`, and a target of a built-in type must be one that can be built (a SOQL target
    /// needs its query, which must parse); an entry that fails any of these is skipped and listed
    /// in ``rejected`` with every problem it has, the others load.
    ///
    /// - Throws: ``SyncError/invalidConfig(_:)`` when the data is not JSON or has no `syncs` array.
    public init(data: some Collection<UInt8>) throws {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw SyncError.invalidConfig("Syncs config is not valid JSON: \(error)")
        }
        guard let syncs = json["syncs"]?.arrayValue else { throw SyncError.invalidConfig("Syncs config needs a \"syncs\" array") }
        entries = []
        for (index, sync) in syncs.enumerated() {
            do {
                entries.append(try Self.entry(sync, at: index))
            } catch {
                rejected.append(Rejection(position: index, name: sync["syncName"]?.stringValue, reason: "\(error)"))
            }
        }
    }

    /// One entry, or every problem with it (a missing `options` does not hide a query that does
    /// not parse). A target of a built-in type is checked as it will be built.
    private static func entry(_ sync: JSONValue, at index: Int) throws -> Entry {
        guard let name = sync["syncName"]?.stringValue, !name.isEmpty else {
            throw SyncError.invalidConfig("syncs[\(index)]: syncName is required")
        }
        var problems: [String] = []
        let kind = sync["syncType"]?.stringValue.flatMap(SyncState.Kind.init(rawValue:))
        if kind == nil { problems.append("syncType must be syncDown or syncUp") }
        let soupName = sync["soupName"]?.stringValue
        if soupName == nil { problems.append("soupName is required") }
        let target = sync["target"].flatMap { $0.objectValue != nil ? $0 : nil }
        if target == nil { problems.append("Target not defined in config") }
        if let target, let kind, let problem = targetProblem(target, kind: kind) { problems.append("target: \(problem)") }
        var options: SyncOptions?
        if let json = sync["options"] {
            do { options = try SyncOptions(json: json) } catch { problems.append("\(error)") }
        } else {
            problems.append(#"Options not defined in config (give "options": {"mergeMode": "OVERWRITE"} or LEAVE_IF_CHANGED)"#)
        }
        guard problems.isEmpty, let kind, let soupName, let target, let options else {
            throw SyncError.invalidConfig("sync \(name): " + problems.joined(separator: "; "))
        }
        return Entry(name: name, kind: kind, soupName: soupName, target: target, options: options)
    }

    /// Why a target of a built-in type cannot be built (a query that does not parse, a missing
    /// key); nil when it can, or when its type is one an app registers.
    private static func targetProblem(_ target: JSONValue, kind: SyncState.Kind) -> String? {
        let registry = SyncTargetRegistry()
        do {
            switch kind {
            case .syncDown: _ = try registry.syncDownTarget(target)
            case .syncUp: _ = try registry.syncUpTarget(target)
            }
            return nil
        } catch SyncError.invalidConfig(let message) where message.hasPrefix("Unknown ") {
            return nil // a type of the app's, known once it registers it (checked when applied)
        } catch {
            return "\(error)"
        }
    }

    /// Reads a config file.
    ///
    /// - Throws: ``SyncError/invalidConfig(_:)`` when the file cannot be read or is not a valid config.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SyncError.invalidConfig("Cannot read syncs config \(url.path): \(error.localizedDescription)")
        }
        try self.init(data: data)
    }
}

extension SyncManager {
    /// What ``apply(_:replacingDefinitions:)`` did.
    public struct ConfigReport: Sendable {
        /// Syncs created.
        public var created: [String] = []
        /// Syncs skipped because one with the name exists.
        public var skipped: [String] = []
        /// Existing syncs whose stored definition the config's replaced (``apply(_:replacingDefinitions:)``).
        public var replaced: [String] = []
        /// Syncs refused, with why (unknown target type, missing keys…); an entry without a name
        /// is named by its position (`syncs[2]`).
        public var errors: [(name: String, error: String)] = []
    }

    /// Creates the config's syncs; existing names are skipped (or, with
    /// `replacingDefinitions`, given the config's definition), invalid entries and targets
    /// reported while the others are created.
    ///
    /// A replaced definition keeps the sync's id and history; a new target, soup or type also
    /// starts it afresh (its `maxTimeStamp` and live replay position forgotten, so the next
    /// reSync fetches everything). A sync that runs, waits or is live is not replaced (reported
    /// as an error).
    @discardableResult
    public func apply(_ config: SyncsConfig, replacingDefinitions: Bool = false) throws -> ConfigReport {
        var report = ConfigReport()
        report.errors = config.rejected.map { ($0.name ?? "syncs[\($0.position)]", $0.reason) }
        for entry in config.entries {
            if try hasSync(named: entry.name) {
                guard replacingDefinitions else {
                    report.skipped.append(entry.name)
                    continue
                }
                do {
                    if try replaceDefinition(with: entry) { report.replaced.append(entry.name) } else { report.skipped.append(entry.name) }
                } catch {
                    report.errors.append((entry.name, "\(error)"))
                }
                continue
            }
            do {
                switch entry.kind {
                case .syncDown:
                    _ = try createSyncDown(
                        target: try targets.syncDownTarget(entry.target), options: entry.options, soupName: entry.soupName, name: entry.name
                    )
                case .syncUp:
                    _ = try createSyncUp(
                        target: try targets.syncUpTarget(entry.target), options: entry.options, soupName: entry.soupName, name: entry.name)
                }
                report.created.append(entry.name)
            } catch SyncError.duplicateName {
                report.skipped.append(entry.name) // another process created it meanwhile
            } catch {
                report.errors.append((entry.name, "\(error)"))
            }
        }
        return report
    }

    /// Gives the named sync `entry`'s definition, checked and written in one transaction;
    /// false when it has it already.
    private func replaceDefinition(with entry: SyncsConfig.Entry) throws -> Bool {
        let target: JSONValue
        let extraSoups: [String]
        switch entry.kind {
        case .syncDown:
            let down = try targets.syncDownTarget(entry.target)
            (target, extraSoups) = (down.json, down.additionalSoupNames)
        case .syncUp:
            let up = try targets.syncUpTarget(entry.target)
            (target, extraSoups) = (up.json, up.additionalSoupNames)
        }
        guard try store.hasSoup(entry.soupName) else { throw SmartStoreError.unknownSoup(entry.soupName) }
        // A run of this manager builds its target before it waits for its soups: not while one is under way.
        if let existing = try storedSync(named: entry.name), isRunning(existing.id) || liveTasks[existing.id] != nil {
            throw SyncError.invalidSyncState("\(entry.name) is running or live here: its definition is replaced once it is not")
        }
        try Self.keepBases(of: [entry.soupName] + extraSoups, in: store)
        return try store.inTransaction { tx in
            guard let document = try tx.query(.exact(soup: Self.soupName, path: "name", key: .string(entry.name), pageSize: 1)).first
            else { throw SyncError.notFound(entry.name) }
            var sync = try SyncState(document: document)
            guard sync.status != .running && sync.status != .waiting else {
                throw SyncError.invalidSyncState("\(entry.name) is \(sync.status.rawValue): its definition is replaced once it is not")
            }
            guard sync.kind != entry.kind || sync.target != target || sync.soupName != entry.soupName || sync.options != entry.options
            else { return false }
            if sync.kind != entry.kind || sync.target != target || sync.soupName != entry.soupName {
                (sync.maxTimeStamp, sync.totalSize, sync.progress, sync.status) = (-1, -1, 0, .new)
                sync.live = nil // its replay position is the old target's
            }
            (sync.kind, sync.target, sync.soupName, sync.options) = (entry.kind, target, entry.soupName, entry.options)
            _ = try tx.upsert([sync.document], in: Self.soupName)
            return true
        }
    }
}
