public import Foundation

#if canImport(Glibc)
    import Glibc
#endif
// The package's `Locked`: `Locking` in the root package, linked into the server's as `TestLocking`.
#if canImport(TestLocking)
    import TestLocking
#else
    import Locking
#endif

/// A child process started and left running: the handle tests keep to read its output, signal
/// it and wait for it. On Linux it starts through `posix_spawn` (see `PosixSpawn`: not
/// Foundation's `Process.run`, which crashes now and then in a process with many descriptors).
/// `@unchecked` for the `Process` on Apple platforms, which older SDKs do not mark `Sendable`;
/// what changes is under `status`'s lock.
public final class RunningChild: @unchecked Sendable {
    /// What becomes of the child's standard output and error.
    public enum Output: Sendable {
        /// Both discarded.
        case discarded
        /// Standard output to ``output``, standard error discarded.
        case standardOutput
        /// Both to ``output``.
        case both
    }

    /// The child's pid (valid until ``waitUntilExit()`` has reaped it).
    public let processIdentifier: Int32
    /// The read end of the child's output, unless it is discarded.
    public let output: FileHandle?
    /// The exit status once reaped; reaping and signalling happen under its lock.
    private let status = Locked<Int32?>(nil)
    #if !canImport(Glibc)
        private let process: Process
    #endif

    /// Starts `executable` with `arguments` (and `environment`, the test process's when nil).
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, output mode: Output = .discarded) throws {
        #if canImport(Glibc)
            let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
            guard devNull >= 0 else { throw PosixSpawn.Failure(description: "cannot open /dev/null") }
            defer { close(devNull) }
            var ends: [Int32] = [-1, -1]
            if mode != .discarded {
                guard pipe(&ends) == 0 else { throw PosixSpawn.Failure(description: "pipe failed") }
            }
            let (reading, writing) = (ends[0], ends[1])
            do {
                processIdentifier = try PosixSpawn.start(
                    executable.path, arguments, environment: environment, output: mode == .discarded ? devNull : writing,
                    errors: mode == .both ? writing : devNull)
            } catch {
                if reading >= 0 { close(reading) }
                if writing >= 0 { close(writing) }
                throw error
            }
            if writing >= 0 { close(writing) }
            output = reading >= 0 ? FileHandle(fileDescriptor: reading, closeOnDealloc: true) : nil
        #else
            process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let environment { process.environment = environment }
            let pipe = Pipe()
            process.standardOutput = mode == .discarded ? FileHandle.nullDevice : pipe
            process.standardError = mode == .both ? pipe : FileHandle.nullDevice
            try process.run()
            processIdentifier = process.processIdentifier
            output = mode == .discarded ? nil : pipe.fileHandleForReading
        #endif
    }

    /// Sends SIGTERM, unless the child has ended.
    public func terminate() { send(SIGTERM) }

    /// Sends SIGINT (Ctrl-C), unless the child has ended.
    public func interrupt() { send(SIGINT) }

    /// Sends SIGKILL, unless the child has ended.
    public func kill() { send(SIGKILL) }

    /// Sends `signal` unless the child has ended, checked and sent under the lock that reaping
    /// takes, so the signal never reaches another process that got the pid.
    private func send(_ signal: Int32) {
        status.withLock { status in
            guard running(reaped: status) else { return }
            signalProcess(processIdentifier, signal)
        }
    }

    /// Whether the child has not ended yet. (An ended child is not reaped until
    /// ``waitUntilExit()``, so its pid stays its own and signalling it stays safe.)
    public var isRunning: Bool {
        status.withLock { running(reaped: $0) }
    }

    /// Whether the child has not ended, `reaped` being its status once reaped (read under the lock).
    private func running(reaped: Int32?) -> Bool {
        guard reaped == nil else { return false }
        #if canImport(Glibc)
            var info = siginfo_t()
            guard waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return false }
            return info.si_signo == 0 // zeroed: no state change to report
        #else
            return process.isRunning
        #endif
    }

    /// Blocks until the child has ended (reaping it), once.
    public func waitUntilExit() {
        status.withLock { status in
            guard status == nil else { return }
            #if canImport(Glibc)
                status = PosixSpawn.wait(processIdentifier)
            #else
                process.waitUntilExit()
                status = process.terminationStatus
            #endif
        }
    }

    /// Sends SIGTERM and reaps the child on a Dispatch thread, without waiting (for a `defer`).
    public func end() {
        terminate()
        DispatchQueue.global().async { self.waitUntilExit() }
    }

    /// Waits for the child to end without holding a thread of Swift's cooperative pool: the
    /// blocking wait runs on a Dispatch thread, so that the rest of the process (a server's
    /// fault delays and timers among it) goes on while the child finishes.
    public func exited() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.waitUntilExit()
                continuation.resume()
            }
        }
    }

    /// The exit code, or the signal that ended it (as Foundation's `terminationStatus`), after
    /// ``waitUntilExit()``; -1 before.
    public var terminationStatus: Int32 {
        status.current ?? -1
    }
}

/// The C library's `kill`, out of reach of ``RunningChild/kill()`` inside the class.
private func signalProcess(_ pid: Int32, _ signal: Int32) {
    _ = kill(pid, signal)
}
