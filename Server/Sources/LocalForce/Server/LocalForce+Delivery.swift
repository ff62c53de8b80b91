/// What fault injection made of a request whose work `Answer` stands for.
package enum FaultOutcome<Answer: Sendable>: Sendable {
    /// The request was handled (perhaps late, after a delay): send its answer.
    case handled(Answer)
    /// An injected error response, sent instead of handling the request.
    case injected(APIResponse)
    /// Lose the connection instead of answering; the request may or may not have been handled.
    case dropped
}

extension LocalForce {
    /// Runs `handle`, the request's work, inside the configured fault injection: observer
    /// calls, latency, injected errors, connections dropped before or after the work, and late
    /// commits (the work runs after a delay with the request's arrival as its clock), a
    /// gateway's 504 before or after the work. The
    /// versions list and anything outside the API are never faulted, so clients can always
    /// discover the server.
    package func injectingFaults<Answer: Sendable>(
        _ request: APIRequest, handle: () async throws -> Answer
    ) async rethrows -> FaultOutcome<Answer> {
        guard request.segments.count > 2 || request.segments.first == "api" else { return .handled(try await handle()) }
        // Read first: a late commit keeps the time its request arrived, before any observer
        // learns of it or any other request can be handled after it.
        let arrival = currentTime()
        let observer = await faults.observer
        await observer?(request, .received)
        let latency = await faults.latency
        if latency > .zero { try? await Task.sleep(for: latency) }
        switch await faults.fault(for: request) {
        case nil:
            let answer = try await handlingLate(request, arrivedAt: arrival, handle: handle)
            await observer?(request, .processed)
            return .handled(answer)
        case .dropAfter:
            _ = try await handlingLate(request, arrivedAt: arrival, handle: handle)
            return .dropped
        case .gatewayTimeoutAfter:
            _ = try await handlingLate(request, arrivedAt: arrival, handle: handle)
            return .injected(FaultInjection.gatewayTimeout)
        case .dropBefore:
            return .dropped
        case let kind?:
            return .injected(FaultInjection.response(kind) ?? .error(APIError(500, "UNKNOWN_EXCEPTION", "injected fault")))
        }
    }

    /// Runs the work, late when fault injection says so: its writes keep the time the request
    /// arrived, but happen (and it answers) only once it is released.
    private func handlingLate<Answer: Sendable>(
        _ request: APIRequest, arrivedAt arrival: Int64, handle: () async throws -> Answer
    ) async rethrows -> Answer {
        guard let release = await faults.lateCommit(for: request) else { return try await handle() }
        await release()
        return try await Self.$arrivalTime.withValue(arrival) { try await handle() }
    }
}
