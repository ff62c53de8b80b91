public import Foundation

#if canImport(TestLocking)
    import TestLocking
#else
    import Locking
#endif

/// Runs a child process and collects its output on a Dispatch thread: blocking reads must not
/// occupy Swift's cooperative pool, which the rest of the test process shares (and the
/// in-process org's fault delays and timers need).
public enum ChildProcess {
    /// Runs `executable` to its end and returns its exit status and output. With `timeout`, a
    /// process still running then is terminated (its status says so), so a hang fails a test
    /// instead of the whole run.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration? = nil
    ) async throws -> (status: Int32, output: String) {
        #if canImport(Glibc)
            // posix_spawn, not Foundation's Process: see PosixSpawn.
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw PosixSpawn.Failure(description: "pipe failed") }
            let (reading, writing) = (ends[0], ends[1])
            let pid: pid_t
            do {
                pid = try PosixSpawn.start(executable.path, arguments, environment: environment, output: writing)
            } catch {
                close(reading)
                close(writing)
                throw error
            }
            close(writing)
            // The timer signals the child only while it has not been reaped (its pid is still its own).
            let reaped = Locked(false)
            if let timeout {
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    reaped.withLock { if !$0 { kill(pid, SIGTERM) } }
                }
            }
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    let handle = FileHandle(fileDescriptor: reading, closeOnDealloc: true)
                    let data = handle.readDataToEndOfFile()
                    let status = PosixSpawn.wait(pid) { reaped.withLock { $0 = true } }
                    continuation.resume(returning: (status, String(decoding: data, as: UTF8.self)))
                }
            }
        #else
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let environment { process.environment = environment }
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let running = RunningProcess(process: process, pipe: pipe)
            if let timeout {
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    if running.process.isRunning { running.process.terminate() }
                }
            }
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    let data = running.pipe.fileHandleForReading.readDataToEndOfFile()
                    running.process.waitUntilExit()
                    continuation.resume(returning: (running.process.terminationStatus, String(decoding: data, as: UTF8.self)))
                }
            }
        #endif
    }

    /// Reads from a pipe until `done` says the text so far is enough (on a Dispatch thread).
    public static func read(_ handle: FileHandle, until done: @escaping @Sendable (String) -> Bool) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var text = ""
                while !done(text) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                continuation.resume(returning: text)
            }
        }
    }
}

/// A started child process and its output pipe, handed to the threads that wait for it, time
/// it out or stop it. Foundation marks `Process` and `Pipe` `Sendable` on Linux and only in
/// recent Apple SDKs; what those threads call (`isRunning`, `terminate`, `waitUntilExit`,
/// `terminationStatus`, reading the pipe) is safe from any thread.
public struct RunningProcess: @unchecked Sendable {
    /// The process, already started.
    public let process: Process
    /// Its output.
    public let pipe: Pipe

    /// A started process and its pipe.
    public init(process: Process, pipe: Pipe) {
        self.process = process
        self.pipe = pipe
    }
}

/// Another process holding POSIX byte-range locks (`fcntl.lockf` in Python) on a file until
/// ``release()`` or until it is killed: what a store's lock file sees when another process
/// syncs it.
public final class LockHolder: Sendable {
    /// The holder, with the pipe its standard input reads (closing it ends the holder).
    private let running: RunningProcess
    private var process: Process { running.process }
    private var input: Pipe { running.pipe }

    /// Starts the holder and returns once it holds every byte at `offsets` of `path`; throws
    /// when it could not take them (another holder has one).
    public init(path: String, offsets: [Int64]) async throws {
        let script = """
            import fcntl, os, sys
            fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
            for offset in sys.argv[2:]:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, int(offset))
            print("held", flush=True)
            sys.stdin.read()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path] + offsets.map(String.init)
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        running = RunningProcess(process: process, pipe: input)
        try process.run()
        let said = await ChildProcess.read(output.fileHandleForReading) { $0.contains("held") || $0.contains("Error") }
        guard said.contains("held") else {
            process.waitUntilExit()
            throw LockHolderError(output: said)
        }
    }

    /// The holder's output when it could not take its locks.
    public struct LockHolderError: Error {
        /// What the holder printed.
        public let output: String
    }

    /// Ends the holder (its locks go with it) and waits for it to exit.
    public func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Kills the holder (SIGKILL) and waits for it to exit: the operating system releases its locks.
    public func kill() {
        killNow(process.processIdentifier)
        process.waitUntilExit()
    }
}

/// Sends SIGKILL to `pid`.
public func killNow(_ pid: Int32) {
    kill(pid, SIGKILL)
}
