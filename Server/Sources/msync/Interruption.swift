import Foundation
import NIOConcurrencyHelpers
import UnixSignals

/// SIGINT and SIGTERM for a command that can stop cleanly: the first one calls `stop` and is
/// remembered (the command ends with ``exitCode``); a second SIGINT ends the process at once.
final class Interruption: Sendable {
    private let received = NIOLockedValueBox<UnixSignal?>(nil)
    private let watcher = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Starts trapping both signals (their default action, ending the process, no longer applies).
    init(printer: ProgressPrinter, stop: @escaping @Sendable () async -> Void) async {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let received = self.received
        watcher.withLockedValue {
            $0 = Task {
                for await signal in signals {
                    let first = received.withLockedValue { received in
                        defer { received = received ?? signal }
                        return received == nil
                    }
                    if first {
                        await stop()
                    } else if signal == .sigint {
                        printer.endLine()
                        exit(130)
                    }
                }
            }
        }
    }

    /// The signal received, if any.
    var signal: UnixSignal? { received.withLockedValue { $0 } }

    /// What the command exits with after a signal: 128 plus its number (130 for SIGINT, 143
    /// for SIGTERM), as a shell reports a process the signal ended.
    var exitCode: Int32? {
        switch signal {
        case .sigint?: 130
        case .sigterm?: 143
        default: nil
        }
    }

    /// Stops trapping.
    func cancel() { watcher.withLockedValue { $0?.cancel() } }
}
