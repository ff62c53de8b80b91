import FastJSON
import Foundation
import SmartStore

@testable import MobileSync

extension ChaosWorld {
    /// Faults off, late commits landed, the live sync stopped; a last `msync sync up` child
    /// run to its end (as the extension's next launch: it turns the run a killed child left
    /// RUNNING into STOPPED and runs it again); then sync ups (LEAVE_IF_CHANGED, as often as
    /// they make progress), a resync and a ghost cleanup. Returns each invariant broken.
    func settleAndCheck() async throws -> [String] {
        await harness.localForce.faults.cancelScheduled()
        try await manager.stopLiveSync(named: "accounts")
        try await Task.sleep(for: .seconds(1))
        let child = try await msync(sync: "up")
        await child.exited()
        // 3: records left unsent (a conflict, a create held back): each must carry its reason, checked below.
        var settling: [String] =
            [0, 3].contains(child.terminationStatus) ? [] : ["settling msync sync up: exit \(child.terminationStatus)"]
        for _ in 0..<4 {
            let up = try await manager.syncUp(
                options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: Self.fields), soupName: "accounts")
            if up.status != .done { settling.append("settling sync up \(up.status.rawValue): \(up.error)") }
        }
        let down = try await manager.reSync(named: "accounts")
        if down.status != .done { settling.append("settling resync \(down.status.rawValue): \(down.error)") }
        if let sync = try await manager.syncStatus(named: "accounts") {
            _ = try await manager.cleanResyncGhosts(id: sync.id)
        }
        return try await settling + problems()
    }

    private func problems() async throws -> [String] {
        var problems: [String] = []
        let local = try entries()
        let server = try await harness.client.allRecords("SELECT Id, Name, Industry FROM Account")
        let serverById = Dictionary(
            server.compactMap { record in record["Id"]?.stringValue.map { ($0, record) } }, uniquingKeysWith: { a, _ in a })
        var held: [String: Int] = [:]
        for entry in local { if let id = entry["Id"]?.stringValue, !LocalFields.isLocalId(id) { held[id, default: 0] += 1 } }
        problems += held.filter { $0.value > 1 }.map { "record \($0.key) held \($0.value) times" }
        for entry in local where !LocalFields.isDirty(entry) {
            guard let id = entry["Id"]?.stringValue, let record = serverById[id] else {
                problems.append("clean entry \(entry["_soupEntryId"] ?? nil) not on the server: \(entry)")
                continue
            }
            if record["Name"] != entry["Name"] || record["Industry"] != entry["Industry"] {
                problems.append("clean entry differs from the server: \(entry) vs \(record)")
            }
        }
        for entry in local where LocalFields.isDirty(entry) && entry["__last_error__"] == nil {
            problems.append("dirty entry without a reason: \(entry)")
        }
        let names = server.compactMap { $0["Name"]?.stringValue }
        for name in ledger.created.current where names.filter({ $0 == name }).count > 1 { problems.append("\(name) created twice") }
        problems += editsLost(local: local, server: serverById)
        for state in try SyncManager.syncStates(in: store) where state.status == .running || state.status == .waiting {
            problems.append("sync \(state.id) left \(state.status.rawValue)")
        }
        return problems
    }

    /// The app's last edit of each entry still held: on the server, or the entry dirty with it.
    private func editsLost(local: [JSONValue], server: [String: JSONValue]) -> [String] {
        let byEntry = Dictionary(
            local.compactMap { entry in entry["_soupEntryId"]?.int64Value.map { ($0, entry) } }, uniquingKeysWith: { a, _ in a })
        var lost: [String] = []
        for (entryId, value) in ledger.lastEdit.current {
            guard let entry = byEntry[entryId] else { continue } // deleted: by a cleanup of a record gone on the server, or folded
            if LocalFields.isDirty(entry) { continue }
            let onServer = entry["Id"]?.stringValue.flatMap { server[$0] }?["Industry"]?.stringValue
            if !value.contains(onServer ?? "") && !value.contains(entry["Industry"]?.stringValue ?? "") {
                lost.append("edit \(value.sorted()) of entry \(entryId) lost: entry \(entry), server \(onServer ?? "none")")
            }
        }
        return lost
    }
}
