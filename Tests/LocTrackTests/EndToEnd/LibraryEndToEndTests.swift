import Foundation
import Glibc
import LocTrack
import LocTrackTestSupport
import Synchronization
import Testing

/// End-to-end tests against a real gpsd 3.22 fed by gpsfake (see `Tests/LocTrackTestSupport/GPSD/GPSFake.swift`).
///
/// The suites below run side by side, the tests of each one at a time (each suite is
/// `.serialized`): the tests mostly wait on gpsd, brokers and timers, not on the CPU,
/// and each has its own gpsd on a port of its own, its own broker and temporary
/// folders. The feed is gated on gpsd having opened the devices for the client's
/// `?WATCH`, so counts are exact whatever the load; the only wall-clock bounds are
/// generous latency limits. The lifetime tests, which count this process's threads
/// and descriptors, each run in a process of their own (``SessionLifetime``).
/// Skipped where gpsd and gpsfake are not installed (`make deps`: Debian's gpsd and
/// gpsd-clients).
@Suite(
    "End to end: a real gpsd via gpsfake",
    .enabled(if: GPSFake.isAvailable, "needs /usr/sbin/gpsd and /usr/bin/gpsfake (apt install gpsd gpsd-clients)"),
    .timeLimit(.minutes(2)))  // at least each nested test's own limit: the shortest applies
struct EndToEndTests {}

extension EndToEndTests {
    @Suite("Library: GPSDSession against gpsd", .serialized, .timeLimit(.minutes(1)))
    struct Library {
        @Test("given a 3D walk when iterating fixes then there is exactly one fix per epoch with gpsd's last report of it", .timeLimit(.minutes(1)))
        func oneFixPerEpochWithExactValues() async throws {
            let log = NMEALog.walk(epochs: 12)
            try await withGPSFake(log) { fake in
                let collector = try await fake.collectFixesToTheEnd()

                let fixes = collector.fixes
                #expect(fixes.count == 12, "gpsd log:\n\(fake.logTail)")
                for (index, fix) in fixes.enumerated() {
                    expect(fix, isEpoch: index, of: log, device: fake.devices[0])
                }
                // The case the merging is for: gpsd sent the first epoch several times, the
                // first report without altitude; the fix has the altitude of the last one.
                let firstEpoch = fake.reportsSent(class: "TPV").filter { $0.report["time"] as? String == log.time(ofEpoch: 0).iso8601 }
                #expect(firstEpoch.count >= 2)
                #expect(firstEpoch.first?.report["altHAE"] == nil)
                #expect(fixes.first?.altitudeHAE == log.expectedAltitudeHAE(ofEpoch: 0))
            }
        }

        @Test("given gpsd closes the connection at the end of the log when iterating then every fix arrives and then connectionLost is thrown", .timeLimit(.minutes(1)))
        func endOfLogThrowsConnectionLostAfterAllFixes() async throws {
            let log = NMEALog.walk(epochs: 3)
            try await withGPSFake(log) { fake in
                let collector = try await fake.collectFixesToTheEnd()
                let outcome = collector.outcome!

                #expect(collector.fixes.map(\.time) == (0..<3).map { log.time(ofEpoch: $0) })
                #expect(outcome.locTrackErrorCode == .connectionLost, "outcome: \(outcome)")
            }
        }

        @Test("given 3D, 2D, no-fix and DGPS epochs when iterating then no-fix epochs make no fix, 2D fixes have no altitude and DGPS fixes say so", .timeLimit(.minutes(1)))
        func fixQualities() async throws {
            let qualities: [NMEALog.Quality] = [.threeD, .threeD, .threeD, .twoD, .twoD, .noFix, .noFix, .threeD, .threeD, .threeD]
            var log = NMEALog.walk(epochs: qualities.count, quality: { qualities[$0] })
            var epochs = log.epochs
            epochs[7].dgps = true
            epochs[8].dgps = true
            log = NMEALog(epochs: epochs)
            try await withGPSFake(log) { fake in
                let collector = try await fake.collectFixesToTheEnd()

                let fixes = collector.fixes
                #expect(fixes.map(\.time) == log.fixEpochIndexes.map { log.time(ofEpoch: $0) }, "gpsd log:\n\(fake.logTail)")
                // gpsd reports the first 2D epoch after a 3D one as 3D (without altitude).
                #expect(fixes.map(\.mode) == [.threeD, .threeD, .threeD, .threeD, .twoD, .threeD, .threeD, .threeD])
                #expect(fixes.map(\.status) == [.gps, .gps, .gps, .gps, .gps, .dgps, .dgps, .gps])
                #expect(fixes.map(\.altitudeHAE).map { $0 == nil } == [false, false, false, true, true, false, false, false])
                for (fix, index) in zip(fixes, log.fixEpochIndexes) {
                    expect(fix, isEpoch: index, of: log, device: fake.devices[0])
                }
            }
        }

        @Test("given nothing listens on the port when iterating or asking for a first fix then cannotConnect is thrown at once", .timeLimit(.minutes(1)))
        func closedPortThrowsCannotConnect() async throws {
            let refusing = try Loopback.RefusingPort()
            defer { withExtendedLifetime(refusing) {} }  // the port refuses until the test ends
            let session = GPSDSession(source: GPSDSource(host: "127.0.0.1", port: String(refusing.port)))
            let started = ContinuousClock.now
            let error = await #expect(throws: LocTrackError.self) {
                for try await _ in session.fixes() {}
            }
            #expect(error?.code == .cannotConnect)
            #expect(ContinuousClock.now - started < .seconds(5), "at once, not after the 20 s connect timeout")

            let firstFixError = await #expect(throws: LocTrackError.self) {
                _ = try await session.firstFix(timeout: .seconds(5))
            }
            #expect(firstFixError?.code == .cannotConnect)
        }

        @Test("given fixes whose eph falls from 76 m to 17.1 m when asking firstFix(minimumAccuracy: 19) then the first fix with eph <= 19 is returned", .timeLimit(.minutes(1)))
        func firstFixMeetsTheBar() async throws {
            let hdops = [4.0, 3.0, 2.0, 1.0, 0.9]  // eph 76, 57, 38, 19, 17.1
            let log = NMEALog.walk(epochs: hdops.count, hdop: { hdops[$0] })
            try await withGPSFake(log) { fake in
                let session = GPSDSession(source: fake.source)
                let request = Task { try await session.firstFix(minimumAccuracy: 19, timeout: .seconds(30)) }
                try await fake.waitForWatchers()
                fake.feedAll()
                let fix = try await request.value(within: .seconds(40), "firstFix")

                #expect(fix.time == log.time(ofEpoch: 3))
                #expect(fix.horizontalError == 19)
                expect(fix, isEpoch: 3, of: log, device: fake.devices[0])
            }
        }

        @Test("given only fixes worse than the bar when asking firstFix then noFixBeforeTimeout is thrown at the timeout", .timeLimit(.minutes(1)))
        func firstFixTimesOut() async throws {
            let log = NMEALog.walk(epochs: 4, hdop: { _ in 5.0 })  // eph 95 m
            try await withGPSFake(log) { fake in
                let session = GPSDSession(source: fake.source)
                let started = ContinuousClock.now
                // 6 s: gpsd's device probe (about 1 s) and the feed must fit before it, also on a loaded machine.
                let request = Task { try await session.firstFix(minimumAccuracy: 10, timeout: .seconds(6)) }
                try await fake.waitForWatchers()
                fake.feedAll()
                try await fake.waitForReport("the last epoch's TPV") { $0["time"] as? String == log.time(ofEpoch: 3).iso8601 }
                #expect(ContinuousClock.now - started < .seconds(6), "the fixes must arrive before the timeout for this test to mean anything")

                let error = await #expect(throws: LocTrackError.self) { try await request.value(within: .seconds(10), "firstFix") }
                let elapsed = ContinuousClock.now - started
                #expect(error?.code == .noFixBeforeTimeout)
                #expect(elapsed >= .seconds(6) && elapsed < .seconds(9), "elapsed \(elapsed)")
            }
        }

        @Test("given a consumer waiting for the next fix when its task is cancelled then the iteration ends promptly and gpsd's watch is closed", .timeLimit(.minutes(1)))
        func cancellationEndsIterationPromptly() async throws {
            let log = NMEALog.walk(epochs: 6)
            try await withGPSFake(log) { fake in
                let session = GPSDSession(source: fake.source)
                let collector = FixCollector(session.fixes())
                try await fake.waitForWatchers()
                fake.feed(epochs: 4)
                try await collector.waitForFixes(3)
                try await Task.sleep(for: .milliseconds(200))  // the consumer is now parked in next()

                let cancelled = ContinuousClock.now
                collector.cancel()
                let outcome = try await collector.waitForEnd(timeout: .seconds(5))
                let latency = collector.endedAt! - cancelled

                #expect(latency < .milliseconds(500), "cancellation took \(latency)")
                #expect(outcome.locTrackErrorCode == nil, "cancellation must not look like a connection error: \(outcome)")
                try await waitUntil(timeout: .seconds(5), "loctrack to unwatch; gpsd got \(fake.commandsReceived)") {
                    fake.commandsReceived.contains { $0.contains("?WATCH={\"enable\":false}") }
                }
                print("cancellation latency: \(latency), outcome: \(outcome)")
            }
        }

        @Test("given two consumers of one session when gpsd sends fixes then both get the same fixes over a single connection", .timeLimit(.minutes(1)))
        func twoConsumersShareOneConnection() async throws {
            let log = NMEALog.walk(epochs: 8)
            try await withGPSFake(log) { fake in
                let session = GPSDSession(source: fake.source)
                let first = FixCollector(session.fixes())
                let second = FixCollector(session.fixes())
                try await first.waitForSubscription()
                try await second.waitForSubscription()
                try await fake.waitForWatchers()
                try await fake.endLogs()
                _ = try await first.waitForEnd()
                _ = try await second.waitForEnd()

                #expect(first.fixes.count == 8)
                #expect(first.fixes == second.fixes)
                let watches = fake.commandsReceived.filter { $0.contains("\"enable\":true") }
                #expect(watches.count == 1, "gpsd got \(watches)")
            }
        }

        @Test("given an epoch still being assembled when finish() is called then every fix read so far is delivered and the iteration ends without error", .timeLimit(.minutes(1)))
        func finishDeliversHeldFixesAndEndsNormally() async throws {
            let log = NMEALog.walk(epochs: 6)
            try await withGPSFake(log) { fake in
                let session = GPSDSession(source: fake.source)
                let collector = FixCollector(session.fixes())
                try await fake.waitForWatchers()
                fake.feed(epochs: 3)
                try await fake.waitForReport("epoch 2's TPV") { $0["time"] as? String == log.time(ofEpoch: 2).iso8601 }
                try await collector.waitForFixes(2)
                try await Task.sleep(for: .milliseconds(200))
                // Epoch 2 is read but held: nothing says yet that gpsd will not add to it.
                #expect(collector.fixes.count == 2)

                session.finish()
                let outcome = try await collector.waitForEnd(timeout: .seconds(5))

                #expect(outcome.isFinished, "outcome: \(outcome)")
                #expect(collector.fixes.map(\.time) == (0..<3).map { log.time(ofEpoch: $0) })
                for (index, fix) in collector.fixes.enumerated() {
                    expect(fix, isEpoch: index, of: log, device: fake.devices[0])
                }
            }
        }

        @Test("given two receivers when iterating then each device's fixes arrive once per epoch, tagged with the device", .timeLimit(.minutes(1)))
        func twoDevices() async throws {
            let walk = NMEALog.walk(epochs: 7)
            let other = NMEALog(epochs: (0..<5).map { index in
                NMEALog.Epoch(
                    latitude: -33.865143 - 0.000013 * Double(index), longitude: 151.2099 + 0.000021 * Double(index),
                    altitudeMSL: 58.5, geoidSeparation: 22.1, speedKnots: 1.2, track: 181.5, hdop: 1.3, vdop: 2.1, pdop: 2.4)
            })
            try await withGPSFake([walk, other]) { fake in
                let collector = try await fake.collectFixesToTheEnd()

                let fixes = collector.fixes
                let first = fixes.filter { $0.device == fake.devices[0] }
                let second = fixes.filter { $0.device == fake.devices[1] }
                #expect(first.count == 7 && second.count == 5, "devices: \(fixes.map { $0.device ?? "nil" })")
                #expect(first.count + second.count == fixes.count)
                for (index, fix) in first.enumerated() { expect(fix, isEpoch: index, of: walk, device: fake.devices[0]) }
                for (index, fix) in second.enumerated() { expect(fix, isEpoch: index, of: other, device: fake.devices[1]) }
            }
        }

        @Test("given two receivers when the source names one device then only that device is opened and its fixes arrive", .timeLimit(.minutes(1)))
        func deviceFilter() async throws {
            let walk = NMEALog.walk(epochs: 4)
            let other = NMEALog.walk(epochs: 6, start: Timestamp(seconds: NMEALog.defaultStart.seconds + 3600))
            try await withGPSFake([walk, other]) { fake in
                let source = GPSDSource(host: "127.0.0.1", port: String(fake.port), device: fake.devices[1])
                let session = GPSDSession(source: source)
                let collector = FixCollector(session.fixes())
                try await fake.waitForWatchers(devices: [fake.devices[1]])
                try await fake.endLogs(waitingFor: [fake.devices[1]])
                #expect(!GPSFake.activatedDevices(in: fake.gpsdLog).contains(fake.devices[0]))
                _ = try await collector.waitForEnd()

                #expect(collector.fixes.count == 6)
                for (index, fix) in collector.fixes.enumerated() { expect(fix, isEpoch: index, of: other, device: fake.devices[1]) }
            }
        }
    }
}

// MARK: - Helpers

/// Checks every value gpsd reports for epoch `index` of `log`, exactly.
func expect(_ fix: Fix, isEpoch index: Int, of log: NMEALog, device: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let epoch = log.epochs[index]
    #expect(fix.time == log.time(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.mode == log.expectedMode(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.status == epoch.expectedStatus, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.device == device, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.latitude == epoch.expectedLatitude, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.longitude == epoch.expectedLongitude, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.altitudeMSL == log.expectedAltitudeMSL(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.altitudeHAE == log.expectedAltitudeHAE(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.horizontalError == log.expectedHorizontalError(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    // For a 2D epoch gpsd sometimes repeats the last epv and geoidSep: not predicted.
    if log.hasAltitude(epoch: index) {
        #expect(fix.geoidSeparation == log.expectedGeoidSeparation(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
        #expect(fix.verticalError == log.expectedVerticalError(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    }
    #expect(fix.sphericalError == log.expectedSphericalError(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.speed == epoch.expectedSpeed, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.track == epoch.expectedTrack, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(fix.timeError == 0.005, "epoch \(index)", sourceLocation: sourceLocation)
}
