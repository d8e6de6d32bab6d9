
/// Waits until `process` watches gpsd (and gpsd has opened the devices) and then feeds
/// the whole log, or until `process` ended first (e.g. it gave up on the broker before
/// it asked gpsd for anything): returns whether it fed.
@discardableResult
package func feedAllOnceWatched(_ fake: GPSFake, by process: ChildProcess, timeout: Duration = .seconds(20)) async throws -> Bool {
    try await waitUntil(timeout: timeout, "loctrack to watch gpsd or end; gpsd log:\n\(fake.logTail)") {
        if process.pollTermination() != nil { return true }
        let log = fake.gpsdLog
        return !GPSFake.watchingClients(in: log).isEmpty && Set(fake.devices).isSubset(of: GPSFake.activatedDevices(in: log))
    }
    guard process.pollTermination() == nil else { return false }
    fake.feedAll()
    return true
}
/// Waits until each of `processes` watches gpsd and gpsd has opened the devices, like
/// ``GPSFake/waitForWatchers(_:devices:timeout:)``, but fails at once, with its
/// stderr, when one of them ends first (a refused option, a refused login).
package func waitForWatchers(_ fake: GPSFake, _ processes: ChildProcess..., timeout: Duration = .seconds(20)) async throws {
    try await waitUntil(timeout: timeout, "\(processes.count) watcher(s); gpsd log:\n\(fake.logTail)") {
        for process in processes {
            if let ended = process.pollTermination() {
                throw HarnessError("loctrack ended (\(ended)) before watching gpsd; stderr:\n\(process.stderr?.text ?? "")")
            }
        }
        let log = fake.gpsdLog
        return GPSFake.watchingClients(in: log).count >= processes.count && Set(fake.devices).isSubset(of: GPSFake.activatedDevices(in: log))
    }
}
