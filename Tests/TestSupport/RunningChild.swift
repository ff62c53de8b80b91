public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started and left running, its output discarded: the handle tests keep to
/// signal it and wait for it. On Linux it starts through `posix_spawn` (see `PosixSpawn`: not
/// Foundation's `Process.run`, which crashes now and then in a process with many descriptors).
public final class RunningChild: @unchecked Sendable {
    /// The child's pid (valid until ``waitUntilExit()`` has reaped it).
    public let processIdentifier: Int32
    private let lock = NSLock()
    private var status: Int32?
    #if !canImport(Glibc)
        private let process: Process
    #endif

    /// Starts `executable` with `arguments` (and `environment`, the test process's when nil).
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        #if canImport(Glibc)
            let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
            guard devNull >= 0 else { throw PosixSpawn.Failure(description: "cannot open /dev/null") }
            defer { close(devNull) }
            processIdentifier = try PosixSpawn.start(executable.path, arguments, environment: environment, output: devNull)
        #else
            process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let environment { process.environment = environment }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            processIdentifier = process.processIdentifier
        #endif
    }

    /// Whether the child has not ended yet. (An ended child is not reaped until
    /// ``waitUntilExit()``, so its pid stays its own and signalling it stays safe.)
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return false }
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
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return }
        #if canImport(Glibc)
            status = PosixSpawn.wait(processIdentifier)
        #else
            process.waitUntilExit()
            status = process.terminationStatus
        #endif
    }

    /// The exit code, or the signal that ended it (as Foundation's `terminationStatus`), after
    /// ``waitUntilExit()``; -1 before.
    public var terminationStatus: Int32 {
        lock.lock()
        defer { lock.unlock() }
        return status ?? -1
    }
}
