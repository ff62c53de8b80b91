/// Creates LocalForce's tables: one per object with typed columns, plus counters.
enum StorageSchema {
    static func columnType(_ field: FieldDefinition, _ dialect: SQLDialect) -> String {
        switch field.type {
        case .boolean, .int, .datetime: dialect.integerType
        case .double, .currency, .percent: dialect.realType
        case .id, .reference, .date: dialect.textType
        default: dialect.caseInsensitiveTextType
        }
    }

    static func create(_ schema: Schema, on db: any SQLConnection) throws {
        let dialect = db.dialect
        for statement in dialect.setupStatements { try db.execute(statement, []) }
        try db.execute(
            "CREATE TABLE IF NOT EXISTS lf_counters (name \(dialect.textType) PRIMARY KEY, value \(dialect.integerType) NOT NULL)", [])
        try db.execute("INSERT INTO lf_counters (name, value) VALUES ('clock', 0) ON CONFLICT (name) DO NOTHING", [])
        let (text, integer) = (dialect.textType, dialect.integerType)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS lf_cursors (locator \(text) PRIMARY KEY, soql \(text) NOT NULL, version \(text) NOT NULL,
            include_deleted \(integer) NOT NULL, batch_size \(integer) NOT NULL, ids \(text) NOT NULL, last_used \(integer) NOT NULL)
            """, [])
        try db.execute("CREATE INDEX IF NOT EXISTS lf_cursors_last_used ON lf_cursors (last_used)", [])
        try EventLog.create(on: db)
        try BulkStore.create(on: db)
        for object in schema.objects {
            let table = SQLDialect.quote(object.name)
            var columns: [String] = []
            for field in object.fields {
                var column = SQLDialect.quote(field.name) + " " + columnType(field, dialect)
                if field.name == "Id" { column += " PRIMARY KEY" }
                if field.name == "IsDeleted" { column += " NOT NULL DEFAULT 0" }
                columns.append(column)
            }
            try db.execute("CREATE TABLE IF NOT EXISTS \(table) (\(columns.joined(separator: ", ")))", [])
            // Columns added to the schema since the table was created (schema files evolve).
            let existing = Set(try db.rows(dialect.tableColumnsSQL, [.text(object.name)]).compactMap { $0.first?.text?.lowercased() })
            for field in object.fields where !existing.isEmpty && !existing.contains(field.name.lowercased()) {
                try db.execute("ALTER TABLE \(table) ADD COLUMN \(SQLDialect.quote(field.name)) \(columnType(field, dialect))", [])
            }
            var indexed = ["LastModifiedDate", "SystemModstamp"]
            indexed += object.fields.filter {
                ($0.type == .reference && !SystemFields.names.contains($0.name)) || $0.externalId || $0.unique || $0.isNameField
            }
            .map(\.name).filter { $0 != "Id" }
            for name in indexed {
                try db.execute(
                    "CREATE INDEX IF NOT EXISTS \(SQLDialect.quote("\(object.name)_\(name)_idx")) ON \(table) (\(SQLDialect.quote(name)))",
                    [])
            }
            try createRecordNumbers(object, on: db)
        }
    }

    /// Where an object's record numbers (the sequence part of its ids) come from: a counter row,
    /// or with concurrent writers a sequence, which no writer holds until it commits. A
    /// database whose counter row predates the sequence starts the sequence after its value.
    private static func createRecordNumbers(_ object: ObjectDefinition, on db: any SQLConnection) throws {
        let (p, counter) = (db.dialect.placeholder, "seq:" + object.name)
        guard db.dialect.concurrentWriters else {
            try db.execute("INSERT INTO lf_counters (name, value) VALUES (\(p(1)), 0) ON CONFLICT (name) DO NOTHING", [.text(counter)])
            return
        }
        try db.execute("CREATE SEQUENCE IF NOT EXISTS \(sequenceName(object))", [])
        // Never backwards: another process may have taken values since the sequence was made.
        _ = try db.rows(
            """
            SELECT setval(\(p(1))::regclass, GREATEST(value, COALESCE(pg_sequence_last_value(\(p(1))::regclass), 0)))
            FROM lf_counters WHERE name = \(p(2)) AND value > 0
            """, [.text(sequenceName(object)), .text(counter)])
        try db.execute("DELETE FROM lf_counters WHERE name = \(p(1))", [.text(counter)])
    }

    /// An object's id sequence (with concurrent writers), quoted.
    private static func sequenceName(_ object: ObjectDefinition) -> String { SQLDialect.quote("lf_seq_" + object.name) }

    /// The next record number of `object`, for its next id.
    static func nextRecordNumber(_ object: ObjectDefinition, on db: any SQLConnection) throws -> Int64 {
        try recordNumbers(object, count: 1, on: db).first ?? 0
    }

    /// `count` record numbers of `object`, ascending: consecutive from the counter row (held
    /// until the caller commits), or taken from the sequence (not held; others may interleave).
    static func recordNumbers(_ object: ObjectDefinition, count: Int, on db: any SQLConnection) throws -> [Int64] {
        let count = max(1, count)
        guard db.dialect.concurrentWriters else {
            let last = try reserve("seq:" + object.name, count: count, on: db)
            let first = max(Int64.min + Int64(count), last) - Int64(count) + 1
            return Array(first...last)
        }
        let p = db.dialect.placeholder
        return try db.rows(
            "SELECT nextval(\(p(1))::regclass) FROM generate_series(1, \(p(2)))", [.text(sequenceName(object)), .integer(Int64(count))]
        ).compactMap { $0.first?.integer }.sorted()
    }

    /// Next value of a counter (ids, auto numbers). Increments inside the caller's transaction.
    static func next(_ counter: String, on db: any SQLConnection) throws -> Int64 {
        let value = try db.scalar(
            "UPDATE lf_counters SET value = value + 1 WHERE name = \(db.dialect.placeholder(1)) RETURNING value",
            [.text(counter)])
        if let value = value?.integer { return value }
        try db.execute("INSERT INTO lf_counters (name, value) VALUES (\(db.dialect.placeholder(1)), 1)", [.text(counter)])
        return 1
    }

    /// Reserves `count` values of a counter at once; returns the last (the first is `last - count + 1`).
    static func reserve(_ counter: String, count: Int, on db: any SQLConnection) throws -> Int64 {
        let p = db.dialect.placeholder
        if let last = try db.scalar(
            "UPDATE lf_counters SET value = value + \(p(1)) WHERE name = \(p(2)) RETURNING value",
            [.integer(Int64(count)), .text(counter)])?.integer
        {
            return last
        }
        try db.execute("INSERT INTO lf_counters (name, value) VALUES (\(p(1)), \(p(2)))", [.text(counter), .integer(Int64(count))])
        return Int64(count)
    }

    /// Reserves `count` consecutive write timestamps from the clock row (see
    /// ``tick(now:on:)``); returns the last.
    static func reserveTicks(now: Int64, count: Int, on db: any SQLConnection) throws -> Int64 {
        let p = db.dialect.placeholder
        let value = try db.scalar(
            "UPDATE lf_counters SET value = CASE WHEN value + 1 > \(p(1)) THEN value + \(p(2)) ELSE \(p(3)) END WHERE name = 'clock' RETURNING value",
            [.integer(now), .integer(Int64(count)), .integer(now + Int64(count) - 1)])
        return value?.integer ?? now + Int64(count) - 1
    }

    /// A write timestamp: now, or 1 ms after the previous write if the clock has not moved, so
    /// `LastModifiedDate` is strictly increasing and unique across writes (concurrent writers
    /// take a process's ``StampClock`` instead, holding no row).
    static func tick(now: Int64, on db: any SQLConnection) throws -> Int64 {
        let value = try db.scalar(
            "UPDATE lf_counters SET value = CASE WHEN value + 1 > \(db.dialect.placeholder(1)) THEN value + 1 ELSE \(db.dialect.placeholder(2)) END WHERE name = 'clock' RETURNING value",
            [.integer(now), .integer(now)])
        return value?.integer ?? now
    }
}
