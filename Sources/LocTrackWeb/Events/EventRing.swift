/// The latest events as sent (their bytes), numbered without gaps: what a client that
/// reconnects with `Last-Event-ID` is replayed from (docs/http.md, "No gaps").
///
/// Bounded: when full, each new event pushes out the oldest. The events it holds are
/// always the consecutive sequence numbers ``firstSequence`` through ``lastSequence``.
package struct EventRing: Sendable {
    package static let defaultCapacity = 8_192

    package let capacity: Int
    /// Storage in arrival order from ``start``, wrapping around.
    private var chunks: [[UInt8]] = []
    private var start = 0
    /// The number of the newest event; 0 before the first.
    private(set) package var lastSequence: UInt64 = 0

    package init(capacity: Int = EventRing.defaultCapacity) {
        precondition(capacity > 0, "an event ring holds at least one event")
        self.capacity = capacity
    }

    package var count: Int { chunks.count }

    /// The number of the oldest event held (``lastSequence`` + 1 when empty).
    package var firstSequence: UInt64 { lastSequence + 1 - UInt64(chunks.count) }

    /// Adds the next event; returns its number.
    @discardableResult
    package mutating func append(_ chunk: [UInt8]) -> UInt64 {
        if chunks.count < capacity {
            chunks.append(chunk)
        } else {
            chunks[start] = chunk
            start = (start + 1) % capacity
        }
        lastSequence += 1
        return lastSequence
    }

    /// Whether event `sequence` is still held.
    package func contains(_ sequence: UInt64) -> Bool {
        sequence >= firstSequence && sequence <= lastSequence
    }

    /// Event `sequence`'s bytes, or nil when it is not held (pushed out, or not yet sent).
    package subscript(sequence: UInt64) -> [UInt8]? {
        guard contains(sequence) else { return nil }
        return chunks[(start + Int(sequence - firstSequence)) % chunks.count]
    }
}
