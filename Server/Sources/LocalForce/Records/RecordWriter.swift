import FastJSON
@_spi(MSyncInternal) import SalesforceWire

/// Creates, updates and deletes records inside one transaction, enforcing the schema the way
/// Salesforce does (unknown and read-only fields, required fields, lengths, references,
/// unique external ids) and maintaining system fields.
struct RecordWriter {
    let schema: Schema
    let db: any SQLConnection
    /// The API user: owner and `CreatedById` / `LastModifiedById` of what it writes.
    let userId: String
    let clock: WriteClock
    /// Counter values reserved per transaction (collections creates), or nil for one statement each.
    var counters: CounterBlock? = nil
    /// The transaction's change events, or nil when changes are not captured.
    var capture: ChangeCapture? = nil

    private var dialect: SQLDialect { db.dialect }

    /// A write's timestamp: the clock's time, or the next unique tick after the last write; a
    /// late commit keeps the time its request arrived.
    private func stamp() throws -> Int64 {
        if clock.frozen { return clock.now }
        // Concurrent writers share no clock row: this process's clock (see ``StampClock``).
        if dialect.concurrentWriters, let stamps = clock.stamps { return stamps.next(now: clock.now) }
        return try counters?.nextStamp(now: clock.now, on: db) ?? StorageSchema.tick(now: clock.now, on: db)
    }
    private func p(_ index: Int) -> String { dialect.placeholder(index) }

    /// Converts a JSON body into stored values, checking every field. `attributes` is ignored.
    func values(for object: ObjectDefinition, body: [String: JSONValue], creating: Bool) throws -> [(FieldDefinition, SQLValue)] {
        var values: [(FieldDefinition, SQLValue)] = []
        for (key, value) in body.sorted(by: { $0.key < $1.key }) where key != "attributes" {
            guard let field = object.field(named: key) else {
                throw APIError(400, "INVALID_FIELD", "No such column '\(key)' on sobject of type \(object.name)", fields: [key])
            }
            if field.readOnly {
                throw APIError(
                    400, "INVALID_FIELD_FOR_INSERT_UPDATE",
                    "Unable to create/update fields: \(field.name). Please check the security settings of this field and verify that it is read/write for your profile or permission set.",
                    fields: [field.name])
            }
            values.append((field, try FieldCodec.storage(value, for: field)))
        }
        return values
    }

    /// Creates a record and returns its id.
    ///
    /// Every check comes before the first write and the record is one INSERT, so a failure
    /// leaves nothing behind but unused counter values: callers need no savepoint around it.
    func create(_ object: ObjectDefinition, body: [String: JSONValue]) throws -> SalesforceId {
        var values = try values(for: object, body: body, creating: true)
        for field in object.fields
        where !field.readOnly && field.defaultValue != nil && !values.contains(where: { $0.0.name == field.name }) {
            if let defaultValue = field.defaultValue {
                values.append(
                    (
                        field,
                        try FieldCodec.storage(field.type == .boolean ? .bool(defaultValue == "true") : .string(defaultValue), for: field)
                    ))
            }
        }
        if let owner = object.field(named: "OwnerId"), !values.contains(where: { $0.0.name == "OwnerId" && !$0.1.isNull }) {
            values.removeAll { $0.0.name == "OwnerId" }
            values.append((owner, .text(userId)))
        }
        let missing = object.fields.filter { field in
            field.required && !field.readOnly && !values.contains { $0.0.name == field.name && !$0.1.isNull }
        }
        if !missing.isEmpty {
            let names = missing.map(\.name)
            throw APIError(400, "REQUIRED_FIELD_MISSING", "Required fields are missing: [\(names.joined(separator: ", "))]", fields: names)
        }
        try checkReferencesAndUniqueness(object, values, excluding: nil)
        if object.name == PushTopics.objectName {
            try PushTopics.validate(values, schema: schema, db: db)
            try PushTopics.checkRoom(db: db)
        }
        if object.isPlatformEvent { return try PlatformEvents.publish(object, values: values, userId: userId, now: clock.now, on: db) }
        let sequence = try counters?.nextRecordNumber(object, on: db) ?? StorageSchema.nextRecordNumber(object, on: db)
        // A counter is positive unless the database was tampered with; clamping keeps that an odd id, not a trap.
        let id = SalesforceId(prefix: object.keyPrefix, sequence: UInt64(clamping: sequence))
        let stamp = try stamp()
        var row: [(String, SQLValue)] = values.map { ($0.0.name, $0.1) }
        row += [
            ("Id", .text(id.value)), ("IsDeleted", .integer(0)), ("CreatedDate", .integer(stamp)), ("CreatedById", .text(userId)),
            ("LastModifiedDate", .integer(stamp)), ("LastModifiedById", .text(userId)), ("SystemModstamp", .integer(stamp)),
        ]
        row += try computedValues(object, id: id, values: values)
        let columns = row.map { SQLDialect.quote($0.0) }.joined(separator: ", ")
        let placeholders = row.indices.map { p($0 + 1) }.joined(separator: ", ")
        try db.execute("INSERT INTO \(SQLDialect.quote(object.name)) (\(columns)) VALUES (\(placeholders))", row.map(\.1))
        try capture?.created(object, id: id.value, row: row, on: db)
        return id
    }

    /// Updates a record. `ifUnmodifiedSince` (ms) fails with 412 when the record changed later.
    func update(_ object: ObjectDefinition, id: SalesforceId, body: [String: JSONValue], ifUnmodifiedSince: Int64? = nil) throws {
        let values = try values(for: object, body: body, creating: false)
        let current = try state(object, id: id)
        if current.deleted { throw APIError.entityIsDeleted }
        if let ifUnmodifiedSince, current.lastModified / 1000 > ifUnmodifiedSince / 1000 {
            throw APIError(
                412, "PRECONDITION_FAILED", "The requested resource has been modified since \(SalesforceTime.format(ifUnmodifiedSince))")
        }
        let nulled = values.filter { $0.0.required && $0.1.isNull }.map(\.0.name)
        if !nulled.isEmpty {
            throw APIError(
                400, "REQUIRED_FIELD_MISSING", "Required fields are missing: [\(nulled.joined(separator: ", "))]", fields: nulled)
        }
        try checkReferencesAndUniqueness(object, values, excluding: id.value)
        if object.name == PushTopics.objectName { try PushTopics.validate(values, schema: schema, db: db) }
        let before = try capture.map { _ in try currentValues(object, id: id, names: values.map(\.0.name) + ["Name"]) }
        let stamp = try stamp()
        var row: [(String, SQLValue)] = values.map { ($0.0.name, $0.1) }
        row += [("LastModifiedDate", .integer(stamp)), ("LastModifiedById", .text(userId)), ("SystemModstamp", .integer(stamp))]
        row = try write(row, to: object, id: id)
        let computed = try computedValues(object, id: id, values: nil)
        if !computed.isEmpty {
            let set = computed.enumerated().map { "\(SQLDialect.quote($0.element.0)) = \(p($0.offset + 1))" }.joined(separator: ", ")
            try db.execute(
                "UPDATE \(SQLDialect.quote(object.name)) SET \(set) WHERE \"Id\" = \(p(computed.count + 1))",
                computed.map(\.1) + [.text(id.value)])
        }
        if let capture, let before { try capture.updated(object, id: id.value, after: row + computed, before: before, on: db) }
    }

    /// Writes an update's `row` (its stamps included); returns it with the stamps the record
    /// got. With concurrent writers a stamp is at least the record's previous one + 1 (another
    /// process's clock may be ahead of ours), decided under the row's lock by the UPDATE itself
    /// — unless the clock is frozen: a late commit keeps its arrival time, as on SQLite.
    private func write(_ row: [(String, SQLValue)], to object: ObjectDefinition, id: SalesforceId) throws -> [(String, SQLValue)] {
        let floored = dialect.concurrentWriters && !clock.frozen
        let assignments = row.enumerated().map { offset, column in
            let value = p(offset + 1)
            let isStamp = column.0 == "LastModifiedDate" || column.0 == "SystemModstamp"
            return "\(SQLDialect.quote(column.0)) = \(floored && isStamp ? Self.stampAfterPrevious(value) : value)"
        }
        let sql = "UPDATE \(SQLDialect.quote(object.name)) SET \(assignments.joined(separator: ", ")) WHERE \"Id\" = \(p(row.count + 1))"
        guard floored else {
            try db.execute(sql, row.map(\.1) + [.text(id.value)])
            return row
        }
        let stamp = try db.scalar(sql + " RETURNING \"SystemModstamp\"", row.map(\.1) + [.text(id.value)])
        return row.map { name, value in (name == "LastModifiedDate" || name == "SystemModstamp") ? (name, stamp ?? value) : (name, value) }
    }

    /// `stamp` (a placeholder used twice), or the row's previous stamp + 1 if that is later.
    private static func stampAfterPrevious(_ stamp: String) -> String {
        "CASE WHEN \"SystemModstamp\" >= \(stamp) THEN \"SystemModstamp\" + 1 ELSE \(stamp) END"
    }

    /// The stored values of a record's columns named `names` (those the object has).
    private func currentValues(_ object: ObjectDefinition, id: SalesforceId, names: [String]) throws -> [String: SQLValue] {
        let fields = Array(Set(names.compactMap { object.field(named: $0)?.name })).sorted()
        guard !fields.isEmpty,
            let row = try db.rows(
                "SELECT \(fields.map(SQLDialect.quote).joined(separator: ", ")) FROM \(SQLDialect.quote(object.name)) WHERE \"Id\" = \(p(1))",
                [.text(id.value)]
            ).first
        else { return [:] }
        return Dictionary(zip(fields, row), uniquingKeysWith: { first, _ in first })
    }

    /// Moves a record to the recycle bin; master-detail children follow, lookups to it are cleared.
    func delete(_ object: ObjectDefinition, id: SalesforceId) throws {
        let current = try state(object, id: id)
        if current.deleted { throw APIError.entityIsDeleted }
        try softDelete(object, ids: [id.value])
    }

    /// Marks records deleted, cascading to master-detail children and clearing lookups to them.
    ///
    /// A worklist, not recursion: a chain of master-detail records (or a cycle a schema file
    /// allows) is as long as the data makes it, and already-deleted records are never selected
    /// again, so the walk ends. Ids go to SQL in chunks (SQLite binds at most 32,766 values).
    private func softDelete(_ object: ObjectDefinition, ids: [String]) throws {
        var work: [(object: ObjectDefinition, ids: ArraySlice<String>)] = []
        func enqueue(_ object: ObjectDefinition, _ ids: [String]) {
            for start in stride(from: 0, to: ids.count, by: Self.idChunk) {
                work.append((object, ids[start..<min(start + Self.idChunk, ids.count)]))
            }
        }
        enqueue(object, ids)
        while let (object, ids) = work.popLast() {
            guard !ids.isEmpty else { continue }
            let stamp = try stamp()
            let list = ids.indices.map { p($0 - ids.startIndex + 3) }.joined(separator: ", ")
            let (modstamp, modified) =
                dialect.concurrentWriters && !clock.frozen
                ? (Self.stampAfterPrevious(p(1)), Self.stampAfterPrevious(p(2))) : (p(1), p(2))
            try db.execute(
                "UPDATE \(SQLDialect.quote(object.name)) SET \"IsDeleted\" = 1, \"SystemModstamp\" = \(modstamp), \"LastModifiedDate\" = \(modified) WHERE \"Id\" IN (\(list))",
                [.integer(stamp), .integer(stamp)] + ids.map(SQLValue.text))
            try capture?.deleted(object, ids: Array(ids), on: db)
            for relationship in schema.childRelationships(of: object.name) {
                guard let child = schema.object(named: relationship.childObject) else { continue }
                let table = SQLDialect.quote(child.name)
                let column = SQLDialect.quote(relationship.field)
                let childList = ids.indices.map { p($0 - ids.startIndex + 1) }.joined(separator: ", ")
                if relationship.kind == .masterDetail {
                    enqueue(
                        child,
                        try db.rows(
                            "SELECT \"Id\" FROM \(table) WHERE \(column) IN (\(childList)) AND \"IsDeleted\" = 0", ids.map(SQLValue.text)
                        )
                        .compactMap { $0.first?.text })
                } else {
                    let cleared = try capture.map { _ in
                        try db.rows(
                            "SELECT \"Id\" FROM \(table) WHERE \(column) IN (\(childList)) AND \"IsDeleted\" = 0", ids.map(SQLValue.text)
                        ).compactMap {
                            $0.first?.text
                        }
                    }
                    try db.execute("UPDATE \(table) SET \(column) = NULL WHERE \(column) IN (\(childList))", ids.map(SQLValue.text))
                    for childId in cleared ?? [] {
                        try capture?.updated(
                            child, id: childId, after: [(relationship.field, .null)], before: [relationship.field: .text("")], on: db)
                    }
                }
            }
        }
    }

    /// Ids per statement of a cascade.
    private static let idChunk = 500

    /// The ids of live records whose `field` equals `value` (external-id lookups; case-insensitive for text).
    func ids(_ object: ObjectDefinition, where field: FieldDefinition, equals value: SQLValue) throws -> [String] {
        try db.rows(
            "SELECT \"Id\" FROM \(SQLDialect.quote(object.name)) WHERE \(SQLDialect.quote(field.name)) = \(p(1)) AND \"IsDeleted\" = 0 ORDER BY \"Id\"",
            [value]
        ).compactMap { $0.first?.text }
    }

    /// Whether the record exists, is deleted, and when it was last modified.
    func state(_ object: ObjectDefinition, id: SalesforceId) throws -> (deleted: Bool, lastModified: Int64) {
        guard
            let row = try db.rows(
                "SELECT \"IsDeleted\", \"LastModifiedDate\" FROM \(SQLDialect.quote(object.name)) WHERE \"Id\" = \(p(1))",
                [.text(id.value)]
            ).first
        else { throw APIError.notFound }
        return ((row[0].integer ?? 0) != 0, row[1].integer ?? 0)
    }

    private func checkReferencesAndUniqueness(_ object: ObjectDefinition, _ values: [(FieldDefinition, SQLValue)], excluding id: String?)
        throws
    {
        for (field, value) in values {
            guard let text = value.text else { continue }
            if field.type == .reference {
                if text == userId { continue } // the API user exists
                let targets = field.referenceTo.compactMap { schema.object(named: $0) }
                guard let target = targets.first(where: { text.hasPrefix($0.keyPrefix) }) else {
                    throw APIError(
                        400, "FIELD_INTEGRITY_EXCEPTION", "\(field.label): id value of incorrect type: \(text)", fields: [field.name])
                }
                let live = try db.scalar(
                    "SELECT count(*) FROM \(SQLDialect.quote(target.name)) WHERE \"Id\" = \(p(1)) AND \"IsDeleted\" = 0", [value])
                guard (live?.integer ?? 0) > 0 else {
                    throw APIError(400, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id", fields: [field.name])
                }
            }
            if field.unique || field.externalId, field.type != .reference {
                let others = try ids(object, where: field, equals: value).filter { $0 != id }
                if let other = others.first, field.unique {
                    throw APIError(
                        400, "DUPLICATE_VALUE", "duplicate value found: \(field.name) duplicates value on record with id: \(other)",
                        fields: [field.name])
                }
            }
        }
    }

    /// Server-maintained fields: full names (`FirstName LastName`) and auto numbers.
    private func computedValues(_ object: ObjectDefinition, id: SalesforceId, values: [(FieldDefinition, SQLValue)]?) throws -> [(
        String, SQLValue
    )] {
        var computed: [(String, SQLValue)] = []
        if let name = object.field(named: "Name"), name.readOnly, object.field(named: "LastName") != nil {
            let first: String?
            let last: String?
            if let values {
                first = values.first { $0.0.name == "FirstName" }?.1.text
                last = values.first { $0.0.name == "LastName" }?.1.text
            } else {
                let row = try db.rows(
                    "SELECT \"FirstName\", \"LastName\" FROM \(SQLDialect.quote(object.name)) WHERE \"Id\" = \(p(1))", [.text(id.value)]
                ).first
                first = row?[0].text
                last = row?[1].text
            }
            computed.append(("Name", .text([first, last].compactMap { $0 }.joined(separator: " "))))
        }
        if values != nil, object.name == "Case" {
            let number = try StorageSchema.next("autonumber:Case", on: db).addingReportingOverflow(999).partialValue
            let text = String(number)
            computed.append(("CaseNumber", .text(String(repeating: "0", count: max(0, 8 - text.count)) + text)))
        }
        return computed
    }
}
