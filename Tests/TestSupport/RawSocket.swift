import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// HTTP over a plain socket, for requests URLSession cannot send (a body shorter than its
/// Content-Length, a body sent a byte at a time, a head without Host). Reads block, so they run
/// on a dispatch queue, never on a thread of Swift's cooperative pool, which the rest of the
/// suite shares.
public enum RawSocket {
    /// A socket call that failed.
    public struct Failure: Error, CustomStringConvertible {
        /// Which call.
        public let description: String
    }

    /// Sends `text` on a new connection (closing its sending side with `halfClose`) and returns
    /// what arrives until the server closes it.
    public static func exchange(port: Int, _ text: String, halfClose: Bool) async throws -> String {
        let handle = try connected(port: port)
        defer { close(handle) }
        try write(handle, Array(text.utf8))
        if halfClose { shutdown(handle, Int32(SHUT_WR)) }
        return await receive(handle)
    }

    /// A connected socket (the caller closes it), whose reads give up after `timeout` seconds.
    ///
    /// The default bounds a hang, not a latency: in the full suite on two cores, hundreds of tests
    /// share two cores (CI once saw a 400 answer take over 30 s, when the server's handlers still
    /// ran on the cooperative pool those tests held).
    public static func connected(port: Int, timeout: Int = 120) throws -> Int32 {
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue) // an enum case in Glibc
        #else
            let stream = SOCK_STREAM // an Int32 in Darwin and Musl
        #endif
        let handle = socket(AF_INET, stream, 0)
        guard handle >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(handle, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(handle)
            throw Failure(description: "connect failed")
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(handle, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return handle
    }

    /// Sends all of `bytes`.
    public static func write(_ handle: Int32, _ bytes: [UInt8]) throws {
        guard send(handle, bytes, bytes.count, 0) == bytes.count else { throw Failure(description: "send failed") }
    }

    /// What arrives until the server closes the connection or the read times out (which the
    /// text then ends by saying, so that a failure tells a silent server from a slow one).
    public static func receive(_ handle: Int32) async -> String {
        let (bytes, timedOut) = await read(handle)
        return String(decoding: bytes, as: UTF8.self) + (timedOut ? "\n[the read timed out: the server neither answered nor closed]" : "")
    }

    /// The same, as bytes (a compressed body is not text).
    public static func receiveBytes(_ handle: Int32) async -> [UInt8] {
        await read(handle).bytes
    }

    /// What has arrived on the connection so far, without waiting for more.
    public static func arrived(_ handle: Int32) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(handle, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    /// The whole exchange on the calling thread (for a test that holds the cooperative pool).
    public static func exchangeBlocking(port: Int, _ text: String) -> String {
        guard let handle = try? connected(port: port) else { return "[connect failed]" }
        defer { close(handle) }
        guard (try? write(handle, Array(text.utf8))) != nil else { return "[send failed]" }
        return String(decoding: readBlocking(handle).bytes, as: UTF8.self)
    }

    private static func read(_ handle: Int32) async -> (bytes: [UInt8], timedOut: Bool) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: readBlocking(handle)) }
        }
    }

    private static func readBlocking(_ handle: Int32) -> (bytes: [UInt8], timedOut: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(handle, &buffer, buffer.count, 0)
            if count < 0 { return (received, errno == EAGAIN || errno == EWOULDBLOCK) }
            if count == 0 { return (received, false) }
            received += buffer[0..<count]
        }
    }
}
