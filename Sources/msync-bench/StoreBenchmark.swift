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

    func validate() throws {
        guard records > 0, batchSize > 0, pageSize > 0, samples > 0 else { throw ValidationError("counts must be positive") }
    }

    func run() throws {
        let folder = URL(fileURLWithPath: directory ?? NSTemporaryDirectory()).appendingPathComponent("msync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let entries = BenchRecords.make(count: records)
        if encrypted {
            try EncryptedStoreBenchmark(records: records, batchSize: batchSize, pageSize: pageSize, samples: samples)
                .run(entries: entries, folder: folder)
            return
        }
        let documents = entries.map(\.jsonBytes)
        let averageBytes = documents.reduce(0) { $0 + $1.count } / documents.count
        let pages = stride(from: 0, to: records, by: pageSize).map { start in
            JSONValue.object([
                "totalSize": .int(Int64(records)), "done": false,
                "records": .array(Array(entries[start..<min(start + pageSize, records)])),
            ]).jsonBytes
        }

        // (c) baseline, with the same transaction sizes as each scenario.
        let baselineForAPI = try Baseline(path: folder.appendingPathComponent("baseline-api.sqlite").path)
        let baselineAPISeconds = try baselineForAPI.insert(entries: entries, documents: documents, transactionSize: batchSize)
        let baselineBulk = try Baseline(path: folder.appendingPathComponent("baseline-bulk.sqlite").path)
        let baselineBulkSeconds = try baselineBulk.insert(entries: entries, documents: documents, transactionSize: pageSize)

        // (a) the public upsert API.
        let apiStore = try SmartStore(path: folder.appendingPathComponent("api.sqlite").path)
        try apiStore.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs)
        let apiSeconds = try BenchReport.time {
            for start in stride(from: 0, to: records, by: batchSize) {
                try apiStore.upsert(Array(entries[start..<min(start + batchSize, records)]), in: "accounts")
            }
        }
        BenchReport.throughput(
            scenario: "store-api", records: records, seconds: apiSeconds, baselineSeconds: baselineAPISeconds,
            extra: ["batch_size": .int(Int64(batchSize)), "record_bytes": .int(Int64(averageBytes)), "index_specs": 4])

        // (b) the bulk page ingest.
        let bulkStore = try SmartStore(path: folder.appendingPathComponent("bulk.sqlite").path)
        try bulkStore.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs)
        let bookkeeping: [String: JSONValue] = [
            "__local__": false, "__locally_created__": false, "__locally_updated__": false,
            "__locally_deleted__": false, "__sync_id__": 1,
        ]
        let bulkSeconds = try BenchReport.time {
            for page in pages { try bulkStore.ingestPage(page, into: "accounts", setFields: bookkeeping) }
        }
        BenchReport.throughput(
            scenario: "store-bulk", records: records, seconds: bulkSeconds, baselineSeconds: baselineBulkSeconds,
            extra: ["page_size": .int(Int64(pageSize)), "record_bytes": .int(Int64(averageBytes)), "index_specs": 4])

        // Re-ingesting the same pages: every record is an update of an existing entry.
        let baselineUpdateSeconds = try baselineBulk.update(entries: entries, documents: documents, transactionSize: pageSize)
        let bulkUpdateSeconds = try BenchReport.time {
            for page in pages { try bulkStore.ingestPage(page, into: "accounts", setFields: bookkeeping) }
        }
        BenchReport.throughput(
            scenario: "store-bulk-update", records: records, seconds: bulkUpdateSeconds,
            baselineSeconds: baselineUpdateSeconds, extra: ["page_size": .int(Int64(pageSize))])

        // Point lookup on an indexed path.
        var generator = SplitMix(seed: 42)
        let lookupKeys = (0..<samples).map { _ in entries[Int(generator.next() % UInt64(records))]["Id"] ?? .null }
        let lookup = try BenchReport.medianMicroseconds(samples: samples) { sample in
            let found = try apiStore.query(.exact(soup: "accounts", path: "Id", key: lookupKeys[sample], pageSize: 1))
            precondition(found.count == 1)
        }
        let baselineLookup = try baselineForAPI.medianLookup(keys: lookupKeys.compactMap(\.stringValue))
        BenchReport.latency(
            scenario: "store-lookup", records: records, samples: samples, medianMicroseconds: lookup,
            baselineMedianMicroseconds: baselineLookup)

        let lookupJSON = try BenchReport.medianMicroseconds(samples: samples) { sample in
            let found = try apiStore.queryJSON(.exact(soup: "accounts", path: "Id", key: lookupKeys[sample], pageSize: 1))
            precondition(found.count > 2)
        }
        BenchReport.latency(
            scenario: "store-lookup-json", records: records, samples: samples, medianMicroseconds: lookupJSON,
            baselineMedianMicroseconds: baselineLookup)

        // A 50-row page ordered by an indexed path.
        let pageStarts = (0..<samples).map { _ in entries[Int(generator.next() % UInt64(records))]["Name"] ?? .null }
        let page = try BenchReport.medianMicroseconds(samples: samples) { sample in
            _ = try apiStore.query(
                .range(soup: "accounts", path: "Name", begin: pageStarts[sample], end: nil, orderPath: "Name", pageSize: 50))
        }
        let baselinePage = try baselineForAPI.medianPage(starts: pageStarts.compactMap(\.stringValue))
        BenchReport.latency(
            scenario: "store-page", records: records, samples: samples, medianMicroseconds: page,
            baselineMedianMicroseconds: baselinePage)
        let pageJSON = try BenchReport.medianMicroseconds(samples: samples) { sample in
            _ = try apiStore.queryJSON(
                .range(soup: "accounts", path: "Name", begin: pageStarts[sample], end: nil, orderPath: "Name", pageSize: 50))
        }
        BenchReport.latency(
            scenario: "store-page-json", records: records, samples: samples, medianMicroseconds: pageJSON,
            baselineMedianMicroseconds: baselinePage)
    }
}

/// The baseline: an equivalent table (same columns, same six indexes) written and read with
/// plain prepared statements through the C API.
struct Baseline {
    let database: RawSQLite

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

    func insert(entries: [JSONValue], documents: [[UInt8]], transactionSize: Int) throws -> Double {
        let statement = try database.prepare("INSERT INTO T (soup, created, lastModified, c0, c1, c2, c3) VALUES (?, ?, ?, ?, ?, ?, ?)")
        return try timedTransactions(count: entries.count, size: transactionSize) { index in
            statement.bind(1, documents[index])
            statement.bind(2, 1_700_000_000_000)
            statement.bind(3, 1_700_000_000_000)
            bindColumns(statement, entries[index], from: 4)
            try statement.run()
        }
    }

    func update(entries: [JSONValue], documents: [[UInt8]], transactionSize: Int) throws -> Double {
        let statement = try database.prepare("UPDATE T SET soup = ?, lastModified = ?, c0 = ?, c1 = ?, c2 = ?, c3 = ? WHERE id = ?")
        return try timedTransactions(count: entries.count, size: transactionSize) { index in
            statement.bind(1, documents[index])
            statement.bind(2, 1_700_000_000_001)
            bindColumns(statement, entries[index], from: 3)
            statement.bind(7, Int64(index + 1))
            try statement.run()
        }
    }

    /// Runs `row` for indexes `0..<count`, `size` rows per transaction, and returns the seconds taken.
    private func timedTransactions(count: Int, size: Int, _ row: (Int) throws -> Void) throws -> Double {
        try BenchReport.time {
            for start in stride(from: 0, to: count, by: size) {
                try database.execute("BEGIN")
                for index in start..<min(start + size, count) { try row(index) }
                try database.execute("COMMIT")
            }
        }
    }

    func medianLookup(keys: [String]) throws -> Double {
        let statement = try database.prepare("SELECT soup FROM T WHERE c0 = ?")
        return try BenchReport.medianMicroseconds(samples: keys.count) { sample in
            statement.bind(1, keys[sample])
            var bytes = 0
            try statement.run { row in bytes += Int(sqlite3_column_bytes(row, 0)) }
            precondition(bytes > 0)
        }
    }

    func medianPage(starts: [String]) throws -> Double {
        let statement = try database.prepare("SELECT soup FROM T WHERE c1 >= ? ORDER BY c1 ASC LIMIT 50")
        return try BenchReport.medianMicroseconds(samples: starts.count) { sample in
            statement.bind(1, starts[sample])
            var bytes = 0
            try statement.run { row in bytes += Int(sqlite3_column_bytes(row, 0)) }
        }
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
