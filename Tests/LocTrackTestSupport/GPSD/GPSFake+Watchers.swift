/// Waiting for loctrack processes to watch gpsd.
extension GPSFake {
    /// Waits until each of `processes` watches gpsd and gpsd has opened the devices, like
    /// ``waitForWatchers(_:devices:timeout:)``, but fails at once, with its stderr, when one
    /// of them ends first (a refused option, a refused login).
    package func waitForWatchers(_ processes: [ChildProcess], timeout: Duration = .seconds(20)) async throws {
        try await waitUntil(timeout: timeout, "\(processes.count) watcher(s); gpsd log:\n\(logTail)") {
            for process in processes {
                if let ended = process.pollTermination() {
                    throw HarnessError("loctrack ended (\(ended)) before watching gpsd; stderr:\n\(process.stderr?.text ?? "")")
                }
            }
            return devicesOpen(forWatchers: processes.count)
        }
    }

    /// Waits until `process` watches gpsd (and gpsd has opened the devices) and then feeds
    /// the whole log, or until `process` ended first (e.g. it gave up on the broker before
    /// it asked gpsd for anything): returns whether it fed.
    @discardableResult
    package func feedAllOnceWatched(by process: ChildProcess, timeout: Duration = .seconds(20)) async throws -> Bool {
        try await waitUntil(timeout: timeout, "loctrack to watch gpsd or end; gpsd log:\n\(logTail)") {
            process.pollTermination() != nil || devicesOpen(forWatchers: 1)
        }
        guard process.pollTermination() == nil else { return false }
        feedAll()
        return true
    }

    /// Whether at least `count` clients watch and gpsd has opened and probed every device.
    private func devicesOpen(forWatchers count: Int) -> Bool {
        let log = gpsdLog
        return Self.watchingClients(in: log).count >= count && Set(devices).isSubset(of: Self.activatedDevices(in: log))
    }
}

