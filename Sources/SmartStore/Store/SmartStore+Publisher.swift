#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

extension SmartStore {
    /// Runs a Smart SQL query and publishes its rows once (the SDK's `publisher(for:)`): Combine's
    /// `Future` on Apple platforms, OpenCombine's elsewhere. The query runs when the publisher is
    /// made, on the store's async path. For results that follow later changes, use
    /// ``observe(smartSql:pageSize:arguments:)``.
    ///
    /// ```swift
    /// cancellable = store.publisher(for: "select {Account:Name} from {Account}")
    ///     .receive(on: RunLoop.main)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { rows in show(rows) })
    /// ```
    public func publisher(for smartSql: String, pageSize: Int = 10_000) -> Future<[JSONValue], any Error> {
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
