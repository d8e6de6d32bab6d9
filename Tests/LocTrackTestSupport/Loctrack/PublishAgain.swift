extension PublishRun {
    /// The publisher started again (the same spool and client id) on `fake`'s gpsd beside a
    /// plain stream: feeds the whole log, takes the plain stream's `count` lines, waits until
    /// `subscriber` has every one of them and of `earlier` (the lines of the runs before),
    /// and stops the publisher with SIGINT.
    /// - Returns: the publisher's result and the plain stream's lines.
    package func publishAgain(
        _ url: String, fake: GPSFake, lines count: Int, after earlier: [String], subscriber: Subscriber
    ) async throws -> (result: LoctrackResult, lines: [String]) {
        let (publisher, plain) = try await startBesidePlainStream(url, fake: fake)
        fake.feedAll()
        try await plain.waitForStdoutLines(count)
        let lines = try await plain.interruptedLines()
        let expected = earlier + lines
        try await subscriber.waitForMessages(timeout: .seconds(20), "all \(expected.count) fixes") { messages in
            Set(messages.map(\.payload)).isSuperset(of: expected)
        }
        let (result, _) = try await stopPublishing(publisher, beside: plain)
        return (result, lines)
    }
}
