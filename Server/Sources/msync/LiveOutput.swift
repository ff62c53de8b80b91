import FastJSON
import MobileSync

/// How `msync sync --live` prints what its live syncs do: a line per change or status change,
/// or a JSON object per line.
enum LiveOutput {
    /// `accounts: UPDATE 001…000001 (Name, LastModifiedDate) applied`.
    static func line(_ change: LiveChange) -> String {
        let ids = change.recordIds.joined(separator: ", ")
        let fields = change.changedFields.isEmpty ? "" : " (\(change.changedFields.joined(separator: ", ")))"
        let outcome =
            switch change.outcome {
            case .applied: "applied"
            case .resynced: "resynced"
            case .skippedDirty: "skipped: changed locally, the next sync up sends it"
            }
        return "\(change.syncName): \(change.changeType) \(ids)\(fields) \(outcome)"
    }

    /// `accounts: LIVE`, with the note when there is one.
    static func line(_ name: String, _ info: LiveSyncInfo) -> String {
        "\(name): \(info.status.rawValue)" + (info.note.isEmpty ? "" : " - \(info.note)")
    }

    static func json(_ change: LiveChange) -> String {
        JSONValue.object([
            "sync": .string(change.syncName), "changeType": .string(change.changeType),
            "recordIds": .array(change.recordIds.map(JSONValue.string)),
            "changedFields": .array(change.changedFields.map(JSONValue.string)),
            "outcome": .string(change.outcome.rawValue), "replayId": .int(change.replayId),
        ]).sortedJSONString
    }

    static func json(_ name: String, _ info: LiveSyncInfo) -> String {
        JSONValue.object(["sync": .string(name), "liveStatus": .string(info.status.rawValue), "note": .string(info.note)]).sortedJSONString
    }
}
