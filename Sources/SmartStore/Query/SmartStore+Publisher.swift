public import FastJSON
import Locking

#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

extension SmartStore {
    /// Runs a Smart SQL query and publishes its first page of rows (at most `pageSize`) once, as
    /// `JSONValue`s: Combine's `Future` on Apple platforms, OpenCombine's elsewhere. The query
    /// runs when the publisher is made, on the store's async path. The SDK's shape, all rows as
    /// Foundation values, is MobileSyncSDKCompat's `publisher(for:)`. For results that follow later changes, use
    /// ``observe(smartSql:pageSize:arguments:)``.
    ///
    /// <!-- snippet: Snippets/SmartStoreReference.swift#publisher -->
    /// ```swift
    /// cancellable = store.publisher(for: "select {Account:Name} from {Account}", pageSize: 1_000)
    ///     .receive(on: RunLoop.main)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { rows in show(rows) })
    /// ```
    public func publisher(for smartSql: String, pageSize: Int) -> Future<[JSONValue], any Error> {
        Future { promise in
            let promise = SendablePromise(promise)
            Task {
                do {
                    promise.fulfill(.success(try await self.query(.smart(smartSql, pageSize: pageSize))))
                } catch {
                    promise.fulfill(.failure(error))
                }
            }
        }
    }
}

extension SmartStore {
    /// A live Smart SQL query as a publisher (``observe(smartSql:pageSize:arguments:)``): its
    /// first `pageSize` rows when subscribed, then again after each change, another process's
    /// commits included. Combine's on Apple platforms, OpenCombine's elsewhere. It fails with
    /// the query's error; cancelling the subscription ends the query.
    ///
    /// <!-- snippet: Snippets/SmartStoreReference.swift#observePublisher -->
    /// ```swift
    /// cancellable = store.observePublisher(smartSql: "select {accounts:Name} from {accounts}", pageSize: 100)
    ///     .receive(on: RunLoop.main)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { rows in show(rows) })
    /// ```
    public func observePublisher(smartSql: String, pageSize: Int, arguments: [JSONValue]? = nil)
        -> AnyPublisher<[JSONValue], any Error>
    {
        Deferred {
            // Combine's and OpenCombine's subjects serialise what is sent to them, from any thread.
            nonisolated(unsafe) let subject = PassthroughSubject<[JSONValue], any Error>()
            let task = Locked<Task<Void, Never>?>(nil)
            return subject.handleEvents(
                receiveSubscription: { _ in
                    let rows = self.observe(smartSql: smartSql, pageSize: pageSize, arguments: arguments)
                    task.withLock {
                        $0 = Task {
                            do {
                                for try await page in rows { subject.send(page) }
                                subject.send(completion: .finished)
                            } catch {
                                subject.send(completion: .failure(error))
                            }
                        }
                    }
                },
                receiveCancel: { task.withLock { $0?.cancel() } })
        }.eraseToAnyPublisher()
    }
}

/// A `Future`'s promise, handed to the task that fulfills it. Combine's and OpenCombine's
/// `Future` serialise their promise, which may be called from any thread, once.
package struct SendablePromise<Output, Failure: Error>: @unchecked Sendable {
    private let promise: (Result<Output, Failure>) -> Void

    /// Wraps `promise`.
    package init(_ promise: @escaping (Result<Output, Failure>) -> Void) {
        self.promise = promise
    }

    /// Fulfills the future.
    package func fulfill(_ result: Result<Output, Failure>) { promise(result) }
}
