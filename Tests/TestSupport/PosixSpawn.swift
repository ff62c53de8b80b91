#if canImport(Glibc)
    import Foundation
    import Glibc

    /// Starts processes with `posix_spawn` on Linux, closing every descriptor above standard
    /// error in the child (`closefrom`). Foundation's `Process.run` does the same by reading
    /// `/proc/self/fd`, and that read over-runs glibc's buffer and crashes now and then in a
    /// process holding many descriptors, as a test process does (swift-corelibs-foundation
    /// #5472, fixed after Swift 6.3.1).
    enum PosixSpawn {
        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its Swift
        /// module does not export.
        private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

        /// Starts `executable` with its standard output going to `output` and its standard
        /// error to `errors` (write descriptors; `errors` nil: to `output` too) and returns its
        /// pid.
        static func start(
            _ executable: String, _ arguments: [String], environment: [String: String]?, output: Int32, errors: Int32? = nil
        ) throws -> pid_t {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, errors ?? output, 2)
            guard let closeFrom = Self.addCloseFrom else { throw Failure(description: "this glibc has no posix_spawn closefrom") }
            _ = closeFrom(&actions, 3)
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            let variables =
                environment.map { $0.map { "\($0.key)=\($0.value)" } }
                ?? ProcessInfo.processInfo.environment.map {
                    "\($0.key)=\($0.value)"
                }
            let envp = variables.map { strdup($0) } + [nil]
            defer { for pointer in envp { free(pointer) } }
            // As Foundation's Process does: no signal blocked and every signal at its default in
            // the child. Without this it inherits the spawning thread's mask, and a Dispatch
            // worker blocks the signals a test sends it (SIGINT, SIGTERM).
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var pid: pid_t = 0
            let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            guard result == 0 else { throw Failure(description: "posix_spawn \(executable): error \(result)") }
            return pid
        }

        /// Waits for `pid` and returns what Foundation's `terminationStatus` would: the exit
        /// code, or the signal that ended it. `beforeReaping` runs once it has ended but before
        /// its pid is released (so that nothing signals another process that got the pid).
        static func wait(_ pid: pid_t, beforeReaping: () -> Void = {}) -> Int32 {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            beforeReaping()
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : signal
        }
    }
#endif
