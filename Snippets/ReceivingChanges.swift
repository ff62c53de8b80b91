// snippet.hide
// The example of SalesforceStreaming's "Receiving changes without gaps" article.
import SalesforceREST
import SalesforceStreaming

func loadStoredReplayId() -> Int64? { nil }
func store(_ replayId: Int64?) {}
func apply(_ change: ChangeEvent?) throws {}
func readEverythingAgain() async throws {}

func follow(restClient: RestClient) async throws {
    // snippet.show
    let streaming = StreamingClient(client: restClient)
    var last: Int64? = loadStoredReplayId()
    while !Task.isCancelled {
        do {
            try await streaming.handshake()
            do {
                try await streaming.subscribe("/data/AccountChangeEvent", from: last.map(ReplayFrom.after) ?? .newEvents)
            } catch StreamingError.invalidReplayId {
                // Older than the retention window: read everything again, then follow new events.
                try await streaming.subscribe("/data/AccountChangeEvent", from: .newEvents)
                try await readEverythingAgain()
            }
            while true {
                for event in try await streaming.connect() {
                    try apply(event.change)
                    last = event.replayId
                    store(last)
                }
            }
        } catch StreamingError.unavailable {
            // No Streaming API on this server: poll.
            break
        } catch {
            try await Task.sleep(for: .seconds(2))  // network loss, a forgotten client: start over
        }
    }
    // snippet.hide
}
