/// The org's events, kept in its database beside the records: a table ordered by replay id.
///
/// Replay ids come from a counter row updated inside the writing transaction. That row stays
/// locked until the transaction ends, so ids are handed out in commit order, on SQLite (one
/// writer) as on PostgreSQL (concurrent writers queue on the row): a reader that sees id `n`
/// sees every committed id below it, and a subscriber's position is just the last id it got.
/// A rolled-back transaction gives its ids back with the counter. A transaction takes the
/// counter once, for all its change events, at its end (``ChangeCapture/flush(on:)``):
/// writers queue on the row only from there to their commit — except after publishing a
/// platform event, which takes its id at once.
enum EventLog {
    /// The counter of replay ids: its committed value is the newest event's id.
    static let replayCounter = "events:replay"
    /// The newest replay id retention removed: replay from below it is refused.
    static let purgedCounter = "events:purged"
    /// The largest event body kept (Salesforce's maximum event message size, 1 MB): a larger
    /// change event becomes a gap event, a larger PushTopic event carries the record's Id
    /// alone, and a larger platform event is refused.
    static let maximumEventBytes = 1 << 20

    /// One stored event.
    struct Event {
        var replayId: Int64
        var channel: String
        /// The event's `data` object up to its `event` member's last field, to which delivery
        /// appends `"replayId":n}}` (the id is known only once the row is written).
        var body: String
    }

    /// Creates the table and its counters.
    static func create(on db: any SQLConnection) throws {
        let dialect = db.dialect
        let (text, integer) = (dialect.textType, dialect.integerType)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS lf_events (replay_id \(integer) PRIMARY KEY, channel \(text) NOT NULL,
            kind \(text) NOT NULL, created \(integer) NOT NULL, body \(text) NOT NULL)
            """, [])
        try db.execute("CREATE INDEX IF NOT EXISTS lf_events_channel ON lf_events (channel, replay_id)", [])
        try db.execute("CREATE INDEX IF NOT EXISTS lf_events_kind ON lf_events (kind, replay_id)", [])
        try db.execute("CREATE INDEX IF NOT EXISTS lf_events_created ON lf_events (created)", [])
        for counter in [replayCounter, purgedCounter] {
            try db.execute(
                "INSERT INTO lf_counters (name, value) VALUES (\(dialect.placeholder(1)), 0) ON CONFLICT (name) DO NOTHING",
                [.text(counter)])
        }
    }

    /// The next replay id, taken in the caller's transaction (it locks the counter until the end).
    static func nextReplayId(on db: any SQLConnection) throws -> Int64 {
        try StorageSchema.next(replayCounter, on: db)
    }

    /// Writes events of `kind` under replay ids taken in the same transaction, 100 rows a statement.
    static func insert(_ events: [(event: Event, kind: StreamingChannel.Kind)], created: Int64, on db: any SQLConnection) throws {
        for start in stride(from: 0, to: events.count, by: 100) {
            let arguments = SQLArguments(dialect: db.dialect)
            let values = events[start..<min(events.count, start + 100)].map { event, kind in
                let columns = [
                    SQLValue.integer(event.replayId), .text(event.channel), .text(kind.rawValue), .integer(created), .text(event.body),
                ]
                return "(" + columns.map { arguments.bind($0) }.joined(separator: ", ") + ")"
            }
            try db.execute(
                "INSERT INTO lf_events (replay_id, channel, kind, created, body) VALUES " + values.joined(separator: ", "), arguments.values
            )
        }
    }

    /// The replay ids a subscription may start after: from the newest one retention removed
    /// to the newest one committed.
    static func bounds(on db: any SQLConnection) throws -> ClosedRange<Int64> {
        let p = db.dialect.placeholder
        let rows = try db.rows(
            "SELECT name, value FROM lf_counters WHERE name IN (\(p(1)), \(p(2)))", [.text(replayCounter), .text(purgedCounter)])
        var latest: Int64 = 0
        var purged: Int64 = 0
        for row in rows where row.count == 2 {
            if row[0].text == replayCounter { latest = row[1].integer ?? 0 } else { purged = row[1].integer ?? 0 }
        }
        return min(purged, latest)...latest
    }

    /// Events of any of `channels` after `cursor`, oldest first, at most `limit`: one query
    /// for all of a client's subscriptions.
    static func events(_ channels: [StreamingChannel], after cursor: Int64, limit: Int, on db: any SQLConnection) throws -> [Event] {
        guard !channels.isEmpty else { return [] }
        let arguments = SQLArguments(dialect: db.dialect)
        var filters: [String] = []
        if channels.contains(where: \.isAllChangeEvents) {
            filters.append("kind = \(arguments.bind(.text(StreamingChannel.Kind.changeEvent.rawValue)))")
        }
        let named = channels.filter { !$0.isAllChangeEvents }
        if !named.isEmpty {
            filters.append("channel IN (\(named.map { arguments.bind(.text($0.name)) }.joined(separator: ", ")))")
        }
        let after = arguments.bind(.integer(cursor))
        return try db.rows(
            "SELECT replay_id, channel, body FROM lf_events WHERE (\(filters.joined(separator: " OR "))) AND replay_id > \(after) ORDER BY replay_id LIMIT \(max(1, limit))",
            arguments.values
        ).compactMap { row in
            guard row.count == 3, let id = row[0].integer, let channel = row[1].text, let body = row[2].text else { return nil }
            return Event(replayId: id, channel: channel, body: body)
        }
    }

    /// Removes events older than `maximumAge` ms, beyond the newest `maximumCount`, or beyond
    /// the newest whose bodies hold `maximumBytes` characters, and remembers the newest id
    /// removed. Returns how many went.
    @discardableResult
    static func purge(now: Int64, maximumAge: Int64, maximumCount: Int, maximumBytes: Int, on db: any SQLConnection) throws -> Int {
        let p = db.dialect.placeholder
        let bounds = try bounds(on: db)
        var cutoff = bounds.upperBound - Int64(maximumCount)
        let (ageLimit, overflow) = now.subtractingReportingOverflow(maximumAge)
        if !overflow,
            let aged = try db.scalar("SELECT max(replay_id) FROM lf_events WHERE created < \(p(1))", [.integer(ageLimit)])?.integer
        {
            cutoff = max(cutoff, aged)
        }
        // By size: the newest events whose bodies (in characters) fit are kept; only those the
        // count and age keep are read (a window function: SQLite 3.25 or later, PostgreSQL).
        let oversize = """
            SELECT max(replay_id) FROM (SELECT replay_id, sum(length(body)) OVER (ORDER BY replay_id DESC) AS kept FROM lf_events \
            WHERE replay_id > \(p(1))) AS newest WHERE kept > \(p(2))
            """
        if let over = try db.scalar(oversize, [.integer(cutoff), .integer(Int64(maximumBytes))])?.integer { cutoff = max(cutoff, over) }
        guard cutoff > bounds.lowerBound else { return 0 }
        let removed = try db.execute("DELETE FROM lf_events WHERE replay_id <= \(p(1))", [.integer(cutoff)])
        // Never backwards: two processes may purge at once, and the lower cutoff may commit last.
        try db.execute(
            "UPDATE lf_counters SET value = CASE WHEN value < \(p(1)) THEN \(p(2)) ELSE value END WHERE name = \(p(3))",
            [.integer(cutoff), .integer(cutoff), .text(purgedCounter)])
        return removed
    }
}
