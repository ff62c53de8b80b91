/// What `SmartStore.ingestPage` did with a page.
public struct PageIngestResult: Sendable, Equatable {
    /// Records in the page.
    public var received: Int
    /// Entries inserted or updated.
    public var written: Int
    /// Records not written because the local entry is dirty (`skipDirty`), plus duplicates
    /// of an id within the page (the last occurrence wins).
    public var skipped: Int
    /// The greatest value at the timestamp path among the page's records (text comparison,
    /// which orders ISO-8601 dates in one format correctly); `nil` when no record has one.
    public var maxTimestamp: String?
    /// How many records had no value at the timestamp path.
    public var recordsWithoutTimestamp: Int

    /// A result; see the properties.
    public init(received: Int, written: Int, skipped: Int, maxTimestamp: String?, recordsWithoutTimestamp: Int) {
        self.received = received
        self.written = written
        self.skipped = skipped
        self.maxTimestamp = maxTimestamp
        self.recordsWithoutTimestamp = recordsWithoutTimestamp
    }
}
