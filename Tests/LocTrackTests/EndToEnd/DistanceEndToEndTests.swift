import Foundation
import LocTrack
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// The live odometer and trips of `stream --odometer --trips` against a real gpsd fed
    /// by gpsfake, from a receiver that reports every 10 s (a power-save mode, gpsd fed by a
    /// sparse source): the same engine as `loctrack trips`, so a sparse receiver counts right.
    @Suite("Distance: the live odometer at a sparse rate", .serialized, .timeLimit(.minutes(1)))
    struct DistanceEndToEnd {
        /// A fix every 10 s: 6 parked, 20 driving north at 10 m/s (899 micro-degrees, 99.96 m
        /// on loctrack's sphere, per fix), 24 parked where the drive ended (a trip ends once no
        /// fix of the last 180 s is 200 m away).
        static func sparseDrive() -> NMEALog {
            let base = 47.376887, step = 0.000899
            var epochs: [NMEALog.Epoch] = []
            for index in 0..<50 {
                let driven = min(max(index - 5, 0), 20)
                let moving = index >= 6 && index <= 25
                epochs.append(NMEALog.Epoch(
                    latitude: base + step * Double(driven), longitude: 8.541694, speedKnots: moving ? 19.4 : 0, track: 0.5,
                    hdop: 0.5))
            }
            return NMEALog(epochs: epochs, interval: 10)
        }

        @Test("given a receiver reporting every 10 s that drives 2 km between two stops when streaming with --odometer --trips then the odometer counts the 2 km and one trip of 2 km is reported", .timeLimit(.minutes(1)))
        func sparseReceiverCountsTheDrive() async throws {
            let log = Self.sparseDrive()
            let home = try TrackFiles.temporaryFolder("sparse-odometer")
            defer { try? FileManager.default.removeItem(atPath: home) }
            try await withGPSFake(log) { fake in
                let stream = try LoctrackProcess.start([
                    "stream", "--odometer", "--trips", "--odometer-file", home + "/odometer", "--format", "json",
                    "--count", "\(log.epochs.count)", fake.sourceArgument,
                ])
                try await fake.waitForWatchers()
                fake.feedAll()
                try await fake.endLogs()
                let result = try await stream.result()
                #expect(result.status == .exited(0), "\(result)")
                let lines = try result.jsonObjects()
                let odometer = lines.compactMap { $0["class"] as? String == "TPV" ? $0["odometer"] as? Double : nil }
                let driven = 20 * 99.96
                #expect(odometer.count == log.epochs.count, "\(result)")
                #expect(odometer == odometer.sorted(), "the odometer never goes back: \(odometer)")
                #expect(abs((odometer.last ?? 0) - driven) < 0.01 * driven, "\(odometer)")
                let trips = lines.filter { $0["class"] as? String == "TRIP" }
                #expect(trips.map { $0["state"] as? String } == ["start", "end"], "\(trips)")
                let ended = try #require(trips.last)
                #expect(abs((ended["distance"] as? Double ?? 0) - driven) < 0.01 * driven, "\(ended)")
                // From the last parked fix before the drive (the motion began in that 10 s gap) to its last fix.
                #expect(ended["start"] as? String == log.time(ofEpoch: 5).iso8601, "\(ended)")
                #expect(ended["end"] as? String == log.time(ofEpoch: 25).iso8601, "\(ended)")
                #expect(ended["movingTime"] as? Double == 200, "\(ended)")
                #expect(result.stderr.isEmpty, "\(result)")
            }
        }
    }
}
