import Foundation
import MobileSync
import NIOConcurrencyHelpers

/// Prints sync progress: a bar redrawn in place on a terminal, plain lines otherwise, each
/// written at once (not buffered).
final class ProgressPrinter: Sendable {
    private let isTerminal = isatty(STDOUT_FILENO) != 0
    /// The last plain line printed; its lock also keeps lines from different tasks whole.
    private let lastLine = NIOLockedValueBox("")
    /// Whether a bar is drawn on the terminal's current line (no newline after it yet).
    private let barOpen = NIOLockedValueBox(false)

    /// Prints the state of the sync `label`; a WAITING one says what it waits for (`waiting`),
    /// not the previous run's progress.
    func update(_ label: String, _ state: SyncState, waiting: String? = nil) {
        if state.status == .waiting, let waiting {
            line("\(label): WAITING: \(waiting)")
            return
        }
        lastLine.withLockedValue { lastLine in
            let total = state.totalSize < 0 ? "?" : String(state.totalSize)
            if isTerminal {
                let width = 30
                let filled = state.progress * width / 100
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                // Back to the line's start and erase it (ESC [2K): a shorter line leaves nothing behind.
                let line = "\r\u{1B}[2K\(label) \(bar) \(state.progress)% of \(total) [\(state.status.rawValue)]"
                FileHandle.standardOutput.write(Data(line.utf8))
                barOpen.withLockedValue { $0 = !state.isStoppedOrFinished }
                if state.isStoppedOrFinished { FileHandle.standardOutput.write(Data("\n".utf8)) }
            } else {
                let line = "\(label): \(state.status.rawValue) \(state.progress)% of \(total)"
                guard line != lastLine else { return }
                lastLine = line
                // Unbuffered: a pipe (a log, a supervisor) sees each line when it happens.
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
        }
    }

    func line(_ text: String) {
        lastLine.withLockedValue { _ in
            endLine()
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }

    /// Ends a bar left on the terminal's current line, so what follows starts on a line of its own.
    func endLine() {
        barOpen.withLockedValue { open in
            if open { FileHandle.standardOutput.write(Data("\n".utf8)) }
            open = false
        }
    }
}
