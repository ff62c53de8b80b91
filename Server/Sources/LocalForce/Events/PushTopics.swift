import FastJSON
import Foundation
import SOQL
@_spi(MSyncInternal) import SalesforceWire

/// PushTopics: `PushTopic` records whose SOQL query selects the records a `/topic/<Name>`
/// channel announces, on the operations and field changes their `NotifyFor…` fields choose.
///
/// A topic is evaluated inside the writing transaction: its WHERE clause against the record as
/// written (the same query engine as `/query`), and its event carries the selected fields, up to
/// ``maximumBytesPerTransaction`` of them in one transaction.
enum PushTopics {
    static let objectName = "PushTopic"

    /// One active topic.
    struct Topic {
        var name: String
        var query: Query
        var operations: Set<Operation>
        /// `All`, `Referenced` (the default), `Select` or `Where`: which field changes of an
        /// update notify.
        var notifyForFields: String
        var selectFields: Set<String>
        /// The WHERE clause's fields; `nil` when it has function calls (any field counts).
        var whereFields: Set<String>?
    }

    enum Operation: String {
        case create = "created"
        case update = "updated"
        case delete = "deleted"
    }

    /// A topic name: 1 to 25 letters, digits and underscores, starting with a letter.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 25, first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// The `PushTopic` object.
    static let definition = ObjectDefinition(
        name: objectName, label: "Push Topic", keyPrefix: "0IF",
        fields: [
            FieldDefinition("Name", .string, label: "Topic Name", length: 25, required: true, unique: true, isNameField: true),
            FieldDefinition("Query", .textarea, label: "SOQL Query", length: 1300, required: true),
            FieldDefinition("ApiVersion", .double, label: "API Version", required: true),
            FieldDefinition("IsActive", .boolean, label: "Is Active", defaultValue: "true"),
            FieldDefinition("NotifyForOperationCreate", .boolean, label: "Create", defaultValue: "true"),
            FieldDefinition("NotifyForOperationUpdate", .boolean, label: "Update", defaultValue: "true"),
            FieldDefinition("NotifyForOperationDelete", .boolean, label: "Delete", defaultValue: "true"),
            FieldDefinition("NotifyForOperationUndelete", .boolean, label: "Undelete", defaultValue: "true"),
            FieldDefinition(
                "NotifyForFields", .picklist, label: "Notify For Fields", defaultValue: "Referenced",
                picklistValues: ["All", "Referenced", "Select", "Where"]),
            FieldDefinition("Description", .string, length: 400),
        ],
        mruEnabled: false)

    /// PushTopics an org holds at most (Salesforce: 100 in Performance and Unlimited Edition, 50
    /// in Enterprise, 40 in the others): every write evaluates every active topic of its object.
    static let maximumTopics = 100

    /// Refuses a new topic once the org holds ``maximumTopics``.
    static func checkRoom(db: any SQLConnection) throws {
        // Taking a counter row first queues concurrent creations (on PostgreSQL, whose writers
        // do not exclude each other): each counts the topics the ones before it committed. The
        // row is made first if need be (a second creation at once waits for it, then updates it).
        try db.execute(
            "INSERT INTO lf_counters (name, value) VALUES (\(db.dialect.placeholder(1)), 0) ON CONFLICT (name) DO NOTHING",
            [.text("pushtopics:room")])
        _ = try StorageSchema.next("pushtopics:room", on: db)
        let count = try db.scalar("SELECT count(*) FROM \"PushTopic\" WHERE \"IsDeleted\" = 0", [])?.integer ?? 0
        guard count < Int64(maximumTopics) else {
            throw APIError(400, "LIMIT_EXCEEDED", "The org has \(maximumTopics) PushTopics, the most it may have: delete one first")
        }
    }

    /// Checks a topic's name and query as Salesforce does on save: a simple query on one object
    /// that selects `Id`, without aggregates, subqueries, ORDER BY, LIMIT or OFFSET.
    static func validate(_ values: [(FieldDefinition, SQLValue)], schema: Schema, db: any SQLConnection) throws(APIError) {
        if let name = values.first(where: { $0.0.name == "Name" })?.1.text, !isValidName(name) {
            throw APIError(
                400, "INVALID_FIELD", "Topic Name must be 1 to 25 letters, digits or underscores, starting with a letter", fields: ["Name"])
        }
        if let notify = values.first(where: { $0.0.name == "NotifyForFields" })?.1.text,
            !["All", "Referenced", "Select", "Where"].contains(notify)
        {
            throw APIError(
                400, "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", "Notify For Fields: bad value for restricted picklist field: \(notify)",
                fields: ["NotifyForFields"])
        }
        guard let text = values.first(where: { $0.0.name == "Query" })?.1.text else { return }
        let query: Query
        do {
            query = try SOQLParser.parse(text)
        } catch {
            throw APIError(400, "INVALID_FIELD", "The PushTopic query is not valid SOQL: \(error)", fields: ["Query"])
        }
        guard schema.object(named: query.object).map(StreamingChannel.capturesChanges(of:)) == true else {
            throw APIError(400, "INVALID_TYPE", "The PushTopic query's object is not supported: \(query.object)", fields: ["Query"])
        }
        let plain = query.selectItems.allSatisfy { if case .field(let path) = $0 { path.components.count == 1 } else { false } }
        guard plain, !query.isAggregate, query.orderBy.isEmpty, query.limit == nil, query.offset == nil, query.groupBy == nil else {
            throw APIError(
                400, "INVALID_FIELD",
                "A PushTopic query selects fields of its object only: no relationships, aggregates, subqueries, ORDER BY, LIMIT or OFFSET",
                fields: ["Query"])
        }
        let selectsId = query.selectItems.contains { item in
            if case .field(let path) = item { path.components.count == 1 && path.components[0].lowercased() == "id" } else { false }
        }
        guard selectsId else {
            throw APIError(400, "INVALID_FIELD", "A PushTopic query must select Id", fields: ["Query"])
        }
        do {
            // Run once on no record: every field and operator is checked by the engine that will evaluate it.
            var probe = query
            let none = Condition.inList(FieldPath(["Id"]), negated: false, values: [Literal.string("000000000000000AAA")])
            probe.condition = query.condition.map { .and([.group($0), none]) } ?? none
            _ = try QueryEngine(schema: schema, db: db, now: .now, includeDeleted: false).firstPage(probe, batchSize: 1, version: "66.0")
        } catch {
            throw APIError(400, "INVALID_FIELD", "The PushTopic query is not valid: \(error)", fields: ["Query"])
        }
    }

    /// The active topics whose query is on `objectName`.
    static func active(on objectName: String, schema: Schema, db: any SQLConnection) throws -> [Topic] {
        let rows = try db.rows(
            """
            SELECT "Name", "Query", "NotifyForOperationCreate", "NotifyForOperationUpdate", "NotifyForOperationDelete", "NotifyForFields"
            FROM "PushTopic" WHERE "IsActive" = 1 AND "IsDeleted" = 0
            """, [])
        return rows.compactMap { row -> Topic? in
            guard row.count == 6, let name = row[0].text, let text = row[1].text, let query = try? SOQLParser.parse(text),
                query.object.lowercased() == objectName.lowercased()
            else { return nil }
            var operations: Set<Operation> = []
            if (row[2].integer ?? 1) != 0 { operations.insert(.create) }
            if (row[3].integer ?? 1) != 0 { operations.insert(.update) }
            if (row[4].integer ?? 1) != 0 { operations.insert(.delete) }
            let select = Set(query.selectedFields.map { $0.field.lowercased() })
            return Topic(
                name: name, query: query, operations: operations, notifyForFields: row[5].text ?? "Referenced", selectFields: select,
                whereFields: query.condition.map(fields(of:)) ?? [])
        }
    }

    /// The top-level fields a condition reads; `nil` when a function call hides them.
    static func fields(of condition: Condition) -> Set<String>? {
        var fields: Set<String> = []
        var work = [condition]
        while let next = work.popLast() {
            switch next {
            case .and(let parts), .or(let parts): work += parts
            case .not(let inner), .group(let inner): work.append(inner)
            case .comparison(let path, _, _), .like(let path, _), .inList(let path, _, _), .inSubquery(let path, _, _),
                .includes(let path, _, _):
                fields.insert((path.components.first ?? "").lowercased())
            case .functionComparison, .functionInList: return nil
            }
        }
        return fields
    }

    /// The most bytes of topic events one transaction writes with their fields: past them, a
    /// topic's events carry the record's Id alone (and its query selects nothing else), so that
    /// what a write costs in topic evaluation and storage stays bounded whatever the topics
    /// select (100 topics selecting a 131 KB field would otherwise make 13 MB of one update).
    static let maximumBytesPerTransaction = 4 << 20

    /// Publishes the events of the topics on `object` that these records and this change
    /// notify: the operation is one the topic watches, an update changed a field it cares
    /// about, and the record (as written) matches its WHERE clause.
    static func publish(
        _ object: ObjectDefinition, ids: [String], operation: Operation, changed: Set<String>?, capture: ChangeCapture,
        on db: any SQLConnection
    ) throws {
        let topics = try capture.topics(on: object, db: db)
        guard !topics.isEmpty else { return }
        let lowered = changed.map { Set($0.map { $0.lowercased() }) }
        for topic in topics where topic.operations.contains(operation) {
            if let lowered, !notifies(topic, changed: lowered) { continue }
            var query = topic.query
            if capture.topicBytes >= maximumBytesPerTransaction { query.selectItems = [.field(FieldPath(["Id"]))] }
            let restriction = Condition.inList(FieldPath(["Id"]), negated: false, values: ids.map { Literal.string($0) })
            query.condition = query.condition.map { .and([.group($0), restriction]) } ?? restriction
            let engine = QueryEngine(schema: capture.schema, db: db, now: .now, includeDeleted: operation == .delete)
            let page: [UInt8]
            do {
                page = try engine.firstPage(query, batchSize: QueryEngine.defaultBatchSize, version: "66.0").records
            } catch {
                continue // a topic whose query no longer runs (a field removed from the schema) publishes nothing
            }
            guard case .array(let records)? = try? JSONValue(parsing: Array("[".utf8) + page + Array("]".utf8)) else { continue }
            for record in records {
                guard case .object(var fields) = record, let id = fields["Id"]?.stringValue else { continue }
                fields["attributes"] = nil
                if operation == .delete { fields = ["Id": .string(id)] }
                var body = event(fields, operation: operation, at: capture.commitTimestamp)
                // Too large to send (over 1 MB), or over the transaction's budget: the record's
                // Id alone, for subscribers to read it.
                if body.utf8.count > EventLog.maximumEventBytes || capture.topicBytes + body.utf8.count > maximumBytesPerTransaction {
                    body = event(["Id": .string(id)], operation: operation, at: capture.commitTimestamp)
                }
                capture.topicBytes += body.utf8.count
                capture.add(channel: "/topic/" + topic.name, kind: .pushTopic, body: body)
            }
        }
    }

    /// A topic event's body up to its `event` member's last field (see ``EventLog/Event``).
    private static func event(_ fields: [String: JSONValue], operation: Operation, at time: Int64) -> String {
        var writer = JSONWriter(reservingCapacity: 256)
        writer.writeRaw(#"{"sobject":"#.utf8)
        writer.write(.object(fields))
        writer.writeRaw(#","event":{"createdDate":"#.utf8)
        writer.writeString(SalesforceTime.format(time).replacingOccurrences(of: "+0000", with: "Z"))
        writer.writeRaw(#","type":"#.utf8)
        writer.writeString(operation.rawValue)
        writer.write(punctuation: ",")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func notifies(_ topic: Topic, changed: Set<String>) -> Bool {
        let data = changed.subtracting(["lastmodifieddate", "lastmodifiedbyid", "systemmodstamp"])
        switch topic.notifyForFields {
        case "All": return true
        case "Select": return !data.isDisjoint(with: topic.selectFields)
        case "Where": return topic.whereFields.map { !data.isDisjoint(with: $0) } ?? true
        default: return !data.isDisjoint(with: topic.selectFields) || (topic.whereFields.map { !data.isDisjoint(with: $0) } ?? true)
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
