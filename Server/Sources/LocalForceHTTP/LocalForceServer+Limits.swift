extension LocalForceServer {
    /// What the HTTP layer accepts of a connection, before LocalForce sees a request. The body's
    /// size is ``LocalForce/LocalForce/maximumBodySize``'s.
    public struct Limits: Sendable {
        /// The largest request head (request line and headers), in bytes: 80 KiB. Larger heads
        /// (a long URL included) get `431 REQUEST_HEADER_FIELDS_TOO_LARGE`.
        public var maximumHeadSize: Int
        /// The most headers a request may have: 1000 (`431` beyond).
        public var maximumHeaderCount: Int
        /// The slowest a body may arrive: once ``bodyGracePeriod`` has passed, it must have
        /// delivered this many bytes for every second beyond it (8 KiB/s). A slower body is refused
        /// (`408 REQUEST_TIMEOUT`) and its reading stopped, so a client that stalls an upload loses
        /// its own request only.
        public var minimumBodyRate: Int
        /// How long a body may take before ``minimumBodyRate`` applies: 5 seconds.
        public var bodyGracePeriod: Duration

        /// Limits; see the properties for the defaults.
        public init(
            maximumHeadSize: Int = 80 * 1024, maximumHeaderCount: Int = 1000, minimumBodyRate: Int = 8 * 1024,
            bodyGracePeriod: Duration = .seconds(5)
        ) {
            self.maximumHeadSize = max(1024, maximumHeadSize)
            self.maximumHeaderCount = max(16, maximumHeaderCount)
            self.minimumBodyRate = max(1, minimumBodyRate)
            self.bodyGracePeriod = max(.zero, bodyGracePeriod)
        }
    }
}
