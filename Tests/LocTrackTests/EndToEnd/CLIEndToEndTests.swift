import Foundation
import Glibc
import LocTrack
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// The built `loctrack` executable against a real gpsd, stdout a pipe.
    @Suite("CLI: the loctrack executable against gpsd", .serialized, .timeLimit(.minutes(1)))
    struct Executable {
        @Test("given --no-reconnect when streaming JSON until gpsd closes at the end of the log then each epoch is one exact TPV line, then exit 69 with one stderr line", .timeLimit(.minutes(1)))
        func streamPrintsOneExactLinePerEpochThenExits69() async throws {
            let log = NMEALog.walk(epochs: 12)
            try await withGPSFake(log) { fake in
                let result = try await fake.run(["stream", "--format", "json", "--no-reconnect"])

                let lines = try result.jsonObjects()
                #expect(lines.count == 12, "\(result)")
                for (index, line) in lines.enumerated() {
                    expectTPV(line, isEpoch: index, of: log, device: fake.devices[0])
                }
                #expect(result.status == .exited(69), "\(result)")
                // One error line; loctrack may first pass on gpsd's notice that the device signed off.
                #expect(result.stderrLines.filter { !$0.contains("lost device") }.count == 1, "\(result)")
                #expect(result.stderrLines.last?.contains("lost device") == false, "the error comes last: \(result)")
            }
        }

        @Test("given fixes with eph 15.2, 17.1, 19 and 20.9 m when streaming with --min-accuracy=17.1 then only fixes with eph <= 17.1 are printed, as JSON by default", .timeLimit(.minutes(1)))
        func streamMinimumAccuracyFilters() async throws {
            let log = NMEALog.walk(epochs: 12)  // eph cycles 15.2, 17.1, 19.0, 20.9
            try await withGPSFake(log) { fake in
                let result = try await fake.run(["stream", "--min-accuracy=17.1", "--no-reconnect"])

                let kept = log.epochs.indices.filter { log.expectedHorizontalError(ofEpoch: $0)! <= 17.1 }
                #expect(kept == [0, 1, 4, 5, 8, 9])
                let lines = try result.jsonObjects()
                #expect(lines.count == kept.count, "\(result)")
                for (line, index) in zip(lines, kept) {
                    expectTPV(line, isEpoch: index, of: log, device: fake.devices[0])
                }
                #expect(result.status == .exited(69), "\(result)")
            }
        }

        @Test("given fixes without eph (RMC only) when streaming with and without --min-accuracy then the filter drops them all and the plain stream prints them all", .timeLimit(.minutes(1)))
        func fixesWithoutEphAreDroppedByTheFilter() async throws {
            let log = NMEALog.walk(epochs: 5, sentences: [.rmc])
            try await withGPSFake(log) { fake in
                let results = try await fake.run([["stream", "--min-accuracy", "1000", "--no-reconnect"], ["stream", "--no-reconnect"]])
                let (filteredResult, plainResult) = (results[0], results[1])

                #expect(filteredResult.stdout.isEmpty, "\(filteredResult)")
                #expect(filteredResult.status == .exited(69), "\(filteredResult)")
                let lines = try plainResult.jsonObjects()
                #expect(lines.count == 5, "\(plainResult)")
                for (index, line) in lines.enumerated() {
                    expectTPV(line, isEpoch: index, of: log, device: fake.devices[0])
                    #expect(line["eph"] == nil && line["mode"] as? Int == 2)
                }
            }
        }

        @Test("given --format text when streaming then there is one non-JSON line per fix", .timeLimit(.minutes(1)))
        func textFormat() async throws {
            let log = NMEALog.walk(epochs: 4)
            try await withGPSFake(log) { fake in
                let result = try await fake.run(["stream", "--format=text", "--no-reconnect"])

                #expect(result.stdoutLines.count == 4, "\(result)")
                #expect(result.stdoutLines.allSatisfy { !$0.isEmpty && !$0.hasPrefix("{") }, "\(result)")
                #expect(result.status == .exited(69), "\(result)")
            }
        }

        @Test("given a 3D walk when running once then exactly one line, the first fix, is printed and the exit status is 0", .timeLimit(.minutes(1)))
        func oncePrintsTheFirstFix() async throws {
            let log = NMEALog.walk(epochs: 5)
            try await withGPSFake(log) { fake in
                let result = try await fake.run(["once", "--timeout", "30"], feed: .allEpochs)

                #expect(result.status == .exited(0), "\(result)")
                #expect(result.stderr.isEmpty, "\(result)")
                let lines = try result.jsonObjects()
                #expect(lines.count == 1, "\(result)")
                if let line = lines.first { expectTPV(line, isEpoch: 0, of: log, device: fake.devices[0]) }
            }
        }

        @Test("given eph falling from 76 m to 17.1 m when running once --min-accuracy 19 then the first fix with eph <= 19 is printed", .timeLimit(.minutes(1)))
        func onceWaitsForTheBar() async throws {
            let hdops = [4.0, 3.0, 2.0, 1.0, 0.9]  // eph 76, 57, 38, 19, 17.1
            let log = NMEALog.walk(epochs: hdops.count, hdop: { hdops[$0] })
            try await withGPSFake(log) { fake in
                let result = try await fake.run(["once", "--min-accuracy", "19", "--timeout=30"], feed: .allEpochs)

                #expect(result.status == .exited(0), "\(result)")
                let lines = try result.jsonObjects()
                #expect(lines.count == 1, "\(result)")
                if let line = lines.first { expectTPV(line, isEpoch: 3, of: log, device: fake.devices[0]) }
            }
        }

        @Test("given only fixes worse than the bar when running once --timeout 6 then it exits 75 at the timeout with one stderr line and no output", .timeLimit(.minutes(1)))
        func onceTimesOutWith75() async throws {
            let log = NMEALog.walk(epochs: 4, hdop: { _ in 5.0 })  // eph 95 m
            try await withGPSFake(log) { fake in
                // 6 s: gpsd's device probe (about 1 s) and the feed must fit before it, also on a loaded machine.
                let loctrack = try LoctrackProcess.start(["once", "--min-accuracy", "10", "--timeout", "6", fake.sourceArgument])
                try await fake.waitForWatchers()
                fake.feedAll()
                try await fake.waitForReport("the last epoch's TPV") { $0["time"] as? String == log.time(ofEpoch: 3).iso8601 }
                #expect(ContinuousClock.now - loctrack.started < .seconds(6), "the fixes must arrive before the timeout for this test to mean anything")
                let result = try await loctrack.result()

                #expect(result.status == .exited(75), "\(result)")
                #expect(result.stdout.isEmpty, "\(result)")
                #expect(result.stderrLines.count == 1, "\(result)")
                #expect(result.duration >= .seconds(6) && result.duration < .seconds(9), "\(result)")
            }
        }

        @Test("given nothing listens on the port when running once or stream --no-reconnect, 30 times each, then each exits 69 with libgps's reason on one stderr line and no output", .timeLimit(.minutes(1)), arguments: [["once"], ["stream", "--no-reconnect"]])
        func closedPortExits69(arguments: [String]) async throws {
            // 30 runs: a refused connect comes back within microseconds, and a reader that failed
            // before its first consumer was subscribed once ended the iteration without the error
            // ("the stream ended before a fix") in 7% of runs.
            for _ in 0..<30 {
                let refusing = try Loopback.RefusingPort()
                defer { withExtendedLifetime(refusing) {} }  // the port refuses until the test ends
                let port = refusing.port
                let result = try await LoctrackProcess.run(arguments + ["127.0.0.1:\(port)"], timeLimit: .seconds(15))

                #expect(result.status == .exited(69), "\(result)")
                #expect(result.stdout.isEmpty, "\(result)")
                #expect(result.stderrLines == ["loctrack: cannot connect to gpsd at 127.0.0.1:\(port): can't connect to host/port pair"], "\(result)")
            }
        }

        @Test("given nothing listens on the port when streaming (reconnecting by default) then loctrack says so once on stderr, keeps waiting, and exits 0 on SIGINT", .timeLimit(.minutes(1)))
        func closedPortStreamWaits() async throws {
            let refusing = try Loopback.RefusingPort()
            defer { withExtendedLifetime(refusing) {} }  // the port refuses until the test ends
            let loctrack = try LoctrackProcess.start(["stream", "127.0.0.1:\(refusing.port)"])
            try await waitUntil(timeout: .seconds(10), "a line on stderr") { loctrack.stderr?.lineCount ?? 0 >= 1 }
            try await Task.sleep(for: .milliseconds(1_800))  // a few retries (0.5 s, 1 s, …)
            #expect(loctrack.pollTermination() == nil, "loctrack must keep waiting")
            #expect(loctrack.stderr?.lineCount == 1, "one line per outage: \(loctrack.stderr?.text ?? "")")

            loctrack.signal(SIGINT)
            let result = try await loctrack.result(timeLimit: .seconds(10))
            #expect(result.status == .exited(0), "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }

        @Test("given gpsd stops and starts again on the same port when streaming then loctrack reconnects and prints the fixes of both runs exactly", .timeLimit(.minutes(1)))
        func streamReconnectsAfterGPSDRestarts() async throws {
            let before = NMEALog.walk(epochs: 4)
            let after = NMEALog.walk(epochs: 5, start: Timestamp(seconds: NMEALog.defaultStart.seconds + 600))
            let port = try Loopback.freePort()
            let loctrack = try LoctrackProcess.start(["stream", "127.0.0.1:\(port)"])
            try await withGPSFake(before, port: port) { fake in
                try await fake.waitForWatchers()
                try await fake.endLogs()
                try await loctrack.waitForStdoutLines(4)
            }
            try await withGPSFake(after, port: port) { fake in
                try await fake.waitForWatchers(timeout: .seconds(40))  // loctrack's backoff: 0.5 s, 1 s, 2 s, …
                fake.feedAll()
                try await loctrack.waitForStdoutLines(9)
                try await Task.sleep(for: .milliseconds(300))
            }
            loctrack.signal(SIGINT)
            let result = try await loctrack.result(timeLimit: .seconds(10))

            #expect(result.status == .exited(0), "\(result)")
            let lines = try result.jsonObjects()
            #expect(lines.count == 9, "\(result)")
            for (index, line) in lines.prefix(4).enumerated() {
                #expect(line["time"] as? String == before.time(ofEpoch: index).iso8601)
                #expect((line["lat"] as? NSNumber)?.doubleValue == before.epochs[index].expectedLatitude)
            }
            for (index, line) in lines.dropFirst(4).enumerated() {
                #expect(line["time"] as? String == after.time(ofEpoch: index).iso8601)
                #expect((line["lat"] as? NSNumber)?.doubleValue == after.epochs[index].expectedLatitude)
            }
            #expect(!result.stderr.isEmpty, "the outage is reported: \(result)")
        }

        @Test("given a bad command line when running loctrack then it exits 64 with one stderr line and no output", .timeLimit(.minutes(1)), arguments: [
            ["stream", "--bogus"],
            ["once", "--timeout", "soon"],
            ["stream", "--min-accuracy"],
            ["stream", "--format", "xml"],
            ["fly"],
        ])
        func usageErrorsExit64(arguments: [String]) async throws {
            let result = try await LoctrackProcess.run(arguments, timeLimit: .seconds(15))

            #expect(result.status == .exited(64), "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            #expect(result.stderrLines.count == 1, "\(result)")
        }

        @Test("given --help, help once or --version when running loctrack then the text goes to stdout and the exit status is 0", .timeLimit(.minutes(1)), arguments: [
            ["--help"], ["-h"], ["help", "once"], ["stream", "--help"], ["--version"],
        ])
        func helpAndVersion(arguments: [String]) async throws {
            let result = try await LoctrackProcess.run(arguments, timeLimit: .seconds(15))

            #expect(result.status == .exited(0), "\(result)")
            #expect(!result.stdout.isEmpty, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }

        @Test("given a running stream when loctrack gets SIGINT or SIGTERM then it prints every fix it read, each valid JSON, and exits 0", .timeLimit(.minutes(1)), arguments: [SIGINT, SIGTERM])
        func signalEndsStreamGracefully(signal: Int32) async throws {
            let log = NMEALog.walk(epochs: 8)
            try await withGPSFake(log) { fake in
                let loctrack = try LoctrackProcess.start(["stream", fake.sourceArgument])
                try await fake.waitForWatchers()
                fake.feed(epochs: 5)
                try await fake.waitForReport("epoch 4's TPV") { $0["time"] as? String == log.time(ofEpoch: 4).iso8601 }
                try await loctrack.waitForStdoutLines(4)
                try await Task.sleep(for: .milliseconds(300))  // let loctrack read epoch 4 (it may hold it)

                loctrack.signal(signal)
                let result = try await loctrack.result(timeLimit: .seconds(10))

                #expect(result.status == .exited(0), "\(result)")
                #expect(result.stderr.isEmpty, "\(result)")
                let lines = try result.jsonObjects()
                #expect(lines.count == 5, "\(result)")
                for (index, line) in lines.enumerated() {
                    expectTPV(line, isEpoch: index, of: log, device: fake.devices[0])
                }
            }
        }

        @Test("given stdout is a pipe closed after the first line (| head -1) when streaming then loctrack exits 0 without writing to stderr", .timeLimit(.minutes(1)))
        func closedPipeExits0() async throws {
            let log = NMEALog.walk(epochs: 10)
            try await withGPSFake(log) { fake in
                let loctrack = try LoctrackProcess.start(["stream", fake.sourceArgument], stdout: .pipeClosedAfter(lines: 1))
                try await fake.waitForWatchers()
                fake.feed(epochs: 3)
                try await loctrack.waitForStdoutLines(1)
                try await waitUntil(timeout: .seconds(5), "the test to close the pipe") { loctrack.stdout?.ended == true }
                fake.feedAll()  // more fixes: loctrack's next write finds the pipe closed
                let result = try await loctrack.result(timeLimit: .seconds(15))

                #expect(result.status == .exited(0), "\(result)")
                #expect(result.stderr.isEmpty, "\(result)")
                let lines = try result.jsonObjects()
                #expect(lines.count == 1)
                if let line = lines.first { expectTPV(line, isEpoch: 0, of: log, device: fake.devices[0]) }
            }
        }

        @Test("given stdout cannot be written (/dev/full) when streaming then loctrack exits 74 with one stderr line", .timeLimit(.minutes(1)))
        func unwritableOutputExits74() async throws {
            let log = NMEALog.walk(epochs: 4)
            try await withGPSFake(log) { fake in
                let loctrack = try LoctrackProcess.start(["stream", fake.sourceArgument], stdout: .file("/dev/full"))
                try await fake.waitForWatchers()
                fake.feedAll()
                let result = try await loctrack.result(timeLimit: .seconds(15))

                #expect(result.status == .exited(74), "\(result)")
                #expect(result.stderrLines.count == 1, "\(result)")
            }
        }
    }
}

// MARK: - Helpers

/// Checks one `--format json` line against epoch `index` of `log`: gpsd's names and
/// exact values, unknown values left out (never `null`).
func expectTPV(_ line: [String: Any], isEpoch index: Int, of log: NMEALog, device: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let epoch = log.epochs[index]
    func number(_ key: String) -> Double? { (line[key] as? NSNumber)?.doubleValue }
    #expect(!line.values.contains { $0 is NSNull }, "null in \(line)", sourceLocation: sourceLocation)
    #expect(line["class"] as? String == "TPV", sourceLocation: sourceLocation)
    #expect(line["device"] as? String == device, sourceLocation: sourceLocation)
    #expect(line["mode"] as? Int == log.expectedMode(ofEpoch: index)?.rawValue, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(line["status"] as? Int == (epoch.dgps ? 2 : nil), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(line["time"] as? String == log.time(ofEpoch: index).iso8601, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(number("ept") == 0.005, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(number("lat") == epoch.expectedLatitude, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(number("lon") == epoch.expectedLongitude, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(number("altHAE") == log.expectedAltitudeHAE(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(number("altMSL") == log.expectedAltitudeMSL(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(number("eph") == log.expectedHorizontalError(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    #expect(number("sep") == log.expectedSphericalError(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    if log.hasAltitude(epoch: index) {
        #expect(number("epv") == log.expectedVerticalError(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
        #expect(number("geoidSep") == log.expectedGeoidSeparation(ofEpoch: index), "epoch \(index)", sourceLocation: sourceLocation)
    }
    #expect(number("speed") == epoch.expectedSpeed, "epoch \(index)", sourceLocation: sourceLocation)
    #expect(number("track") == epoch.expectedTrack, "epoch \(index)", sourceLocation: sourceLocation)
}
