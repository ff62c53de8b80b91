import NIOCore
import NIOPosix

/// Runs the server's request handling on NIO's event-loop threads, not on Swift's shared
/// cooperative pool (macOS 15, iOS 18 and later, and Linux; earlier Apple systems keep the pool).
///
/// The pool has one thread per core, and everything else in the process shares it. A test
/// process that embeds LocalForce blocks it easily: a synchronous SQLite call, a semaphore, a
/// few hundred tests starting at once on two cores (CI once saw a 400 answer take over 30 s).
/// The server must answer anyway, because the code waiting for that answer is often what holds
/// the pool. Its handlers await and never block, so they share the event loops with the socket
/// work those threads already do.
///
/// What is not a request's own task still needs the pool: a `Task.sleep` wakes up through it (a
/// fault's latency, a late commit, the slow-body watchdog), and the Bulk worker, the streaming
/// hub and long-poll timers are tasks of their own.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class EventLoopTaskExecutor: TaskExecutor {
    /// Over NIO's shared event loops, which the server's sockets use too.
    static let shared = EventLoopTaskExecutor(group: MultiThreadedEventLoopGroup.singleton)

    private let group: any EventLoopGroup
    private let loops: [any EventLoop]

    private init(group: any EventLoopGroup) {
        self.group = group
        loops = Array(group.makeIterator())
    }

    /// Runs `job` on the group's event loop it is enqueued from (a channel's read resumes its
    /// handler where the channel lives), or on the group's next one. Never on another group's
    /// loop, which its owner may shut down with the job still queued.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let current = MultiThreadedEventLoopGroup.currentEventLoop
        let loop = current.flatMap { current in loops.first { $0 === current } } ?? group.next()
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
