import LocTrackMQTT

/// The sinks of one streaming command, each with its own buffer: stdout alone, or every
/// `--publish` broker (its spool) and every `--output` track writer (its pipe's queue).
///
/// The command hands each sink its lines in turn; no sink's `send` waits for room when
/// there are several (``SinkFactory``), so a frozen broker or a slow disk delays no other
/// sink. At the end every sink finishes at once, each writing out what it has.
struct SinkSet: Sendable {
    /// What a sink is for: each gets lines in its own format.
    enum Role: Equatable, Sendable {
        case standardOutput
        case broker(PublishOptions)
        /// A broker with `--ha-discovery`: events, not lines (``HomeAssistantSink``).
        case homeAssistant(PublishOptions)
        case trackFile(RecordOptions)
    }

    struct Member: Sendable {
        let role: Role
        let sink: any LineSink
    }

    let members: [Member]

    init(_ members: [Member]) {
        self.members = members
    }

    /// The members that take lines, each in its own format.
    var lineMembers: [Member] { members.filter { !($0.sink is HomeAssistantSink) } }

    /// The Home Assistant brokers, which take gpsd's events instead.
    var homeAssistants: [HomeAssistantSink] { members.compactMap { $0.sink as? HomeAssistantSink } }

    /// Finishes every sink concurrently (a broker's drain does not hold up a track
    /// writer's) and gives their outcomes in the order of ``members``.
    func finish(promptly: Bool) async -> [SinkOutcome] {
        await withTaskGroup(of: (Int, SinkOutcome).self) { group in
            for (index, member) in members.enumerated() {
                group.addTask { (index, await member.sink.finish(promptly: promptly)) }
            }
            var outcomes = [SinkOutcome](repeating: .done, count: members.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }
}

/// Lines for one sink, gathered over one batch of events and sent as one chunk.
struct PendingLines {
    var text = OutputBytes()
    var lines = 0

    /// Sends what was gathered (if anything) and starts afresh.
    /// - Returns: false once the sink takes nothing more.
    mutating func send(to sink: any LineSink) async -> Bool {
        guard lines > 0 else { return true }
        defer { self = PendingLines() }
        return await sink.send(text, lines: lines)
    }
}
