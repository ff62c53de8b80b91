/// What a transport does with a request once ``LocalForce`` has dealt with it.
package enum Delivery: Sendable {
    /// Send this answer.
    case response(APIResponse)
    /// Lose the connection instead of answering (fault injection): the client cannot tell
    /// whether the request was applied.
    case dropConnection
}

extension LocalForce {
    /// Handles a request as a transport serves it: ``handle(_:)`` wrapped in the configured
    /// fault injection (latency, errors, dropped connections before or after the work, late
    /// commits). The versions list and anything outside the API are never faulted, so clients
    /// can always discover the server.
    package func deliver(_ request: APIRequest) async -> Delivery {
        guard request.segments.count > 2 || request.segments.first == "api" else { return .response(await handle(request)) }
        let observer = await faults.observer
        await observer?(request, .received)
        let latency = await faults.latency
        if latency > .zero { try? await Task.sleep(for: latency) }
        switch await faults.fault(for: request) {
        case nil:
            let answer = await handleLate(request)
            await observer?(request, .processed)
            return .response(answer)
        case .dropAfter:
            _ = await handleLate(request)
            return .dropConnection
        case .dropBefore:
            return .dropConnection
        case let kind?:
            return .response(FaultInjection.response(kind) ?? .error(APIError(500, "UNKNOWN_EXCEPTION", "injected fault")))
        }
    }

    /// Handles the request, late when fault injection says so: its writes keep the time it
    /// arrived, but happen (and it answers) only after the delay.
    private func handleLate(_ request: APIRequest) async -> APIResponse {
        guard let delay = await faults.lateCommit(for: request) else { return await handle(request) }
        let arrival = currentTime()
        try? await Task.sleep(for: delay)
        return await Self.$arrivalTime.withValue(arrival) { await handle(request) }
    }
}
