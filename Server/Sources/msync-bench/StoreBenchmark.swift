import ArgumentParser
import Foundation
import GRDBSQLite
import SmartStore

/// `msync-bench store`: inserts through the public upsert API and the bulk page ingest, point
/// lookups and ordered pages, each against plain prepared SQLite statements on an equivalent
/// table with the same indexes (the baseline), measured in the same run.
struct StoreBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "store", abstract: "SmartStore write and read throughput.")

    @Option(help: "Records to insert.")
    var records = 100_000

    @Option(help: "Entries per public upsert call (one transaction each).")
    var batchSize = 1000

    @Option(help: "Records per page for the bulk ingest (one transaction each).")
    var pageSize = 2000

    @Option(help: "Samples for the lookup and page scenarios.")
    var samples = 2001

    @Option(help: "Directory for the database files (a temporary one by default).")
    var directory: String?

    @Flag(help: "Compare an encrypted store with a plaintext one (the baseline), in the same run.")
    var encrypted = false

    @Option(help: "With --encrypted: each connection's page cache in KiB (the store's default when left out).")
    var cacheKib: Int?

    @Option(help: "With --encrypted: the decrypted pages all connections share, in KiB.")
    var sharedCacheKib = StoreOptions.defaultSharedCacheKiB

    @Flag(
        inversion: .prefixedNo,
        help: "With --encrypted: measure SQLCipher 4's own ratio on the same rows too (Python's sqlcipher3-binary).")
    var sqlcipher = true

    @Flag(help: "Run the read scenarios in a new process on the files just written, so its heap holds nothing of the writes.")
    var freshReads = false

    @Option(help: ArgumentHelp("Only read the files a run left in this directory (how --fresh-reads runs its reads).", visibility: .hidden))
    var readsFrom: String?

    @Flag(
        help: ArgumentHelp(
            "Keep the database files (their directory is printed), to read them again with --reads-from.", visibility: .hidden))
    var keep = false

    func validate() throws {
        guard records > 0, batchSize > 0, pageSize > 0, samples > 0 else { throw ValidationError("counts must be positive") }
        guard (cacheKib ?? 1) > 0, sharedCacheKib >= 0 else { throw ValidationError("cache sizes must be positive") }
    }

    func run() throws {
        let folder = URL(fileURLWithPath: directory ?? NSTemporaryDirectory()).appendingPathComponent("msync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            if keep {
                FileHandle.standardError.write(Data("kept \(folder.path)\n".utf8))
            } else {
                try? FileManager.default.removeItem(at: folder)
            }
        }

        if encrypted {
            let options = StoreOptions(cacheSizeKiB: cacheKib, sharedCacheKiB: sharedCacheKib)
            try EncryptedStoreBenchmark(
                records: records, batchSize: batchSize, pageSize: pageSize, samples: samples, options: options,
                comparesWithSQLCipher: sqlcipher
            )
            .run(entries: BenchRecords.make(count: records), folder: folder)
            return
        }
        if let readsFrom {
            let folder = URL(fileURLWithPath: readsFrom)
            let store = try SmartStore(path: folder.appendingPathComponent("api.sqlite").path)
            try reads(store: store, baseline: try Baseline(existingAt: folder.appendingPathComponent("baseline-api.sqlite").path))
            return
        }
        let (apiStore, baselineForAPI) = try writeScenarios(folder: folder)
        // The writes leave gigabytes of dirty pages at a million records: flushed first, so that
        // the reads do not compete with their writeback.
        guard freshReads else {
            sync()
            return try reads(store: apiStore, baseline: baselineForAPI)
        }
        try apiStore.close()
        sync()
        guard let executable = Bundle.main.executableURL else { throw BenchError("cannot locate msync-bench itself") }
        let child = Process()
        child.executableURL = executable
        child.arguments = ["store", "--records", String(records), "--samples", String(samples), "--reads-from", folder.path]
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw BenchError("the reads process failed (\(child.terminationStatus))") }
    }

    /// The keys the read scenarios sample: record ids for lookups, names where pages start.
    private func sampleKeys() -> (lookups: [JSONValue], pageStarts: [JSONValue]) {
        var generator = SplitMix(seed: 42)
        func record(_ index: Int) -> JSONValue { BenchRecords.make(index..<index + 1, of: records).first ?? .null }
        let lookups = (0..<samples).map { _ in record(Int(generator.next() % UInt64(records)))["Id"] ?? .null }
        let starts = (0..<samples).map { _ in record(Int(generator.next() % UInt64(records)))["Name"] ?? .null }
        return (lookups, starts)
    }

    /// The read scenarios on the API store and its baseline.
    private func reads(store apiStore: SmartStore, baseline baselineForAPI: Baseline) throws {
        let (lookupKeys, pageStarts) = sampleKeys()

        // A point lookup on an indexed path, and a 50-row page ordered by one: each as values and as
        // JSON text, against the baseline building the same, with the bare read alongside.
        let keys = lookupKeys.compactMap(\.stringValue)
        let starts = pageStarts.compactMap(\.stringValue)
        let reads: [(scenario: String, spec: (Int) -> QuerySpec, baseline: (Baseline.ResultShape) throws -> (Int) throws -> Void)] = [
            (
                "store-lookup", { .exact(soup: "accounts", path: "Id", key: lookupKeys[$0], pageSize: 1) },
                { try baselineForAPI.lookup(keys: keys, result: $0) }
            ),
            (
                "store-page", { .range(soup: "accounts", path: "Name", begin: pageStarts[$0], end: nil, orderPath: "Name", pageSize: 50) },
                { try baselineForAPI.page(starts: starts, result: $0) }
            ),
        ]
        // The bare read first (it also brings the baseline's rows into the OS cache), and one
        // untimed pass of ours over the same samples for the store's file: this machine's OS
        // drops cached file pages within minutes, so a file written long before is read from disk.
        // Then ours and the baseline's are sampled in turn.
        for read in reads {
            let bareRead = try BenchReport.medianMicroseconds(samples: samples, try read.baseline(.bytesRead))
            for sample in 0..<samples { _ = try apiStore.queryJSON(read.spec(sample)) }
            let bare = ["read_only_baseline_median_us": BenchReport.rounded(bareRead, 10)]
            let values = try BenchReport.pairedMedianMicroseconds(
                samples: samples,
                { sample in
                    let found = try apiStore.query(read.spec(sample))
                    precondition(!found.isEmpty)
                }, try read.baseline(.values))
            BenchReport.latency(
                scenario: read.scenario, records: records, samples: samples, medianMicroseconds: values.ours,
                baselineMedianMicroseconds: values.baseline, extra: bare)
            let json = try BenchReport.pairedMedianMicroseconds(
                samples: samples,
                { sample in
                    let found = try apiStore.queryJSON(read.spec(sample))
                    precondition(found.count > 2)
                }, try read.baseline(.jsonArray))
            BenchReport.latency(
                scenario: read.scenario + "-json", records: records, samples: samples, medianMicroseconds: json.ours,
                baselineMedianMicroseconds: json.baseline, extra: bare)
        }
    }

    /// The write scenarios; returns the API store and its baseline, read next. Records are made
    /// one batch at a time, outside the timed calls, so the heap never holds them all (at a
    /// million records that was gigabytes).
    private func writeScenarios(folder: URL) throws -> (SmartStore, Baseline) {
        let batches = stride(from: 0, to: records, by: batchSize).map { $0..<min($0 + batchSize, records) }
        let pageRanges = stride(from: 0, to: records, by: pageSize).map { $0..<min($0 + pageSize, records) }
        let sample = BenchRecords.make(0..<min(records, 1000), of: records)
        let averageBytes = sample.reduce(0) { $0 + $1.jsonBytes.count } / sample.count

        // (c) baseline, with the same transaction sizes as each scenario.
        let baselineForAPI = try Baseline(path: folder.appendingPathComponent("baseline-api.sqlite").path)
        let baselineAPISeconds = try batches.reduce(0.0) { total, range in
            try total + baselineForAPI.insert(entries: BenchRecords.make(range, of: records))
        }
        let baselineBulk = try Baseline(path: folder.appendingPathComponent("baseline-bulk.sqlite").path)
        let baselineBulkSeconds = try pageRanges.reduce(0.0) { total, range in
            try total + baselineBulk.insert(entries: BenchRecords.make(range, of: records))
        }

        // (a) the public upsert API.
        let apiStore = try SmartStore(path: folder.appendingPathComponent("api.sqlite").path)
        try apiStore.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs)
        let apiSeconds = try batches.reduce(0.0) { total, range in
            let entries = BenchRecords.make(range, of: records)
            return try total + BenchReport.time { try apiStore.upsert(entries, in: "accounts") }
        }
        BenchReport.throughput(
            scenario: "store-api", records: records, seconds: apiSeconds, baselineSeconds: baselineAPISeconds,
            extra: ["batch_size": .int(Int64(batchSize)), "record_bytes": .int(Int64(averageBytes)), "index_specs": 4])

        try bulkScenarios(
            folder: folder, pageRanges: pageRanges, baseline: baselineBulk, baselineSeconds: baselineBulkSeconds,
            averageBytes: averageBytes)
        return (apiStore, baselineForAPI)
    }

    /// A page of records as the REST API answers it.
    private func benchPage(_ range: Range<Int>) -> [UInt8] {
        JSONValue.object([
            "totalSize": .int(Int64(records)), "done": false, "records": .array(BenchRecords.make(range, of: records)),
        ]).jsonBytes
    }

    /// (b) the bulk page ingest, then the same pages again (every record an update).
    private func bulkScenarios(folder: URL, pageRanges: [Range<Int>], baseline: Baseline, baselineSeconds: Double, averageBytes: Int)
        throws
    {
        let bulkStore = try SmartStore(path: folder.appendingPathComponent("bulk.sqlite").path)
        try bulkStore.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs)
        let bookkeeping: [String: JSONValue] = [
            "__local__": false, "__locally_created__": false, "__locally_updated__": false,
            "__locally_deleted__": false, "__sync_id__": 1,
        ]
        func ingestAll() throws -> Double {
            try pageRanges.reduce(0.0) { total, range in
                let text = benchPage(range)
                return try total + BenchReport.time { try bulkStore.ingestPage(text, into: "accounts", setFields: bookkeeping) }
            }
        }
        let bulkSeconds = try ingestAll()
        BenchReport.throughput(
            scenario: "store-bulk", records: records, seconds: bulkSeconds, baselineSeconds: baselineSeconds,
            extra: ["page_size": .int(Int64(pageSize)), "record_bytes": .int(Int64(averageBytes)), "index_specs": 4])

        // Re-ingesting the same pages: every record is an update of an existing entry.
        let baselineUpdateSeconds = try pageRanges.reduce(0.0) { total, range in
            try total + baseline.update(entries: BenchRecords.make(range, of: records), firstId: Int64(range.lowerBound + 1))
        }
        let bulkUpdateSeconds = try ingestAll()
        BenchReport.throughput(
            scenario: "store-bulk-update", records: records, seconds: bulkUpdateSeconds,
            baselineSeconds: baselineUpdateSeconds, extra: ["page_size": .int(Int64(pageSize))])

    }
}

/// The baseline: an equivalent table (same columns, same six indexes) written and read with
/// plain prepared statements through the C API.
struct Baseline {
    let database: RawSQLite

    /// Opens the baseline table a run left at `path`.
    init(existingAt path: String) throws {
        database = try RawSQLite(path: path)
    }

    init(path: String) throws {
        database = try RawSQLite(path: path)
        try database.execute(
            """
            CREATE TABLE T (id INTEGER PRIMARY KEY AUTOINCREMENT, soup TEXT, created INTEGER, lastModified INTEGER,
                            c0 TEXT, c1 TEXT, c2 INTEGER, c3 TEXT);
            CREATE INDEX T_created ON T (created); CREATE INDEX T_lastModified ON T (lastModified);
            CREATE INDEX T_0 ON T (c0); CREATE INDEX T_1 ON T (c1); CREATE INDEX T_2 ON T (c2); CREATE INDEX T_3 ON T (c3);
            """)
    }

    private func bindColumns(_ statement: RawSQLite.Statement, _ entry: JSONValue, from index: Int32) {
        statement.bind(index, entry["Id"]?.stringValue ?? "")
        statement.bind(index + 1, entry["Name"]?.stringValue ?? "")
        statement.bind(index + 2, entry["NumberOfEmployees"]?.int64Value ?? 0)
        statement.bind(index + 3, entry["LastModifiedDate"]?.stringValue ?? "")
    }

    /// Inserts `entries` in one transaction; returns the seconds taken (their JSON text is
    /// written before the clock starts, as the store is given JSON values).
    func insert(entries: [JSONValue]) throws -> Double {
        let documents = entries.map(\.jsonBytes)
        let statement = try database.prepare("INSERT INTO T (soup, created, lastModified, c0, c1, c2, c3) VALUES (?, ?, ?, ?, ?, ?, ?)")
        return try timedTransaction(count: entries.count) { index in
            statement.bind(1, documents[index])
            statement.bind(2, 1_700_000_000_000)
            statement.bind(3, 1_700_000_000_000)
            bindColumns(statement, entries[index], from: 4)
            try statement.run()
        }
    }

    /// Updates the rows `firstId…` with `entries` in one transaction; returns the seconds taken.
    func update(entries: [JSONValue], firstId: Int64) throws -> Double {
        let documents = entries.map(\.jsonBytes)
        let statement = try database.prepare("UPDATE T SET soup = ?, lastModified = ?, c0 = ?, c1 = ?, c2 = ?, c3 = ? WHERE id = ?")
        return try timedTransaction(count: entries.count) { index in
            statement.bind(1, documents[index])
            statement.bind(2, 1_700_000_000_001)
            bindColumns(statement, entries[index], from: 3)
            statement.bind(7, firstId + Int64(index))
            try statement.run()
        }
    }

    /// Runs `row` for indexes `0..<count` in one transaction and returns the seconds taken.
    private func timedTransaction(count: Int, _ row: (Int) throws -> Void) throws -> Double {
        try BenchReport.time {
            try database.execute("BEGIN")
            for index in 0..<count { try row(index) }
            try database.execute("COMMIT")
        }
    }

    /// What a baseline read builds from its rows, matching the result type of the store call
    /// it is compared with.
    enum ResultShape {
        /// Each row's entry parsed into a `JSONValue` (as `SmartStore.query` returns them).
        case values
        /// The rows' entries copied into one JSON array text (as `SmartStore.queryJSON`).
        case jsonArray
        /// Nothing built: the entry bytes are only counted (the cost of the read alone).
        case bytesRead
    }

    /// One point lookup per sample, building `result`.
    func lookup(keys: [String], result: ResultShape) throws -> (Int) throws -> Void {
        let statement = try database.prepare("SELECT soup FROM T WHERE c0 = ?")
        return { sample in
            statement.bind(1, keys[sample])
            let rows = try Self.read(statement, as: result)
            precondition(rows == 1)
        }
    }

    /// One 50-row page per sample, building `result`.
    func page(starts: [String], result: ResultShape) throws -> (Int) throws -> Void {
        let statement = try database.prepare("SELECT soup FROM T WHERE c1 >= ? ORDER BY c1 ASC LIMIT 50")
        return { sample in
            statement.bind(1, starts[sample])
            _ = try Self.read(statement, as: result)
        }
    }

    /// Steps `statement` and builds `result` from its rows; returns the number of rows.
    private static func read(_ statement: RawSQLite.Statement, as result: ResultShape) throws -> Int {
        var rows = 0
        switch result {
        case .values:
            var values: [JSONValue] = []
            try statement.run { row in
                values.append((try? JSONValue(parsing: RawSQLite.columnBytes(row, 0))) ?? .null)
                rows += 1
            }
        case .jsonArray:
            var text: [UInt8] = [UInt8(ascii: "[")]
            text.reserveCapacity(4096)
            try statement.run { row in
                if rows > 0 { text.append(UInt8(ascii: ",")) }
                text.append(contentsOf: RawSQLite.columnBytes(row, 0))
                rows += 1
            }
            text.append(UInt8(ascii: "]"))
        case .bytesRead:
            var bytes = 0
            try statement.run { row in
                bytes += Int(sqlite3_column_bytes(row, 0))
                rows += 1
            }
            precondition(rows == 0 || bytes > 0)
        }
        return rows
    }
}

/// A small deterministic generator so every run samples the same keys.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
