/// Hands every batch to every ``Sink``, in the order the sinks were given, and keeps the
/// count that `monitor run`'s at-least-once delivery needs: how many events every sink has
/// settled.
///
/// No sink waits for another: with company, each sink is handed the batch with
/// ``Sink/take(_:)``, which never waits (each has its own buffer and drops by its own
/// policy); only a sink that is alone may wait, bounded, for room
/// (``Sink/takeWaitingForRoom(_:)``), since there is no other sink to delay. A sink that
/// refuses (its destination is gone) still lets the others take the batch, and
/// ``finish(promptly:)`` finishes them all, so that each writes out what it has before
/// the command ends with the failed one's exit code.
public struct SinkFanOut: Sendable {
    public let sinks: [any Sink]
    /// Events handed to every sink so far (``SinkBatch/eventCount``).
    public private(set) var eventsGiven = 0
    /// ``waitsForRoom(sinkCount:)`` for these sinks.
    private let soleSinkWaits: Bool

    public init(_ sinks: [any Sink]) {
        self.sinks = sinks
        soleSinkWaits = Self.waitsForRoom(sinkCount: sinks.count)
    }

    /// Whether the sinks are handed each batch with ``Sink/takeWaitingForRoom(_:)``: only a
    /// sink that is alone, since there is no other to delay. The one rule, which the sinks'
    /// start (``SinkPipeline``) also tells each sink, so that it sizes its buffer for it.
    public static func waitsForRoom(sinkCount: Int) -> Bool {
        sinkCount == 1
    }

    /// Hands `batch` to every sink.
    /// - Returns: false once a sink takes nothing more: the command then ends.
    public mutating func send(_ batch: SinkBatch) async -> Bool {
        eventsGiven += batch.eventCount
        if soleSinkWaits { return await sinks[0].takeWaitingForRoom(batch) }
        var open = true
        for sink in sinks where !sink.take(batch) { open = false }
        return open
    }

    /// How many of the events given every sink has settled (``Sink/settledEvents``).
    public var settledEvents: Int {
        sinks.map(\.settledEvents).min() ?? eventsGiven
    }

    /// Finishes every sink concurrently (a broker's drain does not hold up a track
    /// writer's) and gives their outcomes in the order of ``sinks``.
    public func finish(promptly: Bool) async -> [SinkOutcome] {
        await withTaskGroup(of: (Int, SinkOutcome).self) { group in
            for (index, sink) in sinks.enumerated() {
                group.addTask { (index, await sink.finish(promptly: promptly)) }
            }
            var outcomes = [SinkOutcome](repeating: .done, count: sinks.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }
}
