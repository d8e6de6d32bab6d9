package import LocTrack

extension GPSFake {
    /// The library's side of ``run(_:feed:endTimeout:timeLimit:start:)``: iterates
    /// `GPSDSession(source:).fixes()` on this gpsd (all devices, unless `source` says
    /// otherwise), feeds the whole log to its end once gpsd has the session watching, and
    /// returns the collector once the iteration ended (gpsd's end of the log ends it).
    package func collectFixesToTheEnd(source: GPSDSource? = nil) async throws -> FixCollector {
        let session = GPSDSession(source: source ?? self.source)
        let collector = FixCollector(session.fixes())
        try await waitForWatchers()
        try await endLogs()
        try await collector.waitForEnd()
        return collector
    }
}
