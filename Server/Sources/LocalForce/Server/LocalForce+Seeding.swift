public import FastJSON

extension LocalForce {
    /// Creates records directly (no HTTP), in transactions of 1000, with the same validation and
    /// system fields as the API. For seeding orgs in demos, tests and benchmarks.
    ///
    /// - Returns: the new ids, in order.
    public func insert(_ records: [[String: JSONValue]], of objectType: String) async throws -> [String] {
        guard let object = schema.object(named: objectType) else { throw APIError.notFound }
        let (schema, userId, clock) = (self.schema, self.userId, requestClock())
        let source = captureSource(version: nil, userId: userId, clock: clock)
        var ids: [String] = []
        for start in stride(from: 0, to: records.count, by: 1000) {
            let slice = Array(records[start..<min(records.count, start + 1000)])
            ids += try await database.write(capturing: source) { db, capture in
                let writer = RecordWriter(schema: schema, db: db, userId: userId, clock: clock, capture: capture)
                return try slice.map { try writer.create(object, body: $0).value }
            }
            streaming.afterWrite(now: currentTime())
        }
        return ids
    }
}
