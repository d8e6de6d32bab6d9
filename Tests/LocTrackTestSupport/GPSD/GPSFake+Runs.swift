/// How far an end-to-end run takes gpsfake's log.
package enum LogFeed: Sendable {
    /// Every epoch and the end of the log: gpsd signs the devices off and stops, so its
    /// clients see the connection end (``GPSFake/endLogs(waitingFor:timeout:)``).
    case toTheEnd
    /// Every epoch, with gpsd kept running (``GPSFake/feedAll()``): for runs that end by
    /// themselves (`once`, `--count`, `--duration`).
    case allEpochs
}

extension GPSFake {
    /// The opening and the end that most end-to-end tests share: starts a process for each
    /// argument list, with this gpsd's address appended as the source (`loctrack` by
    /// default, or `start`, e.g. ``StateHome/start(_:)``), waits until gpsd has all of them
    /// watching and its devices open (failing at once, with its stderr, if one ends first),
    /// feeds the log as far as `feed` says, and returns each run's result, in order.
    ///
    /// - Parameters:
    ///   - endTimeout: how long gpsd may take to sign off every device (``LogFeed/toTheEnd``).
    ///   - timeLimit: for each run, how long it may take to end before it is killed and this throws.
    package func run(
        _ runs: [[String]], feed: LogFeed = .toTheEnd, endTimeout: Duration = .seconds(20), timeLimit: Duration = .seconds(20),
        start: (_ arguments: [String]) throws -> ChildProcess = { try LoctrackProcess.start($0) }
    ) async throws -> [LoctrackResult] {
        let processes = try runs.map { try start($0 + [sourceArgument]) }
        try await waitForWatchers(processes)
        switch feed {
        case .toTheEnd: try await endLogs(timeout: endTimeout)
        case .allEpochs: feedAll()
        }
        var results: [LoctrackResult] = []
        for process in processes { results.append(try await process.result(timeLimit: timeLimit)) }
        return results
    }

    /// ``run(_:feed:endTimeout:timeLimit:start:)`` for one process.
    package func run(
        _ arguments: [String], feed: LogFeed = .toTheEnd, endTimeout: Duration = .seconds(20), timeLimit: Duration = .seconds(20),
        start: (_ arguments: [String]) throws -> ChildProcess = { try LoctrackProcess.start($0) }
    ) async throws -> LoctrackResult {
        try await run([arguments], feed: feed, endTimeout: endTimeout, timeLimit: timeLimit, start: start)[0]
    }
}
