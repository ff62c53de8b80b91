import ArgumentParser
import Foundation
import SmartStore

/// `msync-bench bases`: what keeping each dirty record's base costs. Two stores with the same
/// records and `__local__` indexed, one keeping bases (the capture Mobile Sync installs on every
/// synced soup), one not (the baseline), measured in the same run: re-ingesting every page (a
/// resync updating clean records: the capture's triggers only test the flag), marking a share
/// of the records dirty (the capture copies each one), and the bytes the bases take.
struct BasesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bases", abstract: "The cost of keeping bases for three-way merges.")

    @Option(help: "Records in each store.")
    var records = 100_000

    @Option(help: "Records per ingested page (one transaction each).")
    var pageSize = 2000

    @Option(help: "Percent of the records marked dirty.")
    var dirtyPercent = 10

    @Option(help: "Directory for the database files (a temporary one by default).")
    var directory: String?

    func validate() throws {
        guard records > 0, pageSize > 0, (1...100).contains(dirtyPercent) else { throw ValidationError("counts must be positive") }
    }

    func run() throws {
        let folder = URL(fileURLWithPath: directory ?? NSTemporaryDirectory()).appendingPathComponent("msync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clean: [String: JSONValue] = [
            "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false, "__sync_id__": 1,
        ]
        let pages = stride(from: 0, to: records, by: pageSize).map { range -> [UInt8] in
            JSONValue.object(["records": .array(BenchRecords.make(range..<min(range + pageSize, records), of: records))]).jsonBytes
        }
        var stores: [SmartStore] = []
        for (name, keepsBases) in [("bases.sqlite", true), ("plain.sqlite", false)] {
            let store = try SmartStore(path: folder.appendingPathComponent(name).path)
            try store.registerSoup("accounts", indexSpecs: BenchRecords.indexSpecs + [IndexSpec("__local__", .string)])
            if keepsBases { try store.captureShadow("base", inSoup: "accounts", whenFlagSet: "__local__") }
            for page in pages { try store.ingestPage(page, into: "accounts", setFields: clean) }
            stores.append(store)
        }
        let (withBases, plain) = (stores[0], stores[1])

        // A resync updating every clean record, in turn on each store (twice, the first unmeasured).
        func resync(_ store: SmartStore) throws -> Double {
            try BenchReport.time { for page in pages { try store.ingestPage(page, into: "accounts", setFields: clean) } }
        }
        _ = (try resync(withBases), try resync(plain))
        let (ours, baseline) = (try resync(withBases), try resync(plain))
        BenchReport.throughput(
            scenario: "bases-resync", records: records, seconds: ours, baselineSeconds: baseline,
            extra: ["page_size": .int(Int64(pageSize))])

        try markDirty(withBases, baseline: plain, in: folder)
    }

    /// Marking records dirty, 500 per transaction: the capture copies each one. Closes both stores.
    private func markDirty(_ withBases: SmartStore, baseline plain: SmartStore, in folder: URL) throws {
        let dirty = records * dirtyPercent / 100
        let ids = try withBases.query(.all(soup: "accounts", orderPath: "_soupEntryId", pageSize: dirty)).compactMap {
            $0["_soupEntryId"]?.int64Value
        }
        func mark(_ store: SmartStore) throws -> Double {
            try BenchReport.time {
                for start in stride(from: 0, to: ids.count, by: 500) {
                    try store.modify(Array(ids[start..<min(ids.count, start + 500)]), in: "accounts") { entry in
                        entry?["Description"] = "Edited offline"
                        entry?["__local__"] = true
                        entry?["__locally_updated__"] = true
                    }
                }
            }
        }
        let (marked, markedBaseline) = (try mark(withBases), try mark(plain))
        let baseBytes =
            try withBases.query(.smart("select sum(length(document)) from soup_shadows", pageSize: 1)).first?.arrayValue?.first?
            .int64Value ?? 0
        let recordBytes =
            try withBases.query(.smart("select sum(length({accounts:_soup})) from {accounts}", pageSize: 1)).first?
            .arrayValue?.first?.int64Value ?? 1
        for store in [withBases, plain] { try store.close() }
        let fileBytes = { (name: String) in
            ((try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path))?[.size] as? NSNumber)?
                .int64Value ?? 0
        }
        BenchReport.throughput(
            scenario: "bases-mark-dirty", records: ids.count, seconds: marked, baselineSeconds: markedBaseline,
            extra: [
                "dirty_percent": .int(Int64(dirtyPercent)), "base_bytes": .int(baseBytes),
                "base_bytes_per_dirty_record": .int(baseBytes / Int64(max(1, ids.count))),
                "record_bytes_total": .int(recordBytes), "file_bytes": .int(fileBytes("bases.sqlite")),
                "baseline_file_bytes": .int(fileBytes("plain.sqlite")),
            ])
    }
}
