import NIOConcurrencyHelpers

/// A body read or written a piece at a time rather than whole: the Bulk APIs' uploads and
/// results, which may be larger than memory should hold.
///
/// The stream is pulled by one reader: each call of ``next()`` gives the next piece, nil at
/// the end.
public struct BodyStream: Sendable {
    private let produce: @Sendable () async throws -> [UInt8]?

    /// A stream whose pieces come from `produce`, called until it returns nil (by one reader,
    /// one call at a time).
    public init(_ produce: @escaping @Sendable () async throws -> [UInt8]?) {
        self.produce = produce
    }

    /// A stream of one piece.
    init(bytes: [UInt8]) {
        let box = OnePiece(bytes)
        self.init { box.take() }
    }

    /// The next piece, or nil at the end.
    public func next() async throws -> [UInt8]? { try await produce() }

    /// Every piece, joined (for callers that want the whole body, such as in-process tests).
    public func collect() async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let piece = try await next() { bytes += piece }
        return bytes
    }
}

/// A piece handed out once.
private final class OnePiece: Sendable {
    private let piece: NIOLockedValueBox<[UInt8]?>

    init(_ bytes: [UInt8]) { piece = NIOLockedValueBox(bytes) }

    func take() -> [UInt8]? {
        piece.withLockedValue { value in
            defer { value = nil }
            return value
        }
    }
}
