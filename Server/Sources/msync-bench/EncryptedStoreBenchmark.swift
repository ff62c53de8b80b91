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
        // Plaintext first, then encrypted, then both once more: each scenario reports the better
        // of its two runs, so neither side pays alone for a cold cache or a busy moment.
        var plain = Timings()
        var encrypted = Timings()
        for round in 0..<2 {
            let plainRun = try measure(entries: entries, folder: folder, name: "plain-\(round)", key: nil, lookupKeys, pageStarts)
            let encryptedRun = try measure(entries: entries, folder: folder, name: "encrypted-\(round)", key: key, lookupKeys, pageStarts)
            plain = round == 0 ? plainRun : Self.best(plain, plainRun)
            encrypted = round == 0 ? encryptedRun : Self.best(encrypted, encryptedRun)
        }
        BenchReport.throughput(
            scenario: "store-encrypted-bulk", records: records, seconds: encrypted.bulk, baselineSeconds: plain.bulk,
            extra: ["page_size": .int(Int64(pageSize)), "baseline": "plaintext store"])
        BenchReport.throughput(
            scenario: "store-encrypted-api", records: records, seconds: encrypted.api, baselineSeconds: plain.api,
            extra: ["batch_size": .int(Int64(batchSize)), "baseline": "plaintext store"])
        BenchReport.latency(
            scenario: "store-encrypted-lookup", records: records, samples: samples, medianMicroseconds: encrypted.lookup,
            baselineMedianMicroseconds: plain.lookup)
        BenchReport.latency(
            scenario: "store-encrypted-page", records: records, samples: samples, medianMicroseconds: encrypted.page,
            baselineMedianMicroseconds: plain.page)
    }

    private static func best(_ a: Timings, _ b: Timings) -> Timings {
        Timings(bulk: min(a.bulk, b.bulk), api: min(a.api, b.api), lookup: min(a.lookup, b.lookup), page: min(a.page, b.page))
    }

    private func measure(
        entries: [JSONValue], folder: URL, name: String, key: StoreKey?, _ lookupKeys: [JSONValue], _ pageStarts: [JSONValue]
    ) throws -> Timings {
        var timings = Timings()
        let pages = stride(from: 0, to: records, by: pageSize).map { start in
            JSONValue.object(["records": .array(Array(entries[start..<min(start + pageSize, records)]))]).jsonBytes
        }
        let bulkStore = try SmartStore(path: folder.appendingPathComponent("\(name)-bulk.sqlite").path, key: key)
        try bulkStore.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs)
        timings.bulk = try BenchReport.time {
            for page in pages { try bulkStore.ingestPage(page, into: "accounts", setFields: ["__local__": false]) }
        }
        try bulkStore.close()

        let store = try SmartStore(path: folder.appendingPathComponent("\(name)-api.sqlite").path, key: key)
        try store.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs)
        timings.api = try BenchReport.time {
            for start in stride(from: 0, to: records, by: batchSize) {
                try store.upsert(Array(entries[start..<min(start + batchSize, records)]), in: "accounts")
            }
        }
        timings.lookup = try BenchReport.medianMicroseconds(samples: samples) { sample in
            let found = try store.query(.exact(soup: "accounts", path: "Id", key: lookupKeys[sample], pageSize: 1))
            precondition(found.count == 1)
        }
        timings.page = try BenchReport.medianMicroseconds(samples: samples) { sample in
            _ = try store.query(
                .range(soup: "accounts", path: "Name", begin: pageStarts[sample], end: nil, orderPath: "Name", pageSize: 50))
        }
        try store.close()
        return timings
    }
}
