import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import TestSupport

@testable import LocalForce
@testable import MobileSync

/// The actors beside the app: other users, faults, conflict resolutions, another process and
/// killed `msync sync` children.
extension ChaosWorld {
    /// Another user renames, creates or deletes a record on the server (a fault may refuse it).
    func otherUser() async throws {
        do {
            try await otherUserWrites()
        } catch {
            ledger.note("other user: \(error)")
        }
    }

    private func otherUserWrites() async throws {
        let server = try await harness.client.allRecords("SELECT Id FROM Account ORDER BY Id").compactMap { $0["Id"]?.stringValue }
        switch pick(6) {
        case 0:
            let id = try await harness.client.create("Account", fields: ["Name": .string(token("theirs"))])
            ledger.note("other user creates \(id)")
        case 1 where !server.isEmpty:
            let id = server[pick(server.count)]
            _ = try await harness.client.deleteRecords([id])
            ledger.note("other user deletes \(id)")
        default:
            guard !server.isEmpty else { return }
            let id = server[pick(server.count)]
            let name = token("renamed")
            _ = try? await harness.client.update("Account", id: id, fields: ["Name": .string(name)])
            ledger.note("other user renames \(id) \(name)")
        }
    }

    /// A fault for the next write or query: an error, a dropped answer, a gateway's 504, or a
    /// late commit (stamped when it arrived, visible and answered up to half a second later).
    func fault() async {
        let kinds: [FaultInjection.Kind] = [
            .serverError, .unavailable, .dropBefore, .dropAfter, .gatewayTimeoutBefore, .gatewayTimeoutAfter,
        ]
        let choice = pick(kinds.count + 1)
        guard choice < kinds.count else {
            let delay = 50 + pick(450)
            await harness.localForce.faults.scheduleLateCommit(delay: .milliseconds(delay)) { $0.method != "GET" }
            ledger.note("fault late commit \(delay) ms")
            return
        }
        await harness.localForce.faults.schedule(kinds[choice]) { request in
            request.method != "GET" || request.segments.last == "query"
        }
        ledger.note("fault \(kinds[choice].rawValue)")
    }

    /// The user settles a conflict as a screen showed it: keeping the local record, the
    /// server's, or a merge of a new Industry. An entry written since is refused, and nothing
    /// changes; keeping the server discards the edit the user saw, and only that one.
    func resolveConflict() async throws {
        let conflicts = try await manager.conflicts(soup: "accounts")
        guard !conflicts.isEmpty else { return }
        let conflict = conflicts[pick(conflicts.count)]
        let seen = ledger.lastEdit.current[conflict.entryId]
        let merged = token("merged")
        let resolution: ConflictResolution = [.local, .server, .merged(["Industry": .string(merged)])][pick(3)]
        do {
            try await manager.resolveConflict(conflict, keeping: resolution)
        } catch {
            ledger.note("resolve \(conflict.entryId) \(resolution) refused: \(error)")
            return
        }
        ledger.lastEdit.withLock { edits in
            guard edits[conflict.entryId] == seen else { return } // edited after: that edit stands
            switch resolution {
            case .server: edits[conflict.entryId] = nil
            case .merged: edits[conflict.entryId] = [merged]
            case .local: break
            }
        }
        ledger.note("resolve \(conflict.entryId) \(conflict.kind.rawValue) keeping \(resolution)")
    }

    /// Another process on the same store file (an app extension): `msync sync` of the sync up
    /// or of the resync, to its end, or `msync edit` of an entry's Industry. It waits while
    /// this process holds the soup, as a process does.
    func otherProcess() async throws {
        switch pick(3) {
        case 0, 1:
            let name = pick(2) == 0 ? "up" : "accounts"
            let child = try await msync(sync: name)
            await child.exited()
            ledger.note("other process sync \(name): exit \(child.terminationStatus)")
        default:
            try await otherProcessEdit()
        }
    }

    /// `msync edit` of Industry. Edits this process made meanwhile may have landed before or
    /// after it, so either is the entry's last.
    private func otherProcessEdit() async throws {
        guard let entry = try randomEntry(), let entryId = entry["_soupEntryId"]?.int64Value else { return }
        let value = token("edit")
        let before = ledger.lastEdit.current[entryId]
        let child = try RunningChild(
            try msyncBinary(), ["edit", "--store", storePath, "--soup", "accounts", "\(entryId)", "Industry=\(value)"])
        await child.exited()
        guard child.terminationStatus == 0 else {
            ledger.note("edit \(entryId) \(value) (other process): exit \(child.terminationStatus)")
            return
        }
        ledger.lastEdit.withLock { edits in
            edits[entryId] = edits[entryId] == before ? [value] : (edits[entryId] ?? []).union([value])
        }
        ledger.note("edit \(entryId) \(value) (other process)")
    }

    /// `msync sync up` in a child process on the same store file, killed (SIGKILL) within
    /// 300 ms (most runs are under way then; a quick one may have ended).
    func killedChild() async throws {
        let child = try await msync(sync: "up")
        let delay = pick(300)
        try await Task.sleep(for: .milliseconds(delay))
        child.kill()
        await child.exited()
        ledger.note("child sync up killed after \(delay) ms (exit \(child.terminationStatus))")
    }

    /// `msync sync NAME` on the store, started (waiting at most 5 s for this process).
    func msync(sync name: String) async throws -> RunningChild {
        let arguments = [
            "sync", "--instance-url", harness.baseURL.absoluteString, "--token", SyncHarness.token, "--store", storePath,
            "--syncs", folder.appendingPathComponent("usersyncs.json").path, "--wait", "5", "--lost-create-wait",
            "\(Self.lostCreateSeconds)", name,
        ]
        return try RunningChild(try msyncBinary(), arguments)
    }

    /// The `msync` built beside the tests.
    func msyncBinary() throws -> URL {
        try BuiltProduct.executable("msync", package: Self.serverPackage)
    }

    /// The server package's folder (`Server/`), where `msync` is built.
    static let serverPackage = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
