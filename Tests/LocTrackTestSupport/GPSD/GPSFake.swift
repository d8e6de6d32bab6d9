package import Foundation
import Glibc
package import LocTrack
import Synchronization

/// A real gpsd (3.22 of Debian 12 or 3.25 of Debian 13) fed by `gpsfake` from generated NMEA logs, one pty (one
/// gpsd device) per log, on a free loopback port.
///
/// ## Deterministic timing
///
/// Plain gpsfake writes the log as soon as gpsd is up, and gpsd only opens a
/// device when a client watches: a client that connects late misses the start,
/// and even one that is early loses about a second, because on opening the pty
/// gpsd probes drivers (changing speeds, flushing input) for ~1 s per device and
/// throws away whatever arrives meanwhile (docs/performance.md, "Figures behind the
/// tests' bounds"). `gpsfake -p` hides that with its own
/// watcher and a fixed 1.4 s sleep, which a client started later can still miss.
///
/// So this harness runs `gpsfake -i` (single-step: each packet is fed only when
/// a newline arrives on gpsfake's stdin) with `-D 3` (gpsd logs, on stderr, every
/// control command, every line it exchanges with clients and its device
/// activations). The test:
/// 1. starts its client; ``waitForWatchers(_:devices:timeout:)`` returns once
///    the client's `?WATCH` is in and gpsd has opened and probed the devices
///    (it told its watchers the devices are activated): from then on nothing is lost;
/// 2. releases the log: ``feed(epochs:)`` (a few epochs, then the feed pauses
///    deterministically), ``feedAll()``, or ``endLogs()`` (everything plus
///    gpsfake's `# EOF`, which makes gpsd sign the device off; the harness waits
///    for that in gpsd's log, so every report is sent, then stops gpsd with
///    SIGTERM: clients see the connection end, as when `gpsfake -p` exits at the
///    end of its log).
///
/// Held back, gpsfake blocks in `input()` and costs no CPU (after `# EOF` it would
/// busy-loop, so ``endLogs()`` stops it right away). If the test process dies,
/// gpsfake reads EOF on stdin and exits, taking gpsd with it.
///
/// Cleanup: gpsfake runs in a process group of its own (gpsd inherits it), and
/// ``shutdown()`` sends SIGKILL to the group (gpsfake can hang on SIGTERM), reaps
/// gpsfake, removes gpsd's SHM export segment (gpsd 3.22 cannot remove it itself
/// after dropping privileges, so each port would leak 24 KB of System V shared
/// memory) and deletes the temporary directory (logs, gpsfake's control socket).
/// ``withGPSFake(_:cycle:port:options:_:)`` always does this, also when the test fails.
///
/// ## Options
///
/// ``Options/readsWithoutClients`` runs gpsd with `-n` (gpsfake `-n`): it opens and
/// probes its devices at once and keeps reading them with no client, so it always
/// has its latest fix for `?POLL` (a warm gpsd); ``waitForWatchers(_:devices:timeout:)``
/// with a count of 0 waits for the devices. ``feedInRealTime()`` then keeps fixes
/// flowing, each epoch when the wall clock reaches its time. ``Options/logsToFile``
/// sends gpsd's log to a file instead of a pipe read into this process, whose
/// memory then does not grow with it (for tests that measure this process).
///
/// Start-up: gpsfake's own adding of its ptys can silently fail (gpsd binds its control
/// socket before it listens on it); the harness adds them itself, which gpsd takes once
/// (see GPSFake+StartUp.swift), so a start needs no retry.
package final class GPSFake: Sendable {
    package let port: Int
    package let logs: [NMEALog]
    /// gpsd's device for each log (the pty gpsfake made), in log order.
    package let devices: [String]
    package let process: ChildProcess
    private let directory: URL
    /// gpsd's control socket, which gpsfake makes in $TMPDIR (`DaemonInstance` in gps/fake.py).
    var controlSocket: String { Self.controlSocket(in: directory, gpsfake: process.pid) }
    static func controlSocket(in directory: URL, gpsfake: pid_t) -> String {
        directory.appendingPathComponent("gpsfake-\(gpsfake).sock").path
    }
    /// For each gpsfake prompt in order, the log it feeds: gpsfake goes round-robin
    /// over its logs, one packet per turn, and ends each log with `# EOF`.
    private let promptOrder: [Int]
    /// For each log, how many data lines (sentences) come before each epoch, and the total last.
    private let dataLinesBefore: [[Int]]
    private let state = Mutex(FeedState())
    package let gpsdPID: pid_t
    /// gpsd runs with `-n` (``Options/readsWithoutClients``).
    let readsWithoutClients: Bool
    /// gpsd's log, when ``Options/logsToFile``; otherwise it is gpsfake's stderr pipe.
    package let logFile: String?

    /// How gpsd runs besides the defaults.
    package struct Options: Sendable {
        /// gpsd `-n`: read the devices from the start and while no client watches.
        package var readsWithoutClients = false
        /// gpsd's log goes to a file, not into this process.
        package var logsToFile = false

        package init(readsWithoutClients: Bool = false, logsToFile: Bool = false) {
            self.readsWithoutClients = readsWithoutClients
            self.logsToFile = logsToFile
        }
    }

    private struct FeedState {
        var promptsReleased = 0
        /// How many of the released prompts were each log's.
        var promptsReleasedPerLog: [Int] = []
        var epochsReleased: [Int] = []
        var shutDown = false
    }

    /// Whether the tests that need gpsd and gpsfake run: they are installed, or ``RequiredTools`` says they must be.
    package static var isAvailable: Bool {
        RequiredTools.run(ifInstalled: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd"))
    }

    /// `127.0.0.1:PORT` as a ``GPSDSource`` (all devices).
    package var source: GPSDSource { GPSDSource(host: "127.0.0.1", port: String(port)) }
    /// `127.0.0.1:PORT`, loctrack's SOURCE argument.
    package var sourceArgument: String { "127.0.0.1:\(port)" }

    /// Starts gpsd and gpsfake and returns once gpsd has every device and accepts connections.
    ///
    /// - Parameters:
    ///   - cycle: gpsfake's delay before each packet (`-c`).
    ///   - port: the port for gpsd; a free one by default (a fixed one to restart gpsd where a client waits).
    ///   - options: a warm gpsd, gpsd's log in a file (see "Options" above).
    package static func start(
        _ logs: [NMEALog], cycle: Duration = .milliseconds(5), port requestedPort: Int? = nil, options: Options = Options()
    ) async throws -> GPSFake {
        precondition(!logs.isEmpty)
        return try await startOnce(logs, cycle: cycle, port: requestedPort, options: options)
    }

    private static func startOnce(_ logs: [NMEALog], cycle: Duration, port requestedPort: Int?, options: Options) async throws -> GPSFake {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("loctrack-gpsfake-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            var paths: [String] = []
            for (index, log) in logs.enumerated() {
                let url = directory.appendingPathComponent("receiver\(index).log")
                try log.write(to: url)
                paths.append(url.path)
            }
            let port = try requestedPort ?? Loopback.freePort()
            let seconds = Double(cycle.components.seconds) + Double(cycle.components.attoseconds) / 1e18
            let arguments = ["gpsfake", "-q", "-1", "-i", "-D", "3", "-P", String(port), "-c", String(format: "%.3f", seconds)]
                + (options.readsWithoutClients ? ["-n"] : []) + paths
            let logFile = options.logsToFile ? directory.appendingPathComponent("gpsd.log").path : nil
            if let logFile { _ = FileManager.default.createFile(atPath: logFile, contents: nil) }
            let process = try ChildProcess(
                executable: "/usr/bin/gpsfake", arguments: arguments,
                // gpsfake puts gpsd's control socket in $TMPDIR and never removes it.
                environment: ["TMPDIR": directory.path],
                stdin: .pipe, stdout: .null, stderr: logFile.map { .file($0) } ?? .pipe, newProcessGroup: true)
            do {
                // gpsfake's control socket: $TMPDIR/gpsfake-PID.sock (DaemonInstance in gps/fake.py).
                let devices = try await addDevices(
                    logs: paths, process: process, controlSocket: controlSocket(in: directory, gpsfake: process.pid),
                    logFile: logFile)
                guard let gpsd = ProcessGroup.members(process.pid).first(where: { $0.command == "gpsd" })?.pid else {
                    throw HarnessError("no gpsd in gpsfake's process group")
                }
                try await waitForListener(port: port, gpsd: gpsd, process: process)
                return GPSFake(
                    port: port, logs: logs, devices: devices, process: process, directory: directory, gpsdPID: gpsd, logFile: logFile,
                    readsWithoutClients: options.readsWithoutClients)
            } catch {
                process.signalGroup(SIGKILL)
                process.reap()
                Self.removeSharedMemory(port: port)
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    private init(port: Int, logs: [NMEALog], devices: [String], process: ChildProcess, directory: URL, gpsdPID: pid_t, logFile: String?, readsWithoutClients: Bool) {
        self.readsWithoutClients = readsWithoutClients
        self.port = port
        self.logs = logs
        self.devices = devices
        self.process = process
        self.directory = directory
        self.gpsdPID = gpsdPID
        self.logFile = logFile
        // Counted once: a feed late in a long log (``feedInRealTime()``) costs no more than an early one.
        let dataLinesBefore = logs.map { log in
            log.epochs.indices.reduce(into: [0]) { counts, epoch in counts.append(counts.last! + log.sentenceCount(ofEpoch: epoch)) }
        }
        self.dataLinesBefore = dataLinesBefore
        var remaining = dataLinesBefore.map { $0.last! + 1 }  // and gpsfake's `# EOF`
        var order: [Int] = []
        while remaining.contains(where: { $0 > 0 }) {
            for index in remaining.indices where remaining[index] > 0 {
                order.append(index)
                remaining[index] -= 1
            }
        }
        self.promptOrder = order
        self.state.withLock {
            $0.epochsReleased = Array(repeating: 0, count: logs.count)
            $0.promptsReleasedPerLog = Array(repeating: 0, count: logs.count)
        }
    }

    deinit {
        shutdown()
    }

    // MARK: - Feeding

    /// Feeds the next `count` epochs of every log (fewer where a log runs out), then pauses.
    package func feed(epochs count: Int = 1) {
        let target = state.withLock { state -> [Int] in
            state.epochsReleased = zip(state.epochsReleased, logs).map { min($0 + count, $1.epochs.count) }
            return state.epochsReleased
        }
        release(dataLines: zip(dataLinesBefore, target).map { before, epochs in before[epochs] })
    }

    /// Feeds every epoch of every log, but not the end of the logs: gpsd keeps the devices open.
    package func feedAll() {
        feed(epochs: logs.map(\.epochs.count).max() ?? 0)
    }

    /// Keeps fixes flowing: feeds each epoch of the first log (and the same epoch of
    /// the others) once the wall clock reaches its time, until the log ends or the
    /// task is cancelled. With a log that starts now, gpsd's latest fix is then always
    /// less than about a second old by its own clock: fresh for `?POLL`. Epochs whose
    /// time has passed are fed at once.
    package func feedInRealTime() -> Task<Void, Never> {
        let log = logs[0]
        return Task { [self] in
            for index in log.epochs.indices {
                let due = Double(log.time(ofEpoch: index).seconds) - Date().timeIntervalSince1970
                if due > 0 { try? await Task.sleep(for: .milliseconds(Int(due * 1000) + 1)) }
                if Task.isCancelled { return }
                feed(epochs: 1)
            }
        }
    }

    /// Feeds everything, waits until gpsd has processed each log's `# EOF` (so it
    /// has sent every report), then stops gpsd: its clients see the connection end.
    ///
    /// - Parameter waitingFor: the devices gpsd has open (all by default; a client
    ///   that watches one device makes gpsd open only that one).
    package func endLogs(waitingFor openDevices: [String]? = nil, timeout: Duration = .seconds(20)) async throws {
        let devices = openDevices ?? self.devices
        let toRelease = state.withLock { state -> Int in
            defer { state.promptsReleased = promptOrder.count }
            state.epochsReleased = logs.map(\.epochs.count)
            state.promptsReleasedPerLog = dataLinesBefore.map { $0.last! + 1 }
            return promptOrder.count - state.promptsReleased
        }
        process.writeToStdin(String(repeating: "\n", count: toRelease))
        try await waitUntil(timeout: timeout, "gpsd to sign off \(devices); gpsd log:\n\(logTail)") {
            try checkAlive()
            let log = gpsdLog
            return devices.allSatisfy { device in log.contains { $0.contains("device signed off \(device)") } }
        }
        try await stopDaemon()
    }

    /// Stops gpsd (SIGTERM, as a system shutdown would): clients see EOF.
    package func stopDaemon(timeout: Duration = .seconds(10)) async throws {
        kill(gpsdPID, SIGTERM)
        try await waitUntil(timeout: timeout, "gpsd (pid \(gpsdPID)) to exit") {
            !ProcessGroup.members(process.pid).contains { $0.pid == gpsdPID && $0.state != "Z" }
        }
    }

    private func release(dataLines target: [Int]) {
        let count = state.withLock { state -> Int in
            var fed = state.promptsReleasedPerLog
            var end = state.promptsReleased
            while end < promptOrder.count, zip(fed, target).contains(where: { $0 < $1 }) {
                fed[promptOrder[end]] += 1
                end += 1
            }
            state.promptsReleasedPerLog = fed
            defer { state.promptsReleased = end }
            return end - state.promptsReleased
        }
        if count > 0 { process.writeToStdin(String(repeating: "\n", count: count)) }
    }

    // MARK: - Cleanup

    /// Kills gpsfake and gpsd, removes gpsd's SHM segment and the temporary files. Idempotent.
    package func shutdown() {
        let first = state.withLock { state -> Bool in
            defer { state.shutDown = true }
            return !state.shutDown
        }
        guard first else { return }
        // While gpsfake is not reaped its pid (the group id) cannot be reused, so the group kill is safe.
        if process.pollTermination() == nil { process.signalGroup(SIGKILL) }
        if ProcessGroup.members(process.pid).contains(where: { $0.pid == gpsdPID }) { kill(gpsdPID, SIGKILL) }
        process.closeStdin()
        process.reap()
        Self.removeSharedMemory(port: port)
        try? FileManager.default.removeItem(at: directory)
    }

    /// gpsd exports its data in a System V SHM segment keyed `0x4770PPPP` (PPPP = port).
    private static func removeSharedMemory(port: Int) {
        let key = key_t(bitPattern: 0x4770_0000 | UInt32(port & 0xFFFF))
        let id = shmget(key, 0, 0)
        if id >= 0 { _ = shmctl(id, IPC_RMID, nil) }
    }

}
