public import FastJSON
import Foundation
import SalesforceREST
import SalesforceWire

/// One REST call per record (the SDK's `SyncUpTarget`): slowest, and the baseline of the sync-up benchmark.
public struct SingleRecordSyncUpTarget: RecordSyncUpTarget {
    /// The fields sent on create; nil: the sync options' field list.
    public var createFieldlist: [String]?
    /// The fields sent on update; nil: the sync options' field list.
    public var updateFieldlist: [String]?
    /// A field holding an external id: a record created locally with a real value there is upserted by it.
    public var externalIdFieldName: String?
    /// The field holding a record's server id (`Id`).
    public var idFieldName: String
    /// The field holding the record's modification date as synced down, compared in LEAVE_IF_CHANGED mode.
    public var modificationDateFieldName: String
    /// Records read and stamped per step of the sync (each still goes up in its own request).
    public var maxBatchSize: Int { 50 }

    /// A single-record target; the field lists default to the sync options' `fieldlist`.
    public init(
        createFieldlist: [String]? = nil, updateFieldlist: [String]? = nil, externalIdFieldName: String? = nil,
        idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate"
    ) {
        self.createFieldlist = createFieldlist
        self.updateFieldlist = updateFieldlist
        self.externalIdFieldName = externalIdFieldName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    init(json: JSONValue) {
        self.init(
            createFieldlist: json["createFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            updateFieldlist: json["updateFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            externalIdFieldName: json["externalIdFieldName"]?.stringValue, idFieldName: json["idFieldName"]?.stringValue ?? "Id",
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate")
    }

    /// `{"type": "single"}` with the field lists and names (`iOSImpl: SFSyncUpTarget` in SDK files maps here).
    public var json: JSONValue {
        recordTargetJSON(
            type: "single", self, createFieldlist: createFieldlist, updateFieldlist: updateFieldlist,
            externalIdFieldName: externalIdFieldName)
    }
}
