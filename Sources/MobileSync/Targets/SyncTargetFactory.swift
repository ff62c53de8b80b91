public import FastJSON
import Locking
import SmartStore

/// Builds targets from their JSON (sync states and `usersyncs.json`). Custom target types can
/// be registered under their `type` name.
public final class SyncTargetRegistry: Sendable {
    public typealias DownFactory = @Sendable (JSONValue) throws -> any SyncDownTarget
    public typealias UpFactory = @Sendable (JSONValue) throws -> any SyncUpTarget

    private struct Factories {
        var down: [String: DownFactory] = [:]
        var up: [String: UpFactory] = [:]
    }

    private let factories: Locked<Factories>

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
        up["collection"] = { CollectionSyncUpTarget(json: $0) }
        up["single"] = { SingleRecordSyncUpTarget(json: $0) }
        up["batch"] = { BatchSyncUpTarget(json: $0) }
        up["parent_children"] = { try ParentChildrenSyncUpTarget(json: $0) }
        factories = Locked(Factories(down: down, up: up))
    }

    /// A registry whose store-reading targets (refresh) read `store`.
    convenience init(store: SmartStore) {
        self.init()
        let reader = SoupReader(store: store)
        register(syncDown: "refresh") { try RefreshSyncDownTarget(json: $0, store: reader) }
    }

    /// Registers a sync down target type.
    public func register(syncDown type: String, _ factory: @escaping DownFactory) {
        factories.withLock { $0.down[type] = factory }
    }

    /// Registers a sync up target type.
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
        case "CollectionSyncUpTarget": return "collection"
        default: return name
        }
    }

    public func syncDownTarget(_ json: JSONValue) throws -> any SyncDownTarget {
        let type = json["type"]?.stringValue ?? ""
        guard let factory = factories.withLock({ $0.down[type] }) else {
            throw SyncError.invalidConfig("Unknown sync down target type: \(type)")
        }
        return try factory(json)
    }

    public func syncUpTarget(_ json: JSONValue) throws -> any SyncUpTarget {
        // No type means the default collection target; the SDK's impl class names map to types.
        let type =
            json["type"]?.stringValue ?? Self.syncUpType(implementation: json["iOSImpl"]?.stringValue ?? json["androidImpl"]?.stringValue)
        guard let factory = factories.withLock({ $0.up[type] }) else {
            throw SyncError.invalidConfig("Unknown sync up target type: \(type)")
        }
        return try factory(json)
    }
}
