import LocTrackFormats
import LocTrackSinks
import Synchronization

/// A ``SinkSpec`` double for the pipeline's tests: it says the needs and spool folder the test
/// gives it, notes in a shared log when it starts and whether it was told it is alone, and
/// starts an ``InMemorySink`` (or fails, as the test says).
struct InMemorySinkSpec: SinkSpec {
    /// What the specs of one test did, in order.
    final class Log: Sendable {
        struct Start: Equatable {
            var name: String
            var alone: Bool
        }

        let starts = Mutex<[Start]>([])
        let sinks = Mutex<[String: InMemorySink]>([:])

        func sink(_ name: String) -> InMemorySink? { sinks.withLock { $0[name] } }
    }

    let name: String
    let given: SinkNeeds
    let spool: String?
    let failure: SinkStartError?
    let log: Log

    init(_ name: String, needs: SinkNeeds = [], spool: String? = nil, failure: SinkStartError? = nil, log: Log) {
        self.name = name
        given = spool == nil ? needs : needs.union(.spool)
        self.spool = spool
        self.failure = failure
        self.log = log
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }

    func needs(writing format: OutputFormat?) -> SinkNeeds { given }

    func spoolFolder(environment: [String: String]) -> String? { spool }

    func start(_ context: SinkStartContext) throws(SinkStartError) -> any Sink {
        log.starts.withLock { $0.append(.init(name: name, alone: context.alone)) }
        if let failure { throw failure }
        let sink = InMemorySink()
        log.sinks.withLock { $0[name] = sink }
        return sink
    }
}

extension SinkStartContext {
    /// A context whose encoders are never used by the doubles.
    static func forDoubles(environment: [String: String] = [:]) -> SinkStartContext {
        SinkStartContext(
            standardOutput: { MonitorEventEncoder(format: .json, framed: false) },
            messages: { MonitorEventEncoder(format: .json, framed: false) },
            trackFile: { _ in (MonitorEventEncoder(format: .json, framed: true), .json) },
            formatGiven: nil, environment: environment, onFatal: {})
    }
}
