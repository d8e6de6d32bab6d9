/// One client's server-sent events: the bytes to write, in order, already encoded
/// (`id:`/`event:`/`data:` lines and keep-alive comments). It ends when the server stops
/// or when the client is cut off for not reading (docs/http.md, "Slow clients").
///
/// The server writes each chunk as it comes and calls ``cancel()`` once the client is gone
/// or the stream ended, so the broadcaster forgets the client at once.
public struct EventStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = Never

    private let nextChunk: @Sendable () async -> [UInt8]?
    private let onCancel: @Sendable () -> Void

    /// `next` waits for the client's next chunk (nil: the stream ended); `cancel` detaches
    /// the client from its broadcaster and ends any `next` waiting.
    public init(next: @escaping @Sendable () async -> [UInt8]?, cancel: @escaping @Sendable () -> Void) {
        self.nextChunk = next
        self.onCancel = cancel
    }

    public func cancel() { onCancel() }

    public func makeAsyncIterator() -> Iterator { Iterator(nextChunk: nextChunk) }

    public struct Iterator: AsyncIteratorProtocol {
        let nextChunk: @Sendable () async -> [UInt8]?

        public mutating func next() async -> [UInt8]? { await nextChunk() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> [UInt8]? { await nextChunk() }
    }
}
