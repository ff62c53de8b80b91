public import FastJSON

extension FaultInjection {
    /// Makes the answers to the next `count` requests matching `predicate` go out with their
    /// JSON body as `transform` rewrites it: a broken or hostile server, for a client's tests
    /// (a record carrying fields no org sends, a field of the wrong type). The request's work is
    /// done as usual; an answer that is not JSON goes out as it is.
    public func scheduleTamper(
        count: Int = 1, matching predicate: @escaping @Sendable (APIRequest) -> Bool = { _ in true },
        _ transform: @escaping @Sendable (JSONValue) -> JSONValue
    ) {
        scheduledTampers.append((transform, predicate, count))
    }

    /// The rewrite for this request's answer, if one is scheduled.
    func tamper(for request: APIRequest) -> (@Sendable (JSONValue) -> JSONValue)? {
        guard let index = scheduledTampers.firstIndex(where: { $0.remaining > 0 && $0.matches(request) }) else { return nil }
        scheduledTampers[index].remaining -= 1
        let transform = scheduledTampers[index].transform
        scheduledTampers.removeAll { $0.remaining <= 0 }
        return transform
    }

    /// `answer` with its JSON body rewritten by `transform` (a streamed body read whole
    /// first); other answers as they are.
    static func tampered(_ answer: APIResponse, by transform: @Sendable (JSONValue) -> JSONValue) async -> APIResponse {
        var response = answer
        if let stream = response.bodyStream {
            guard let bytes = try? await stream.collect() else { return answer }
            response.body = bytes
            response.bodyStream = nil
        }
        guard let value = try? JSONValue(parsing: response.body) else { return response }
        response.body = transform(value).jsonBytes
        return response
    }
}
