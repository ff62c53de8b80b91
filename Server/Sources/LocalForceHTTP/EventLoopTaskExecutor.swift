import NIOCore
import NIOPosix

/// Runs the server's request handling on NIO's event-loop threads, not on Swift's shared
/// cooperative pool.
///
/// The pool has one thread per core, and everything else in the process shares it. A test
/// process that embeds LocalForce blocks it easily: a synchronous SQLite call, a semaphore, a
/// few hundred tests starting at once on two cores (CI once saw a 400 answer take over 30 s).
/// The server must answer anyway, because the code waiting for that answer is often what holds
/// the pool. Its handlers await and never block, so they share the event loops with the socket
/// work those threads already do.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class EventLoopTaskExecutor: TaskExecutor {
    /// Over NIO's shared event loops, which the server's sockets use too.
    static let shared = EventLoopTaskExecutor(group: MultiThreadedEventLoopGroup.singleton)

    private let group: any EventLoopGroup

    private init(group: any EventLoopGroup) {
        self.group = group
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        group.next().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
