/// The Bulk APIs' limits, scaled from Salesforce's, and how jobs are processed.
public struct BulkOptions: Sendable {
    /// The largest CSV one upload (`PUT …/batches`) may send (Salesforce: 150 MB). Uploads are
    /// written to the database as they arrive, never held whole.
    public var maximumUploadSize: Int
    /// The most records one job may hold; a job with more fails (`ExceededQuota`) once it gets there.
    public var maximumRecordsPerJob: Int
    /// Records written per transaction while a job is processed: its progress is saved after each,
    /// so a job interrupted by a restart resumes where it stood.
    public var recordsPerTransaction: Int
    /// How long a job's processing may go without progress before another LocalForce process on
    /// the same database (or this one, restarted) takes it over.
    public var claimTimeout: Duration

    /// Options; the defaults follow Salesforce's limits for one job.
    public init(
        maximumUploadSize: Int = 150_000_000, maximumRecordsPerJob: Int = 10_000_000, recordsPerTransaction: Int = 1_000,
        claimTimeout: Duration = .seconds(15)
    ) {
        self.maximumUploadSize = max(1, maximumUploadSize)
        self.maximumRecordsPerJob = max(1, maximumRecordsPerJob)
        self.recordsPerTransaction = max(1, recordsPerTransaction)
        self.claimTimeout = max(.milliseconds(100), claimTimeout)
    }
}
