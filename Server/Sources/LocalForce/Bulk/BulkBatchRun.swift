import FastJSON
import Foundation
import SOQL
@_spi(MSyncInternal) import SalesforceWire

/// One Bulk API 1.0 batch, run in one transaction with its results: records (a JSON array,
/// CSV, or XML `<sObjects>`) written through the record writer, or a query whose records are kept as result
/// sets of at most 10,000.
struct BulkBatchRun {
    let api: RecordAPI
    let job: BulkJob
    let batch: BulkBatch
    let now: Date

    /// The batch with its counts; throws ``BulkJobFailure`` for a batch that fails whole.
    func run() throws -> BulkBatch {
        var batch = self.batch
        let db = api.db
        var request: [UInt8] = []
        var number: Int64 = 0
        while let chunk = try BulkStore.chunk(batch.id, part: "request", from: number, on: db) {
            request += chunk.body
            number = chunk.number + 1
        }
        guard let object = api.schema.object(named: job.object) else { throw BulkJobFailure("InvalidBatch : Unknown object \(job.object)") }
        if job.operation == "query" || job.operation == "queryAll" {
            batch.processed = try runQuery(String(decoding: request, as: UTF8.self))
            return batch
        }
        let records =
            switch job.contentType {
            case "JSON": try jsonRecords(request, object: object)
            case "XML": try xmlRecords(request, object: object)
            default: try csvRecords(request, object: object)
            }
        guard records.count <= LocalForce.maximumBatchRecords else {
            throw BulkJobFailure("InvalidBatch : Records not processed: a batch holds at most \(LocalForce.maximumBatchRecords) records")
        }
        var results: [JSONValue] = []
        var lines: [UInt8] = CSVFormat.comma.line(["Id", "Success", "Created", "Error"])
        for (id, fields) in records {
            do {
                let body = try fields.get()
                let (written, created) = try withSavepoint(db, capture: api.capture) {
                    try api.bulkSave(object, job: job, id: id, body: body)
                }
                results.append(["success": true, "created": .bool(created), "id": .string(written), "errors": []])
                lines += CSVFormat.comma.line([written, "true", created ? "true" : "false", ""])
            } catch {
                let failure = error as? APIError ?? LocalForce.unexpected(error)
                batch.failed += 1
                results.append([
                    "success": false, "created": false, "id": id.map(JSONValue.string) ?? .null,
                    "errors": [
                        [
                            "statusCode": .string(failure.errorCode), "message": .string(failure.message),
                            "fields": .array((failure.fields ?? []).map(JSONValue.string)),
                        ]
                    ],
                ])
                lines += CSVFormat.comma.line([id ?? "", "false", "false", failure.bulkText])
            }
            batch.processed += 1
        }
        let body =
            switch job.contentType {
            case "JSON": JSONValue.array(results).jsonString
            case "XML": BulkXMLWriter.saveResults(results)
            default: String(decoding: lines, as: UTF8.self)
            }
        try BulkStore.append(batch.id, part: "result", body: body, on: db)
        return batch
    }

    /// A JSON batch's records: each object's `Id`, and its fields (a nested object under a
    /// relationship name sets the lookup by the parent's external id; a parent not found fails
    /// that record alone).
    private func jsonRecords(_ bytes: [UInt8], object: ObjectDefinition) throws -> [(String?, Result<[String: JSONValue], APIError>)] {
        guard let array = (try? JSONValue(parsing: bytes))?.arrayValue else {
            throw BulkJobFailure("InvalidBatch : The batch is not a JSON array of records")
        }
        return try array.map { item in
            guard case .object(let members) = item else { throw BulkJobFailure("InvalidBatch : Every record must be a JSON object") }
            var id: String?
            var body: [String: JSONValue] = [:]
            var failure: APIError?
            for (name, value) in members where name != "attributes" {
                if name.lowercased() == "id" {
                    id = value.stringValue
                } else if let field = object.field(named: name) {
                    body[field.name] = value
                } else if case .object(let parent) = value, parent.count == 1, let (keyName, keyValue) = parent.first,
                    let (lookup, target, key) = parentKey(object, relationship: name, key: keyName), let text = keyValue.stringValue
                {
                    do {
                        body[lookup.name] = .string(try api.parentId(target, key: key, value: text, lookup: lookup))
                    } catch {
                        failure = error as? APIError ?? LocalForce.unexpected(error)
                    }
                } else {
                    throw BulkJobFailure("InvalidBatch : Field name not found : \(name)")
                }
            }
            return (id, failure.map { .failure($0) } ?? .success(body))
        }
    }

    /// The lookup a relationship name sets, with its parent object and the parent's external id
    /// field `key` (nil when the relationship or the key is not one).
    private func parentKey(_ object: ObjectDefinition, relationship: String, key: String) -> (
        FieldDefinition, ObjectDefinition, FieldDefinition
    )? {
        guard
            let lookup = object.fields.first(where: {
                $0.type == .reference && $0.relationshipName?.lowercased() == relationship.lowercased()
            }),
            let target = lookup.referenceTo.first.flatMap(api.schema.object(named:)), let field = target.field(named: key), field.externalId
        else { return nil }
        return (lookup, target, field)
    }

    /// An XML batch's records: `<sObjects>` of `<sObject>`, each field an element (`xsi:nil` is
    /// null; values read as a CSV batch's are), a parent by its external id as a nested element
    /// (`<Account><External_Id__c>…</External_Id__c></Account>`).
    private func xmlRecords(_ bytes: [UInt8], object: ObjectDefinition) throws -> [(String?, Result<[String: JSONValue], APIError>)] {
        let root: BulkXMLElement
        do {
            root = try BulkXMLReader.parse(bytes)
        } catch {
            throw BulkJobFailure("InvalidBatch : \(error.message)")
        }
        guard root.name == "sObjects" else { throw BulkJobFailure("InvalidBatch : Expected sObjects, found \(root.name)") }
        return try root.children.map { item in
            guard item.name == "sObject" else { throw BulkJobFailure("InvalidBatch : Expected sObject, found \(item.name)") }
            var id: String?
            var body: [String: JSONValue] = [:]
            var failure: APIError?
            for element in item.children {
                let keys = element.children.filter { $0.name != "type" }
                if element.name.lowercased() == "id" {
                    id = element.text
                } else if keys.isEmpty, let field = object.field(named: element.name) {
                    // As in a CSV batch, an empty value is no value (a null is `xsi:nil`).
                    if !element.isNil && element.text.isEmpty { continue }
                    do {
                        body[field.name] =
                            element.isNil
                            ? .null : element.text == "#N/A" ? .string(element.text) : try BulkColumn.json(element.text, for: field)
                    } catch {
                        failure = failure ?? (error as? APIError ?? LocalForce.unexpected(error))
                    }
                } else if keys.count == 1, let (lookup, target, key) = parentKey(object, relationship: element.name, key: keys[0].name) {
                    do {
                        body[lookup.name] = .string(try api.parentId(target, key: key, value: keys[0].text, lookup: lookup))
                    } catch {
                        failure = failure ?? (error as? APIError ?? LocalForce.unexpected(error))
                    }
                } else {
                    throw BulkJobFailure("InvalidBatch : Field name not found : \(element.name)")
                }
            }
            return (id, failure.map { .failure($0) } ?? .success(body))
        }
    }

    /// A CSV batch's records (comma-separated, a header line first), their values read as Bulk
    /// API 2.0 reads them; a row that cannot be read fails alone.
    private func csvRecords(_ bytes: [UInt8], object: ObjectDefinition) throws -> [(String?, Result<[String: JSONValue], APIError>)] {
        var reader = CSVReader(delimiter: CSVFormat.comma.delimiter)
        var offset = 0
        var rows: [[String]] = []
        do {
            while let row = try reader.next(in: bytes, offset: &offset) { rows.append(row) }
            if let last = try reader.finish() { rows.append(last) }
        } catch {
            throw BulkJobFailure("InvalidBatch : \(error.message)")
        }
        guard let header = rows.first else { throw BulkJobFailure("InvalidBatch : The batch is empty") }
        let columns = try BulkColumn.resolve(header, object: object, schema: api.schema).get()
        return rows.dropFirst().map { values in
            var id: String?
            var body: [String: JSONValue] = [:]
            do {
                guard values.count == columns.count else {
                    throw APIError(400, "INVALID_FIELD", "The record has \(values.count) fields where the header has \(columns.count)")
                }
                for (column, text) in zip(columns, values) where !text.isEmpty {
                    switch column {
                    case .id: id = text
                    case .field(let field): body[field.name] = try BulkColumn.json(text, for: field)
                    case .parent(let lookup, let target, let key):
                        body[lookup.name] =
                            text == "#N/A" ? .null : .string(try api.parentId(target, key: key, value: text, lookup: lookup))
                    }
                }
                return (id, .success(body))
            } catch {
                return (id, .failure(error as? APIError ?? LocalForce.unexpected(error)))
            }
        }
    }

    /// Runs the batch's SOQL and keeps its records as result sets; how many there were.
    private func runQuery(_ soql: String) throws -> Int64 {
        let query: Query
        let columns: BulkQueryColumns
        do {
            query = try LocalForce.parse(soql)
            columns = try BulkQueryColumns(query, schema: api.schema)
        } catch {
            throw BulkJobFailure("InvalidBatch : Failed to process query: \(error.errorCode): \(error.message)")
        }
        guard query.object.lowercased() == job.object.lowercased() else {
            throw BulkJobFailure(
                "InvalidBatch : Failed to process query: INVALID_TYPE_FOR_OPERATION: The root entity of the requested query (\(query.object)) does not match the entity of the requested Bulk API Job (\(job.object))"
            )
        }
        let engine = QueryEngine(
            schema: api.schema, db: api.db, now: now, includeDeleted: job.operation == "queryAll", userId: job.createdBy)
        let ids: [String]
        do {
            ids = try engine.firstPage(query, batchSize: 1, version: job.apiVersion).snapshot.ids
        } catch {
            throw BulkJobFailure(
                "InvalidBatch : Failed to process query: \(LocalForce.apiError(error, soql).errorCode): \(LocalForce.apiError(error, soql).message)"
            )
        }
        var start = 0
        repeat {
            let slice = ids[start..<min(ids.count, start + LocalForce.maximumBatchRecords)]
            var writer = JSONWriter(reservingCapacity: 1 << 16)
            writer.write(punctuation: "[")
            try engine.writeRecords(query, ids: slice, version: job.apiVersion, to: &writer)
            writer.write(punctuation: "]")
            var body = String(decoding: writer.bytes, as: UTF8.self)
            if job.contentType == "CSV" {
                var lines = CSVFormat.comma.line(columns.header)
                for record in (try JSONValue(parsing: writer.bytes)).arrayValue ?? [] {
                    lines += CSVFormat.comma.line(columns.values(of: record))
                }
                body = String(decoding: lines, as: UTF8.self)
            } else if job.contentType == "XML" {
                let records = (try JSONValue(parsing: writer.bytes)).arrayValue ?? []
                body = BulkXMLWriter.queryResult(records, paths: columns.paths.map(\.components))
            }
            let sequence = try StorageSchema.next("bulk:results", on: api.db)
            let resultId = SalesforceId(prefix: "752", sequence: UInt64(max(0, sequence))).value
            try BulkStore.append(batch.id, part: "result:\(resultId)", body: body, on: api.db)
            start += LocalForce.maximumBatchRecords
        } while start < ids.count
        return Int64(ids.count)
    }
}
