public import FastJSON
import Locking

/// Builds targets from their JSON (sync states and `usersyncs.json`). Custom target types can
/// be registered under their `type` name.
public final class SyncTargetRegistry: Sendable {
    /// Builds a sync down target from its JSON; throws ``SyncError`` for JSON it cannot use.
    public typealias DownFactory = @Sendable (JSONValue) throws -> any SyncDownTarget
    /// Builds a sync up target from its JSON; throws ``SyncError`` for JSON it cannot use.
    public typealias UpFactory = @Sendable (JSONValue) throws -> any SyncUpTarget

    private struct Factories {
        var down: [String: DownFactory] = [:]
        var up: [String: UpFactory] = [:]
    }

    private let factories: Locked<Factories>

    /// A registry of the built-in types: `soql`, `sosl`, `mru`, `refresh`, `paging`, `layout`, `metadata`, `briefcase`,
    /// `parent_children` down; `collection`, `single`, `batch`, `parent_children` up.
    public init() {
        var down: [String: DownFactory] = [:]
        var up: [String: UpFactory] = [:]
        down["soql"] = { try SoqlSyncDownTarget(json: $0) }
        down["sosl"] = { try SoslSyncDownTarget(json: $0) }
        down["mru"] = { try MruSyncDownTarget(json: $0) }
        down["paging"] = { try PagingSyncDownTarget(json: $0) }
        down["layout"] = { try LayoutSyncDownTarget(json: $0) }
        down["metadata"] = { try MetadataSyncDownTarget(json: $0) }
        down["briefcase"] = { try BriefcaseSyncDownTarget(json: $0) }
        down["parent_children"] = { try ParentChildrenSyncDownTarget(json: $0) }
        down["refresh"] = { try RefreshSyncDownTarget(json: $0, store: nil) }
        up["collection"] = { CollectionSyncUpTarget(json: $0) }
        up["single"] = { SingleRecordSyncUpTarget(json: $0) }
        up["batch"] = { BatchSyncUpTarget(json: $0) }
        up["parent_children"] = { try ParentChildrenSyncUpTarget(json: $0) }
        factories = Locked(Factories(down: down, up: up))
    }

    /// Registers a sync down target type: its `type`, or for `"type": "custom"` targets the
    /// class name in their `iOSImpl` or `androidImpl` (the full Android name or its last part).
    public func register(syncDown type: String, _ factory: @escaping DownFactory) {
        factories.withLock { $0.down[type] = factory }
    }

    /// Registers a sync up target type: its `type`, or for `"type": "custom"` targets the class
    /// name in their `iOSImpl` or `androidImpl` (the full Android name or its last part).
    public func register(syncUp type: String, _ factory: @escaping UpFactory) {
        factories.withLock { $0.up[type] = factory }
    }

    /// The SDK's sync up implementation class names, as target types.
    static func syncUpType(implementation: String?) -> String {
        guard let implementation else { return "collection" }
        let name = implementation.split(separator: ".").last.map(String.init) ?? implementation
        switch name {
        case "SFSyncUpTarget", "SyncUpTarget": return "single"
        case "SFBatchSyncUpTarget", "BatchSyncUpTarget": return "batch"
        case "SFParentChildrenSyncUpTarget", "ParentChildrenSyncUpTarget": return "parent_children"
        case "SFCollectionSyncUpTarget", "CollectionSyncUpTarget": return "collection"
        default: return name
        }
    }

    /// The class names a custom target's JSON carries, in the order they are looked up:
    /// `iOSImpl`, `androidImpl`, then the last part of `androidImpl`.
    static func implementationNames(_ json: JSONValue) -> [String] {
        var names: [String] = []
        for key in ["iOSImpl", "androidImpl"] {
            if let name = json[key]?.stringValue, !name.isEmpty { names.append(name) }
        }
        if let android = json["androidImpl"]?.stringValue, let last = android.split(separator: ".").last, String(last) != android {
            names.append(String(last))
        }
        return names
    }

    /// Builds a sync down target from its JSON.
    ///
    /// - Throws: ``SyncError/invalidConfig(_:)`` when no factory is registered for its type
    ///   (for a custom target: for any of its class names).
    public func syncDownTarget(_ json: JSONValue) throws -> any SyncDownTarget {
        let type = json["type"]?.stringValue ?? ""
        let names = type == "custom" ? Self.implementationNames(json) : [type]
        guard let factory = factories.withLock({ factories in names.compactMap { factories.down[$0] }.first }) else {
            throw SyncError.invalidConfig(Self.unknown("sync down", type: type, names: names, register: "syncDown"))
        }
        return try factory(json)
    }

    /// Builds a sync up target from its JSON. No `type`, or the iOS `"type": "rest"`, means the
    /// standard target its impl class names (`SFBatchSyncUpTarget` → batch, …), by default the
    /// collection target.
    ///
    /// - Throws: ``SyncError/invalidConfig(_:)`` when no factory is registered for its type
    ///   (for a custom target: for any of its class names).
    public func syncUpTarget(_ json: JSONValue) throws -> any SyncUpTarget {
        let implementation = json["iOSImpl"]?.stringValue ?? json["androidImpl"]?.stringValue
        let type = json["type"]?.stringValue ?? "rest"
        let names: [String] =
            switch type {
            case "rest": [Self.syncUpType(implementation: implementation)]
            case "custom": Self.implementationNames(json)
            default: [type]
            }
        guard let factory = factories.withLock({ factories in names.compactMap { factories.up[$0] }.first }) else {
            throw SyncError.invalidConfig(Self.unknown("sync up", type: type, names: names, register: "syncUp"))
        }
        return try factory(json)
    }

    private static func unknown(_ kind: String, type: String, names: [String], register: String) -> String {
        guard type == "custom" || names != [type] else { return "Unknown \(kind) target type: \(type)" }
        let listed = names.isEmpty ? "no iOSImpl or androidImpl" : names.joined(separator: ", ")
        return "Unknown \(kind) target type: \(type) (\(listed)); register it with SyncTargetRegistry.register(\(register):_:)"
    }
}
