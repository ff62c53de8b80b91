import Foundation
import SmartStore

/// `msync-bench store --encrypted`: the same public operations on an encrypted store and on
/// a plaintext one (the baseline), in one run: bulk ingest, upserts through the API, point
/// lookups and ordered pages. Both stores are files in the same folder; the encrypted one uses
/// a raw key, so the one-time key derivation of a passphrase is left out.
struct EncryptedStoreBenchmark {
    let records: Int
    let batchSize: Int
    let pageSize: Int
    let samples: Int
    /// The stores' options (both stores; the shared cache serves the encrypted one only).
    let options: StoreOptions
    /// Whether SQLCipher's own ratio is measured too, on the same rows (``SQLCipherRatio``).
    let comparesWithSQLCipher: Bool

    private struct Timings {
        var bulk = 0.0
        var api = 0.0
        var lookup = 0.0
        var page = 0.0
    }

    func run(entries: [JSONValue], folder: URL) throws {
        let key = try StoreKey.raw((0..<32).map { UInt8($0) })
        var generator = SplitMix(seed: 7)
        let lookupKeys = (0..<samples).map { _ in entries[Int(generator.next() % UInt64(records))]["Id"] ?? .null }
        let pageStarts = (0..<samples).map { _ in entries[Int(generator.next() % UInt64(records))]["Name"] ?? .null }
        // Two rounds, each writing both stores (plaintext first) and then reading them with
        // samples taken in turn; each scenario reports the better of its two rounds, so neither
        // side pays alone for a cold cache or a busy moment of a shared machine.
        var plain = Timings()
        var encrypted = Timings()
        for round in 0..<2 {
            let (plainRun, encryptedRun) = try measure(entries: entries, folder: folder, round: round, key: key, lookupKeys, pageStarts)
            plain = round == 0 ? plainRun : Self.best(plain, plainRun)
            encrypted = round == 0 ? encryptedRun : Self.best(encrypted, encryptedRun)
        }
        let caches: [String: JSONValue] = [
            "baseline": "plaintext store", "cache_kib": options.cacheSizeKiB.map { .int(Int64($0)) } ?? "default",
            "shared_cache_kib": .int(Int64(options.sharedCacheKiB)),
        ]
        BenchReport.throughput(
            scenario: "store-encrypted-bulk", records: records, seconds: encrypted.bulk, baselineSeconds: plain.bulk,
            extra: caches.merging(["page_size": .int(Int64(pageSize))]) { $1 })
        BenchReport.throughput(
            scenario: "store-encrypted-api", records: records, seconds: encrypted.api, baselineSeconds: plain.api,
            extra: caches.merging(["batch_size": .int(Int64(batchSize))]) { $1 })
        BenchReport.latency(
            scenario: "store-encrypted-lookup", records: records, samples: samples, medianMicroseconds: encrypted.lookup,
            baselineMedianMicroseconds: plain.lookup, extra: caches)
        BenchReport.latency(
            scenario: "store-encrypted-page", records: records, samples: samples, medianMicroseconds: encrypted.page,
            baselineMedianMicroseconds: plain.page, extra: caches.merging(["page_rows": 50]) { $1 })
        if comparesWithSQLCipher {
            try SQLCipherRatio.run(
                source: folder.appendingPathComponent("plain-1-api.sqlite").path, samples: samples, rowsPerTransaction: pageSize)
        }
    }

    private static func best(_ a: Timings, _ b: Timings) -> Timings {
        Timings(bulk: min(a.bulk, b.bulk), api: min(a.api, b.api), lookup: min(a.lookup, b.lookup), page: min(a.page, b.page))
    }

    /// One round: the plaintext store's timings, then the encrypted one's.
    private func measure(
        entries: [JSONValue], folder: URL, round: Int, key: StoreKey, _ lookupKeys: [JSONValue], _ pageStarts: [JSONValue]
    ) throws -> (Timings, Timings) {
        var plain = Timings()
        var encrypted = Timings()
        let pages = stride(from: 0, to: records, by: pageSize).map { start in
            JSONValue.object(["records": .array(Array(entries[start..<min(start + pageSize, records)]))]).jsonBytes
        }
        plain.bulk = try bulk(pages, path: folder.appendingPathComponent("plain-\(round)-bulk.sqlite").path, key: nil)
        encrypted.bulk = try bulk(pages, path: folder.appendingPathComponent("encrypted-\(round)-bulk.sqlite").path, key: key)
        let (plainStore, plainAPI) = try upserts(entries, path: folder.appendingPathComponent("plain-\(round)-api.sqlite").path, key: nil)
        let (store, api) = try upserts(entries, path: folder.appendingPathComponent("encrypted-\(round)-api.sqlite").path, key: key)
        plain.api = plainAPI
        encrypted.api = api
        (encrypted.lookup, plain.lookup) = try BenchReport.pairedMedianMicroseconds(
            samples: samples,
            { sample in try Self.lookup(store, lookupKeys[sample]) }, { sample in try Self.lookup(plainStore, lookupKeys[sample]) })
        (encrypted.page, plain.page) = try BenchReport.pairedMedianMicroseconds(
            samples: samples,
            { sample in try Self.page(store, from: pageStarts[sample]) }, { sample in try Self.page(plainStore, from: pageStarts[sample]) })
        try store.close()
        try plainStore.close()
        return (plain, encrypted)
    }

    private func bulk(_ pages: [[UInt8]], path: String, key: StoreKey?) throws -> Double {
        let store = try SmartStore(path: path, key: key, options: options)
        defer { try? store.close() }
        try store.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs)
        return try BenchReport.time {
            for page in pages { try store.ingestPage(page, into: "accounts", setFields: ["__local__": false]) }
        }
    }

    private func upserts(_ entries: [JSONValue], path: String, key: StoreKey?) throws -> (SmartStore, Double) {
        let store = try SmartStore(path: path, key: key, options: options)
        try store.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs)
        let seconds = try BenchReport.time {
            for start in stride(from: 0, to: records, by: batchSize) {
                try store.upsert(Array(entries[start..<min(start + batchSize, records)]), in: "accounts")
            }
        }
        return (store, seconds)
    }

    private static func lookup(_ store: SmartStore, _ key: JSONValue) throws {
        let found = try store.query(.exact(soup: "accounts", path: "Id", key: key, pageSize: 1))
        precondition(found.count == 1)
    }

    private static func page(_ store: SmartStore, from start: JSONValue) throws {
        _ = try store.query(.range(soup: "accounts", path: "Name", begin: start, end: nil, orderPath: "Name", pageSize: 50))
    }
}
