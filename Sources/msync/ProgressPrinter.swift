import Foundation
import MobileSync

/// Prints sync progress: a bar redrawn in place on a terminal, plain lines otherwise.
final class ProgressPrinter: @unchecked Sendable {
    private let lock = NSLock()
    private let isTerminal = isatty(STDOUT_FILENO) != 0
    private var lastLine = ""

    func update(_ label: String, _ state: SyncState) {
        lock.withLock {
            let total = state.totalSize < 0 ? "?" : String(state.totalSize)
            if isTerminal {
                let width = 30
                let filled = state.progress * width / 100
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                let line = "\r\(label) \(bar) \(state.progress)% of \(total) [\(state.status.rawValue)]"
                FileHandle.standardOutput.write(Data(line.utf8))
                if state.isStoppedOrFinished { FileHandle.standardOutput.write(Data("\n".utf8)) }
            } else {
                let line = "\(label): \(state.status.rawValue) \(state.progress)% of \(total)"
                guard line != lastLine else { return }
                lastLine = line
                print(line)
            }
        }
    }

    func line(_ text: String) {
        lock.withLock { print(text) }
    }
}
