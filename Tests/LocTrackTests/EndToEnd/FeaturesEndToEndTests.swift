import Foundation
import Glibc
import LocTrack
import LocTrackMonitor
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// The stream filters, `--count`/`--duration`, `stationary`, the output formats
    /// and `once --max-age`/`--timeout`/status line, end to end: the built loctrack
    /// against a real gpsd fed by gpsfake (or, where gpsd cannot produce the input,
    /// a gpsd the test plays on a loopback port, `LoopbackGPSD`). Every format is read
    /// back with a parser that is not loctrack's (`Parsers`: RFC 4180, libxml2, Foundation's JSON).
    @Suite("Features: filters, formats, stationary, once", .serialized, .timeLimit(.minutes(1)))
    struct FeaturesEndToEnd {
        // MARK: - stream filters and --count

        @Test("given a track moving 1.0008 m north per epoch with one inaccurate fix when streaming with --min-distance, --interval, their composition with --min-accuracy, and --count then exactly the expected epochs are printed", .timeLimit(.minutes(1)))
        func filtersAndCount() async throws {
            // eph 19 m everywhere except epoch 3: eph 95 m.
            let log = Tracks.metreSteps(epochs: 16, hdop: { $0 == 3 ? 5.0 : 1.0 })
            try await withGPSFake(log) { fake in
                let source = fake.sourceArgument
                // Distance from the last fix *printed*: 1, 2 (< 2.5), 3 m (printed), … so every 3rd;
                // truncating 2.5 to 2 would print every 2nd, measuring from the last fix seen none.
                let distance = try LoctrackProcess.start(["stream", "--min-distance", "2.5", "--format", "json", "--no-reconnect", source])
                // Receiver time, not wall time: gpsfake sends the 16 epochs in well under a second.
                let interval = try LoctrackProcess.start(["stream", "--interval", "3", "--format", "json", "--no-reconnect", source])
                // Accuracy first: epoch 3 fails it, so it is neither counted nor the distance or interval reference.
                let composed = try LoctrackProcess.start(["stream", "--min-accuracy", "20", "--min-distance", "2.5", "--count", "3", "--format", "json", source])
                let accuracyThenInterval = try LoctrackProcess.start(["stream", "--min-accuracy=20", "--interval=3", "--format=json", "--no-reconnect", source])
                let counted = try LoctrackProcess.start(["stream", "--count", "5", "--format", "json", source])
                try await fake.waitForWatchers(5)
                fake.feedAll()  // gpsd stays up: --count must end the two counted streams by itself
                let composedResult = try await composed.result(timeLimit: .seconds(15))
                let countedResult = try await counted.result(timeLimit: .seconds(15))
                try await fake.endLogs()
                let distanceResult = try await distance.result()
                let intervalResult = try await interval.result()
                let accuracyThenIntervalResult = try await accuracyThenInterval.result()

                for (result, expected) in [
                    (distanceResult, [0, 3, 6, 9, 12, 15]),
                    (intervalResult, [0, 3, 6, 9, 12, 15]),
                    (composedResult, [0, 4, 7]),
                    (accuracyThenIntervalResult, [0, 4, 7, 10, 13]),
                    (countedResult, [0, 1, 2, 3, 4]),
                ] {
                    let lines = try result.jsonObjects()
                    #expect(lines.compactMap { epochIndex(of: $0, in: log) } == expected, "\(result)")
                    #expect(lines.count == expected.count, "\(result)")
                    for (line, index) in zip(lines, expected) {
                        expectTPV(line, isEpoch: index, of: log, device: fake.devices[0])
                    }
                }
                #expect(composedResult.status == .exited(0), "\(composedResult)")
                #expect(composedResult.stderr.isEmpty, "\(composedResult)")
                #expect(countedResult.status == .exited(0), "\(countedResult)")
                #expect(countedResult.stdoutLines.count == 5, "exactly 5 lines: \(countedResult)")
                #expect(countedResult.stderr.isEmpty, "\(countedResult)")
                for result in [distanceResult, intervalResult, accuracyThenIntervalResult] {
                    #expect(result.status == .exited(69), "--no-reconnect at the end of the log: \(result)")
                }
            }
        }

        @Test("given --count with csv and gpx when streaming then N fixes are counted (not header or XML lines) and the output is complete, exit 0", .timeLimit(.minutes(1)))
        func countCountsFixesNotLines() async throws {
            let log = NMEALog.walk(epochs: 10)
            try await withGPSFake(log) { fake in
                let results = try await fake.run(
                    [["stream", "--count", "2", "--format", "csv"], ["stream", "--count", "3", "--format", "gpx"]],
                    feed: .allEpochs, timeLimit: .seconds(15))
                let (csvResult, gpxResult) = (results[0], results[1])

                #expect(csvResult.status == .exited(0), "\(csvResult)")
                let table = try Parsers.csv(csvResult.stdout)
                #expect(table.header == Parsers.csvColumns)
                #expect(table.rows.map { $0["time"] } == (0..<2).map { log.time(ofEpoch: $0).iso8601 }, "\(csvResult)")
                #expect(table.crlfOnly, "RFC 4180 line ends: \(csvResult.stdout.debugDescription)")

                #expect(gpxResult.status == .exited(0), "\(gpxResult)")
                let document = try Parsers.gpx(gpxResult.stdout)
                #expect(document.trackCount == 1)
                #expect(document.segments.count == 1)
                #expect(document.segments.joined().map(\.time) == (0..<3).map { log.time(ofEpoch: $0).iso8601 }, "\(gpxResult)")
            }
        }

        @Test("given a stream with --duration 2 when fixes arrive then it exits 0 after about 2 s with every fix, a GPX document complete", .timeLimit(.minutes(1)))
        func durationEndsTheStream() async throws {
            let log = NMEALog.walk(epochs: 6)
            try await withGPSFake(log) { fake in
                let results = try await fake.run(
                    [["stream", "--duration", "2", "--format", "json"], ["stream", "--duration=2", "--format=gpx"]],
                    feed: .allEpochs, timeLimit: .seconds(10))
                let (jsonResult, gpxResult) = (results[0], results[1])

                for result in [jsonResult, gpxResult] {
                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stderr.isEmpty, "\(result)")
                    // At 2 s, not before; the upper bound tells the duration from the 10 s time limit.
                    #expect(result.duration >= .seconds(2) && result.duration < .seconds(5), "\(result)")
                    print("--duration 2 took \(result.duration)")
                }
                let lines = try jsonResult.jsonObjects()
                #expect(lines.count == 6, "the last epoch too (flushed at the end): \(jsonResult)")
                for (index, line) in lines.enumerated() { expectTPV(line, isEpoch: index, of: log, device: fake.devices[0]) }
                let document = try Parsers.gpx(gpxResult.stdout)
                #expect(document.segments.joined().map(\.time) == (0..<6).map { log.time(ofEpoch: $0).iso8601 }, "\(gpxResult)")
            }
        }

        @Test("given gpsd is not running when streaming (waiting for it) with --duration 1 then loctrack exits 0 after about 1 s", .timeLimit(.minutes(1)))
        func durationEndsAStreamWaitingForGPSD() async throws {
            let refusing = try Loopback.RefusingPort()
            defer { withExtendedLifetime(refusing) {} }  // the port refuses until the test ends
            let result = try await LoctrackProcess.run(["stream", "--duration", "1", "--format", "gpx", "127.0.0.1:\(refusing.port)"], timeLimit: .seconds(10))

            #expect(result.status == .exited(0), "\(result)")
            // At 1 s, not before; the upper bound only tells the duration from the 10 s time limit
            // (starting a process on a loaded machine can take a second or two).
            #expect(result.duration >= .seconds(1) && result.duration < .seconds(5), "\(result)")
            #expect(result.stderrLines.count == 1, "the outage, once: \(result)")
            let document = try Parsers.gpx(result.stdout)
            #expect(document.trackCount == 1 && document.segments.isEmpty, "a complete GPX document without points: \(result)")
        }

        // MARK: - stationary

        @Test("given a receiver that drives, stands still for 7 s and drives on when streaming JSON and iterating Fix values then stationary is true from 3 s after stopping until it moves, false otherwise", .timeLimit(.minutes(1)))
        func stationary() async throws {
            let log = Tracks.driveStopDrive()
            let expected = log.epochs.indices.map { (7...10).contains($0) }
            try await withGPSFake(log) { fake in
                let loctrack = try LoctrackProcess.start(["stream", "--format", "json", "--no-reconnect", fake.sourceArgument])
                let geojson = try LoctrackProcess.start(["stream", "--format", "geojson", "--no-reconnect", fake.sourceArgument])
                let session = GPSDSession(source: fake.source)
                let collector = FixCollector(session.fixes())
                try await fake.waitForWatchers(3)
                try await fake.endLogs()
                let result = try await loctrack.result()
                let geojsonResult = try await geojson.result()
                _ = try await collector.waitForEnd()

                let lines = try result.jsonObjects()
                #expect(lines.count == log.epochs.count, "\(result)")
                #expect(lines.map { $0["stationary"] as? Bool } == expected, "\(result)")
                for (index, line) in lines.enumerated() { expectTPV(line, isEpoch: index, of: log, device: fake.devices[0]) }
                #expect(collector.fixes.map(\.isStationary) == expected)
                #expect(collector.fixes.map(\.time) == log.epochs.indices.map { log.time(ofEpoch: $0) })
                let features = try geojsonResult.jsonObjects()
                #expect(features.map { ($0["properties"] as? [String: Any])?["stationary"] as? Bool } == expected, "\(geojsonResult)")
            }
        }

        // MARK: - formats

        @Test("given 3D, 2D and DGPS fixes when streaming csv, gpx, geojson and json at once then each parses (RFC 4180, libxml2, Foundation's JSON) and carries exactly the JSON stream's values", .timeLimit(.minutes(1)))
        func everyFormatParsesWithTheSameValues() async throws {
            let log = Tracks.mixedQualities()
            try await withGPSFake(log) { fake in
                let results = try await fake.run(["json", "csv", "gpx", "geojson"].map { ["stream", "--format", $0, "--no-reconnect"] })
                let (json, csv, gpx, geojson) = (results[0], results[1], results[2], results[3])

                for result in results {
                    #expect(result.status == .exited(69), "gpsd went away, --no-reconnect: \(result)")
                }
                let objects = try json.jsonObjects()
                #expect(objects.count == log.epochs.count, "\(json)")
                for (index, object) in objects.enumerated() { expectTPV(object, isEpoch: index, of: log, device: fake.devices[0]) }
                #expect(objects.allSatisfy { $0["stationary"] as? Bool == false }, "always present: \(json)")
                let schemaProblems = try Parsers.schemaProblems(json.stdout)
                #expect(schemaProblems.isEmpty, "docs/fix.schema.json: \(schemaProblems)")

                // CSV: header, one row per fix, each cell the JSON value or empty.
                let table = try Parsers.csv(csv.stdout)
                #expect(table.header == Parsers.csvColumns, "\(csv)")
                #expect(table.crlfOnly, "\(csv.stdout.debugDescription)")
                #expect(table.rows.count == objects.count, "\(csv)")
                for (row, object) in zip(table.rows, objects) { expectRow(row, matches: object) }
                // The 2D epochs have no altitude: empty cells, not 0 or NaN.
                #expect(table.rows[4]["altHAE"] == "" && table.rows[4]["altMSL"] == "" && table.rows[4]["mode"] == "2", "\(table.rows[4])")
                #expect(table.rows[7]["status"] == "2", "DGPS: \(table.rows[7])")

                // GPX: one trk, one trkseg (no gap, no loss of fix), ele/time/fix, eph in an extension, no hdop.
                let document = try Parsers.gpx(gpx.stdout)
                #expect(document.root == "{http://www.topografix.com/GPX/1/1}gpx" && document.version == "1.1", "\(gpx)")
                #expect(document.trackCount == 1)
                #expect(document.hdopCount == 0, "gpsd's eph is not a DOP")
                #expect(document.segments.count == 1, "\(gpx)")
                let points = Array(document.segments.joined())
                #expect(points.count == objects.count, "\(gpx)")
                for (index, point) in points.enumerated() {
                    #expect(point.latitude == log.epochs[index].expectedLatitude, "epoch \(index)")
                    #expect(point.longitude == log.epochs[index].expectedLongitude, "epoch \(index)")
                    #expect(point.elevation == log.expectedAltitudeMSL(ofEpoch: index), "<ele> is altMSL: epoch \(index)")
                    #expect(point.time == log.time(ofEpoch: index).iso8601, "epoch \(index)")
                    #expect(point.eph == log.expectedHorizontalError(ofEpoch: index), "epoch \(index)")
                    let fixType = log.epochs[index].dgps ? "dgps" : (log.expectedMode(ofEpoch: index) == .threeD ? "3d" : "2d")
                    #expect(point.fix == fixType, "epoch \(index)")
                }

                // GeoJSON: one Feature per line, a Point at [lon, lat, altHAE], the JSON line as properties.
                let featureProblems = try Parsers.geoJSONProblems(geojson.stdout, comparedWith: json.stdout)
                #expect(featureProblems.isEmpty, "\(featureProblems)\n\(geojson)")
                #expect(geojson.stdoutLines.count == objects.count, "\(geojson)")
            }
        }

        @Test("given a stream in gpx, csv or geojson when loctrack gets SIGINT or SIGTERM mid-stream then the output still parses, starts with everything printed before and holds every fix read", .timeLimit(.minutes(1)), arguments: [SIGINT, SIGTERM])
        func signalLeavesCompleteDocuments(signal: Int32) async throws {
            let log = NMEALog.walk(epochs: 8)
            try await withGPSFake(log) { fake in
                let gpx = try LoctrackProcess.start(["stream", "--format", "gpx", fake.sourceArgument])
                let csv = try LoctrackProcess.start(["stream", "--format", "csv", fake.sourceArgument])
                let geojson = try LoctrackProcess.start(["stream", "--format", "geojson", fake.sourceArgument])
                try await fake.waitForWatchers(3)
                fake.feed(epochs: 5)
                try await fake.waitForReport("epoch 4's TPV") { $0["time"] as? String == log.time(ofEpoch: 4).iso8601 }
                try await waitUntil(timeout: .seconds(10), "4 fixes in each output") {
                    gpx.stdout!.text.components(separatedBy: "<trkpt").count - 1 >= 4
                        && csv.stdout!.lineCount >= 5 && geojson.stdout!.lineCount >= 4
                }
                try await Task.sleep(for: .milliseconds(300))  // let loctrack read epoch 4 (it may hold it)
                let printed = [gpx, csv, geojson].map { $0.stdout!.text }

                for process in [gpx, csv, geojson] { process.signal(signal) }
                let results = [try await gpx.result(timeLimit: .seconds(10)), try await csv.result(timeLimit: .seconds(10)), try await geojson.result(timeLimit: .seconds(10))]

                for (result, before) in zip(results, printed) {
                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stderr.isEmpty, "\(result)")
                    #expect(result.stdout.hasPrefix(before), "what was printed before the signal stays: \(result)")
                }
                let times = (0..<5).map { log.time(ofEpoch: $0).iso8601 }
                let document = try Parsers.gpx(results[0].stdout)
                #expect(document.trackCount == 1 && document.segments.count == 1, "\(results[0])")
                #expect(document.segments.joined().map(\.time) == times, "\(results[0])")
                #expect(document.segments.joined().map(\.latitude) == (0..<5).map { log.epochs[$0].expectedLatitude })
                let table = try Parsers.csv(results[1].stdout)
                #expect(table.header == Parsers.csvColumns)
                #expect(table.rows.map { $0["time"] } == times, "\(results[1])")
                #expect(table.rows.map { $0["lat"].flatMap(Double.init) } == (0..<5).map { log.epochs[$0].expectedLatitude })
                let features = try results[2].jsonObjects()
                #expect(features.map { ($0["properties"] as? [String: Any])?["time"] as? String } == times, "\(results[2])")
            }
        }

        @Test("given a 3 s loss of fix (mode 1 epochs) and later a 13 s one when streaming gpx then each loss of fix starts a new trkseg", .timeLimit(.minutes(1)))
        func gpxNewSegmentAfterLossOfFix() async throws {
            // fixes 0–3, no fix 4–6 (3 s), fixes 7–9, no fix 10–21 (a 13 s gap in fix times), fixes 22–24
            let log = NMEALog.walk(epochs: 25, quality: { (4...6).contains($0) || (10...21).contains($0) ? .noFix : .threeD })
            try await withGPSFake(log) { fake in
                let result = try await fake.run(["stream", "--format", "gpx", "--no-reconnect"])

                #expect(result.status == .exited(69), "\(result)")
                let document = try Parsers.gpx(result.stdout)
                #expect(document.trackCount == 1)
                let segments = document.segments.map { $0.map(\.time) }
                let expected = [[0, 1, 2, 3], [7, 8, 9], [22, 23, 24]].map { $0.map { log.time(ofEpoch: $0).iso8601 } }
                #expect(segments == expected, "\(result)")
            }
        }

        @Test("given a scripted gpsd that sends fixes with a 58 s gap in time and a device named with a comma and quotes when streaming gpx, csv and json then the gap starts a new trkseg and the CSV cell and JSON string give the name back exactly", .timeLimit(.minutes(1)))
        func scriptedGapAndQuoting() async throws {
            let device = #"/dev/odd,"name""#
            let times = ["10:00:00", "10:00:01", "10:00:02", "10:01:00", "10:01:01"].map { "2026-03-01T\($0).000Z" }
            let reports = times.enumerated().map { index, time in
                #"{"class":"TPV","device":"/dev/odd,\"name\"","mode":3,"time":"\#(time)","ept":0.005,"lat":47.3768\#(70 + index)000,"lon":8.541694000,"altHAE":455.4000,"altMSL":408.0000,"epv":34.500,"track":10.0000,"speed":1.200,"climb":0.000,"eph":15.200,"sep":30.400}"#
            }
            let gpsd = try LoopbackGPSD()
            var results: [LoctrackResult] = []
            for (index, format) in ["gpx", "csv", "json"].enumerated() {
                let loctrack = try LoctrackProcess.start(["stream", "--format", format, "--no-reconnect", gpsd.sourceArgument])
                let peer = try await gpsd.peer(index)
                #expect(try await peer.command() == #"?WATCH={"enable":true,"json":true};"#)
                try await peer.send(reports)
                peer.close()
                results.append(try await loctrack.result())
            }
            for result in results { #expect(result.status == .exited(69), "gpsd hangs up after the replay: \(result)") }

            let document = try Parsers.gpx(results[0].stdout)
            #expect(document.segments.map { $0.map(\.time) } == [Array(times[0..<3]), Array(times[3...])], "\(results[0])")
            #expect(document.segments.joined().map(\.elevation) == Array(repeating: 408.0, count: 5))
            #expect(document.segments.joined().map(\.eph) == Array(repeating: 15.2, count: 5))
            let table = try Parsers.csv(results[1].stdout)
            #expect(table.rows.count == 5, "\(results[1])")
            #expect(table.rows.allSatisfy { $0["device"] == device }, "RFC 4180 quoting: \(results[1].stdout)")
            #expect(results[1].stdout.contains(#","/dev/odd,""name""","#), "\(results[1].stdout)")
            let objects = try results[2].jsonObjects()
            #expect(objects.map { $0["device"] as? String } == Array(repeating: device, count: 5), "\(results[2])")
        }

        // MARK: - once

        @Test("given a running gpsd when running once with --format gpx, csv and geojson then each prints one complete document with the first fix", .timeLimit(.minutes(1)))
        func onceInEveryFormat() async throws {
            let log = NMEALog.walk(epochs: 4)
            try await withGPSFake(log) { fake in
                let results = try await fake.run(
                    ["gpx", "csv", "geojson"].map { ["once", "--max-age", "0", "--format", $0] }, feed: .allEpochs, timeLimit: .seconds(15))

                for result in results {
                    #expect(result.status == .exited(0), "\(result)")
                    #expect(result.stderr.isEmpty, "\(result)")
                }
                let document = try Parsers.gpx(results[0].stdout)
                #expect(document.trackCount == 1 && document.segments.count == 1, "\(results[0])")
                #expect(document.segments.joined().map(\.time) == [log.time(ofEpoch: 0).iso8601], "\(results[0])")
                #expect(document.segments.first?.first?.eph == log.expectedHorizontalError(ofEpoch: 0))
                let table = try Parsers.csv(results[1].stdout)
                #expect(table.header == Parsers.csvColumns)
                #expect(table.rows.map { $0["time"] } == [log.time(ofEpoch: 0).iso8601], "\(results[1])")
                let features = try results[2].jsonObjects()
                #expect(features.count == 1, "\(results[2])")
                if let feature = features.first, let properties = feature["properties"] as? [String: Any] {
                    #expect(feature["type"] as? String == "Feature")
                    expectTPV(properties, isEpoch: 0, of: log, device: fake.devices[0])
                    #expect(properties["stationary"] as? Bool == false)
                }
            }
        }

        @Test("given gpsd already has a fix seconds old by its clock when running once --max-age 30 then that fix is printed at once, and once --max-age 0 waits for the next fix", .timeLimit(.minutes(1)))
        func onceMaximumAgeWithAWarmGPSD() async throws {
            // Receiver time close to the system clock, which is gpsd's clock for ?POLL.
            let now = Int64(Date().timeIntervalSince1970)
            let log = NMEALog.walk(epochs: 6, start: Timestamp(seconds: now - 2))
            try await withWarmGPSD(log) { fake in
                let warm = try await LoctrackProcess.run(["once", "--max-age", "30", "--timeout", "10", "--format", "json", fake.sourceArgument], timeLimit: .seconds(15))
                #expect(warm.status == .exited(0), "\(warm)")
                #expect(warm.stderr.isEmpty, "\(warm)")
                let warmLines = try warm.jsonObjects()
                #expect(warmLines.count == 1, "\(warm)")
                if let line = warmLines.first { expectTPV(line, isEpoch: 2, of: log, device: fake.devices[0]) }
                #expect(warm.duration < .seconds(3), "a warm gpsd answers at once: \(warm)")
                print("once --max-age 30 on a warm gpsd took \(warm.duration)")

                let fresh = try LoctrackProcess.start(["once", "--max-age", "0", "--timeout", "10", "--format", "json", fake.sourceArgument])
                try await waitUntil(timeout: .seconds(10), "the third watch") { watches(in: fake) >= 3 }
                try await Task.sleep(for: .milliseconds(500))
                #expect(fresh.pollTermination() == nil, "--max-age 0 must not take gpsd's fix: \(fresh.stdout?.text ?? "")")
                fake.feed(epochs: 2)
                let freshResult = try await fresh.result(timeLimit: .seconds(10))

                #expect(freshResult.status == .exited(0), "\(freshResult)")
                let freshLines = try freshResult.jsonObjects()
                #expect(freshLines.count == 1, "\(freshResult)")
                if let line = freshLines.first { expectTPV(line, isEpoch: 3, of: log, device: fake.devices[0]) }
            }
        }

        @Test("given gpsd's latest fix is months old by gpsd's clock when running once --max-age 3600 then it is not taken and once waits for a new fix", .timeLimit(.minutes(1)))
        func onceIgnoresAStaleFix() async throws {
            let log = NMEALog.walk(epochs: 6)  // 2026-03-01
            try await withWarmGPSD(log) { fake in
                let once = try LoctrackProcess.start(["once", "--max-age", "3600", "--timeout", "10", "--format", "json", fake.sourceArgument])
                try await waitUntil(timeout: .seconds(10), "the second watch") { watches(in: fake) >= 2 }
                try await waitUntil(timeout: .seconds(5), "gpsd to answer the ?POLL") { fake.reportsSent(class: "POLL").count >= 1 }
                try await Task.sleep(for: .milliseconds(300))
                #expect(once.pollTermination() == nil, "a fix months old must not be taken: \(once.stdout?.text ?? "")")
                fake.feed(epochs: 2)
                let result = try await once.result(timeLimit: .seconds(10))

                #expect(result.status == .exited(0), "\(result)")
                let lines = try result.jsonObjects()
                #expect(lines.count == 1, "\(result)")
                if let line = lines.first { expectTPV(line, isEpoch: 3, of: log, device: fake.devices[0]) }
            }
        }

        @Test("given fixes that never meet --min-accuracy 0.1 when running once with stderr a pipe and with stderr a terminal (script(1)) then it exits 75 at the timeout; on the pipe only the one error line, on the terminal a 'waiting for a fix' status line with the best accuracy, erased before the error", .timeLimit(.minutes(1)))
        func onceTimeoutAndStatusLine() async throws {
            // eph 19, 19, 19, 13.3, 38, 19, … m: the best is epoch 3's 13.3 m.
            let log = NMEALog.walk(epochs: 8, hdop: { $0 == 3 ? 0.7 : ($0 == 4 ? 2.0 : 1.0) })
            try await withGPSFake(log) { fake in
                let plain = try LoctrackProcess.start(["once", "--timeout", "1", "--min-accuracy", "0.1", fake.sourceArgument])
                let command = [LoctrackProcess.executablePath, "once", "--timeout", "3", "--min-accuracy", "0.1", fake.sourceArgument].joined(separator: " ")
                // script(1) runs the command on a new pseudo-terminal (stdin, stdout and stderr) and copies what it writes.
                let terminal = try ChildProcess(
                    executable: "/usr/bin/script", arguments: ["script", "--quiet", "--return", "--flush", "--command", command, "/dev/null"],
                    stdin: .null, stdout: .pipe, stderr: .pipe)
                try await fake.waitForWatchers(2)
                fake.feedAll()
                let plainResult = try await plain.result(timeLimit: .seconds(10))
                let terminalResult = try await terminal.result(timeLimit: .seconds(15))

                #expect(plainResult.status == .exited(75), "\(plainResult)")
                #expect(plainResult.stdout.isEmpty, "\(plainResult)")
                #expect(plainResult.stderrLines.count == 1, "one line, no status line: \(plainResult)")
                #expect(!plainResult.stderr.contains("\r") && !plainResult.stderr.contains("\u{1B}") && !plainResult.stderr.contains("waiting"), "\(plainResult.stderr.debugDescription)")
                #expect(plainResult.stderr.hasPrefix("loctrack: "), "\(plainResult)")
                #expect(plainResult.duration >= .seconds(1) && plainResult.duration < .seconds(4), "\(plainResult)")

                let screen = terminalResult.stdout
                #expect(terminalResult.status == .exited(75), "\(terminalResult)")
                #expect(screen.contains("waiting for a fix: "), "\(screen.debugDescription)")
                #expect(screen.contains("best ±13.3 m"), "the best eph seen: \(screen.debugDescription)")
                let erase = "\r\u{1B}[2K"
                if let lastErase = screen.range(of: erase, options: .backwards), let error = screen.range(of: "loctrack: ") {
                    #expect(lastErase.upperBound <= error.lowerBound, "the status line is erased before the error: \(screen.debugDescription)")
                    #expect(!screen[lastErase.upperBound...].contains("waiting"), "\(screen.debugDescription)")
                } else {
                    Issue.record("no erase sequence or no error line: \(screen.debugDescription)")
                }
                #expect(screen.components(separatedBy: "loctrack: ").count == 2, "one error line: \(screen.debugDescription)")
            }
        }
    }
}

// MARK: - Logs

/// NMEA logs for the feature tests, with values chosen so the filters' and the
/// stationary detector's results are known exactly.
enum Tracks {
    /// Due north 9 micro-degrees (1.0008 m on loctrack's sphere) per epoch at 0.977 m/s (1.9 kn).
    static func metreSteps(epochs: Int, hdop: (Int) -> Double) -> NMEALog {
        NMEALog(epochs: (0..<epochs).map { index in
            NMEALog.Epoch(
                latitude: 47.376887 + 0.000009 * Double(index), longitude: 8.541694, altitudeMSL: 408.0 + 0.1 * Double(index),
                speedKnots: 1.9, track: 0.5, hdop: hdop(index))
        })
    }

    /// eph 9.5 m (HDOP 0.5). Epochs 0–4 drive north 108 micro-degrees (12.0 m) per second at
    /// 23.3 kn; 5–10 stand at epoch 4's position (±2 micro-degrees, 0.2 m) at speed 0; 11–13 drive
    /// on. Stationary: epochs 7–10 (3 s after the stop at epoch 4, within 9.5 m of it).
    static func driveStopDrive() -> NMEALog {
        let base = 47.376887
        let step = 0.000108
        return NMEALog(epochs: (0..<14).map { index in
            let latitude: Double
            let moving: Bool
            switch index {
            case 0...4:
                latitude = base + step * Double(index)
                moving = index < 4
            case 5...10:
                latitude = base + step * 4 + 0.000002 * Double(index % 2)
                moving = false
            default:
                latitude = base + step * Double(index - 6)
                moving = true
            }
            return NMEALog.Epoch(
                latitude: latitude, longitude: 8.541694, altitudeMSL: 408.0, speedKnots: moving ? 23.3 : 0, track: 0.5,
                hdop: 0.5, vdop: 1.0, pdop: 1.2)
        })
    }

    /// 3D, then two 2D epochs (gpsd reports the first as 3D without altitude), 3D, and DGPS at epoch 7.
    static func mixedQualities() -> NMEALog {
        let qualities: [NMEALog.Quality] = [.threeD, .threeD, .threeD, .twoD, .twoD, .threeD, .threeD, .threeD, .threeD]
        var epochs = NMEALog.walk(epochs: qualities.count, quality: { qualities[$0] }).epochs
        epochs[7].dgps = true
        return NMEALog(epochs: epochs)
    }
}

/// The epoch of `log` whose time a JSON line has.
private func epochIndex(of line: [String: Any], in log: NMEALog) -> Int? {
    log.epochs.indices.first { log.time(ofEpoch: $0).iso8601 == line["time"] as? String }
}

/// Waits until gpsd has sent epoch `index`'s TPV with its altitude: the report after the
/// epoch's GGA, gpsd's last for it. (Under load gpsd sometimes also reports an epoch after
/// its RMC, without altitude; a client that connects between the two would get the second
/// one live, and a `?POLL` would be answered with the incomplete state.)
private func waitForCompleteEpoch(_ index: Int, of log: NMEALog, in fake: GPSFake) async throws {
    try await fake.waitForReport("epoch \(index)'s complete TPV") {
        $0["time"] as? String == log.time(ofEpoch: index).iso8601 && $0["altHAE"] != nil
    }
}

/// gpsd with epochs 0–2 of `log` sent (epoch 2 complete) to a `stream` that keeps its device
/// open, for `body`: a warm gpsd, whose latest fix a `?POLL` gets. The stream is stopped after.
private func withWarmGPSD(_ log: NMEALog, _ body: (GPSFake) async throws -> Void) async throws {
    try await withGPSFake(log) { fake in
        let primer = try LoctrackProcess.start(["stream", "--format", "json", fake.sourceArgument])  // makes gpsd open the device
        try await fake.waitForWatchers()
        fake.feed(epochs: 3)
        try await waitForCompleteEpoch(2, of: log, in: fake)
        try await body(fake)
        primer.signal(SIGTERM)
        _ = try await primer.result(timeLimit: .seconds(10))
    }
}

/// How many `?WATCH={"enable":true…}` gpsd has received so far.
private func watches(in fake: GPSFake) -> Int {
    fake.commandsReceived.filter { $0.contains("?WATCH=") && $0.contains("\"enable\":true") }.count
}

/// Checks one CSV row against the JSON line of the same fix: each cell is the JSON
/// value (numbers equal as parsed), empty where the JSON leaves the field out.
private func expectRow(_ row: [String: String], matches object: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(row["time"] == object["time"] as? String, sourceLocation: sourceLocation)
    #expect(row["device"] == object["device"] as? String, sourceLocation: sourceLocation)
    #expect(row["mode"].flatMap { Int($0) } == object["mode"] as? Int, sourceLocation: sourceLocation)
    #expect(row["status"].flatMap { Int($0) } == (object["status"] as? Int ?? 1), "\(row)", sourceLocation: sourceLocation)
    for key in ["lat", "lon", "altHAE", "altMSL", "eph", "epx", "epy", "epv", "speed", "track", "climb"] {
        let value = (object[key] as? NSNumber)?.doubleValue
        if let value {
            #expect(row[key].flatMap { Double($0) } == value, "\(key) in \(row)", sourceLocation: sourceLocation)
        } else {
            #expect(row[key] == "", "\(key) is unknown: an empty cell in \(row)", sourceLocation: sourceLocation)
        }
    }
    #expect(row["stationary"] == ((object["stationary"] as? Bool) == true ? "true" : "false"), "\(row)", sourceLocation: sourceLocation)
}
