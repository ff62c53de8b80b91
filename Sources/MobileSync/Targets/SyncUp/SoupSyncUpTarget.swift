public import FastJSON
public import SalesforceREST
import SalesforceWire

/// A sync up target that sends the dirty records of the sync's soup in batches; the sync itself
/// comes with the protocol.
///
/// The sync it runs reads ``entryIdsToSyncUp(soupName:context:)``, then sends batches of
/// ``maxBatchSize`` through ``send(_:options:client:)`` — one batch prepared while the previous
/// one is on the wire — and applies each outcome to the record as it is by then, so an edit made
/// during the sync is kept. Unless ``createsAreIdempotent``, each create is recorded in the record
/// before it is sent, so a create whose response was lost is recognised on the next sync up
/// instead of being sent twice.
public protocol SoupSyncUpTarget: SyncUpTarget {
    /// Records per call to ``send(_:options:client:)``.
    var maxBatchSize: Int { get }
    /// Sends a batch of dirty records; one outcome per record, in order.
    func send(_ records: [JSONValue], options: SyncOptions, client: RestClient) async throws -> [SyncUpOutcome]
    /// Whether creates are idempotent (upserts by a client-generated key), so a lost response
    /// cannot lead to a duplicate and no reconciliation is needed.
    var createsAreIdempotent: Bool { get }
    /// The fields sent when creating (used to recognise a create whose response was lost).
    func createFields(options: SyncOptions) -> [String]?
    /// The fields sent when updating (used to recognise the server's version as the update's).
    func updateFields(options: SyncOptions) -> [String]?
    /// The entries to sync up, in the order to send them: the SDK's `getIdsOfRecordsToSyncUp`.
    /// The default is every dirty entry of the soup (``SyncContext/dirtyEntryIds(soup:)``); a
    /// target that syncs a chosen subset returns fewer. Entries returned that are not dirty
    /// are read and left alone.
    func entryIdsToSyncUp(soupName: String, context: SyncContext) async throws -> [Int64]
}

extension SoupSyncUpTarget {
    /// Creates are plain creates: a lost response is reconciled on the next sync up.
    public var createsAreIdempotent: Bool { false }
    /// The options' field list.
    public func createFields(options: SyncOptions) -> [String]? { options.fieldlist }
    /// The options' field list.
    public func updateFields(options: SyncOptions) -> [String]? { options.fieldlist }
    /// Every dirty entry of the soup, in entry-id order.
    public func entryIdsToSyncUp(soupName: String, context: SyncContext) async throws -> [Int64] {
        try await context.dirtyEntryIds(soup: soupName)
    }
}
