@testable import LocTrack
import LocTrackTestSupport
import Testing
import LocTrackSystem

/// The reader thread and a session against a gpsd the test plays over a socketpair
/// (`Support/SocketpairGPSD.swift`): the process-free cases of scripts/faults
/// (framing.py, not_gpsd.py, device.py) in milliseconds.
@Suite("Reader against a scripted gpsd", .timeLimit(.minutes(1)))
struct ReaderTests {
    static let source = GPSDSource(host: "scripted", port: "2947")
    /// A held epoch waits 50 ms. The other limits are long, so a test that is slow to play
    /// gpsd on a busy machine does not hit them; the tests of a limit set it short.
    static let timings = ReaderTimings(
        banner: .seconds(20), quietFlush: .milliseconds(50), silence: .seconds(10), connect: .seconds(20),
        unwatchReply: .milliseconds(50))

    static func timings(_ change: (inout ReaderTimings) -> Void) -> ReaderTimings {
        var timings = Self.timings
        change(&timings)
        return timings
    }
    static let backoff = ReconnectPolicy.backoff(initialDelay: .milliseconds(5), maximumDelay: .milliseconds(20))
    static let watch = #"?WATCH={"enable":true,"json":true};"#
    static let unwatch = #"?WATCH={"enable":false};"#
    static let connected = GPSDEvent.status(.connected(source, release: "3.22"))

    static func session(
        _ gpsd: SocketpairGPSD, device: String? = nil, reconnect: ReconnectPolicy = .never, timings: ReaderTimings = timings
    ) -> GPSDSession {
        GPSDSession(source: GPSDSource(host: source.host, port: source.port, device: device), reconnectPolicy: reconnect,
                    reportsSatellites: false, connector: gpsd, timings: timings)
    }

    /// Takes the `?WATCH` and answers as gpsd does: the banner, then the preamble.
    static func greet(_ peer: Peer) async throws {
        #expect(try await peer.command() == watch)
        try await peer.send([Peer.banner] + Reports.preamble())
    }

    static func fixes(_ epochs: some Sequence<Int>) -> [GPSDEvent] { epochs.map { .fix(Reports.fix($0)) } }
}

// MARK: Connecting and greeting

extension ReaderTests {
    @Test("given a session when it connects then it sends ?WATCH, and on finish ?WATCH off, reads up to gpsd's reply, then closes")
    func watchAndUnwatch() async throws {
        let gpsd = SocketpairGPSD()
        // Waiting 30 s for the reply: an end within the test's 20 s came from the reply.
        let session = Self.session(gpsd, device: "/dev/ttyACM0", timings: Self.timings { $0.unwatchReply = .seconds(30) })
        var recorder = Recorder(session)
        let peer = try await gpsd.peer()
        #expect(try await peer.command() == #"?WATCH={"enable":true,"json":true,"device":"/dev/ttyACM0"};"#)
        try await peer.send([Peer.banner] + Reports.preamble())
        try await recorder.read { $0.events.count >= 1 }
        #expect(recorder.events == [.status(.connected(GPSDSource(host: "scripted", port: "2947", device: "/dev/ttyACM0"), release: "3.22"))])

        session.finish()
        #expect(try await peer.command() == Self.unwatch)
        // Reports gpsd had queued, then its reply, as gpsd 3.25 writes it.
        try await peer.send(Reports.tpv(0), Reports.tpv(1), #"{"class":"WATCH","enable":false,"json":false,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#)
        try await peer.waitForEndOfFile()
        try await recorder.readToEnd()
        #expect(recorder.ended && recorder.failure == nil)
        #expect(recorder.fixes.isEmpty, "what came after the unwatch was read and dropped")
        #expect(gpsd.attempts == 1)
    }

    @Test("given a gpsd that never answers the unwatch when the session finishes then the reader closes after the grace, not before")
    func unwatchWithoutReply() async throws {
        let gpsd = SocketpairGPSD()
        let session = Self.session(gpsd, timings: Self.timings { $0.unwatchReply = .milliseconds(300) })
        var recorder = Recorder(session)
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await recorder.read { $0.events.count >= 1 }
        let finished = ContinuousClock.now
        session.finish()
        #expect(try await peer.command() == Self.unwatch)
        // Not the reply. Written only if the reader still listens: on a loaded machine this
        // task may run again after the grace, when the reader has closed.
        _ = peer.writeIfPossible(Array((Reports.tpv(0) + "\n").utf8))
        try await peer.waitForEndOfFile()
        #expect(ContinuousClock.now - finished >= .milliseconds(300))
        try await recorder.readToEnd()
        #expect(recorder.ended && recorder.failure == nil)
    }

    @Test("given a peer that never sends a VERSION banner when connected then the iteration throws notGPSD")
    func silentPeerIsNotGPSD() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd, timings: Self.timings { $0.banner = .milliseconds(100) }))
        let peer = try await gpsd.peer()
        #expect(try await peer.command() == Self.watch)
        try await recorder.readToEnd()
        #expect(recorder.events.isEmpty)
        #expect(recorder.failure == LocTrackError(.notGPSD, source: Self.source, reason: "no VERSION banner within 100 ms"))
        #expect(recorder.failure?.description == "gpsd at scripted:2947 is not gpsd: no VERSION banner within 100 ms")
        try await peer.waitForEndOfFile()
    }

    @Test("given a peer that talks NMEA but never sends VERSION when connected then its lines are skipped and it is notGPSD")
    func chattyPeerIsNotGPSD() async throws {
        let gpsd = SocketpairGPSD()
        let nmea = "$GPGGA,213121.000,4404.1295864,N,12118.8685453,W,2,07,1.2,1102.537,M,-20.300,M,,0000*5F\r"
        // A line every 10 ms until loctrack hangs up: data keeps arriving, never a banner.
        gpsd.plan(.chatter(nmea, every: .milliseconds(10)))
        var recorder = Recorder(Self.session(gpsd, timings: Self.timings { $0.banner = .milliseconds(300) }))
        try await recorder.readToEnd()
        #expect(recorder.failure == LocTrackError(.notGPSD, source: Self.source, reason: "no VERSION banner within 300 ms"))
        #expect(recorder.fixes.isEmpty)
        #expect(!recorder.statuses.isEmpty)
        let excerpt = String(nmea.dropLast().prefix(80)) + "…"  // the CR is not part of the line
        #expect(recorder.statuses.allSatisfy { $0 == .skippedReport(reason: "not a gpsd report", excerpt: excerpt) })
        try await gpsd.peer().waitForEndOfFile()
    }

    @Test("given a peer that accepts and closes without a banner when connected then notGPSD says so")
    func acceptAndCloseIsNotGPSD() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        #expect(try await peer.command() == Self.watch)
        peer.close()
        try await recorder.readToEnd()
        #expect(recorder.failure == LocTrackError(.notGPSD, source: Self.source, reason: "closed before sending a VERSION banner"))
    }

    @Test("given a connect that blocks past the deadline when connecting then the iteration throws cannotConnect, and the late connection is closed")
    func connectTimeout() async throws {
        let gpsd = SocketpairGPSD()
        gpsd.plan(.block)
        var recorder = Recorder(Self.session(gpsd, timings: Self.timings { $0.connect = .milliseconds(100) }))
        try await recorder.readToEnd()
        #expect(recorder.failure == LocTrackError(.cannotConnect, source: Self.source, reason: "no answer within 100 ms"))
        #expect(gpsd.blockedConnects == 1)
        // The abandoned attempt's connect() returns at last: it closes the connection itself.
        gpsd.releaseBlockedConnects()
        let late = try await gpsd.peer()
        try await late.waitForEndOfFile()
    }

    @Test("given a connect that blocks when finish() is called then the iteration ends at once, without error")
    func finishDuringBlockedConnect() async throws {
        let gpsd = SocketpairGPSD()
        gpsd.plan(.block)
        // A connect deadline the test would notice: ending by the deadline throws cannotConnect after 30 s.
        let session = Self.session(gpsd, timings: Self.timings { $0.connect = .seconds(30) })
        let consumer = Task {
            var recorder = Recorder(session)
            try await recorder.readToEnd(within: .seconds(10))
            return recorder.outcome
        }
        try await gpsd.waitForBlockedConnect()
        session.finish()
        let outcome = try await consumer.value(within: .seconds(15), "the consumer")
        #expect(outcome.ended)
        #expect(outcome.failure == nil)
        #expect(outcome.events.isEmpty)
        gpsd.releaseBlockedConnects()
        try await gpsd.peer().waitForEndOfFile()
    }

    @Test("given gpsd answers the watch with an ERROR when reconnecting is on then it is not retried: gpsdError is thrown")
    func errorReplyIsNotRetried() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd, device: "/dev/nope", reconnect: Self.backoff))
        let peer = try await gpsd.peer()
        #expect(try await peer.command() == #"?WATCH={"enable":true,"json":true,"device":"/dev/nope"};"#)
        try await peer.send(Peer.banner, #"{"class":"ERROR","message":"No such device as /dev/nope"}"#)
        try await recorder.readToEnd()
        let source = GPSDSource(host: "scripted", port: "2947", device: "/dev/nope")
        #expect(recorder.events == [.status(.connected(source, release: "3.22"))])
        #expect(recorder.failure == LocTrackError(.gpsdError, source: source, reason: "No such device as /dev/nope"))
        #expect(gpsd.attempts == 1)
    }
}

// MARK: Framing and malformed input

extension ReaderTests {
    @Test("given half a TPV, then the rest when written later then they are joined into one fix with exact values")
    func partialLineIsJoined() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        let line = Reports.tpv(0)
        let half = line.utf8.count / 2
        // The garbage line's status shows that the reader has read this write, half line included.
        try await peer.write("garbage\n" + String(line.utf8.prefix(half))!)
        try await recorder.read { $0.statuses.contains { $0.skippedReason != nil } }
        #expect(recorder.fixes.isEmpty)
        try await peer.write(String(line.utf8.dropFirst(half))! + "\n")
        try await recorder.read { $0.fixes.count >= 1 }
        #expect(recorder.events == [
            Self.connected, .status(.skippedReport(reason: "not a gpsd report", excerpt: "garbage")), .fix(Reports.fix(0)),
        ])
    }

    @Test("given 50 reports in one write when read then every fix comes, in order, in few batches")
    func burstComesInFewBatches() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await recorder.read { $0.events.count >= 1 }
        try await peer.send((0..<50).map { Reports.tpv($0) })
        try await recorder.read { $0.fixes.count >= 50 }
        #expect(recorder.events == [Self.connected] + Self.fixes(0..<50))
        let fixBatches = recorder.batches.map { $0.filter { $0.fix != nil }.count }.filter { $0 > 0 }
        #expect(fixBatches.max()! > 1, "batches: \(fixBatches)")
        #expect(fixBatches.count <= 5, "batches: \(fixBatches)")
    }

    @Test("given malformed lines between good TPVs when read then each is skipped and reported in order, and every good TPV is a fix")
    func malformedLinesAreSkipped() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        let time = Reports.time(1000).iso8601
        let cases: [(line: [UInt8], reason: String?)] = [
            (Array(#"{"class":"TPV","device":"/dev/case0","mode":3,"time":"\#(time)","lat":38.5,"lon":-122"#.utf8), "truncated report"),
            (Array("/dev/case1 ".utf8) + [0xFF, 0xFE, 0x00] + Array("garbage {{{".utf8), "not a gpsd report"),
            // libgps 3.22 loops forever on these two; the first is not even a report.
            (Array(#"{="class":"TPV","device":"/dev/case2""#.utf8), "not a gpsd report"),
            // Valid JSON: the nested member is dropped, leaving a TPV without a fix, which is not reported.
            (Array(#"{"class":"TPV","device":"/dev/case3","a":[{"class":"GST"}]}"#.utf8), nil),
            (Array(#"{"class":"TPV","class":"DEVICE","path":"/dev/case4","mode":3,"lat":38.5,"lon":-122.5}"#.utf8), "not a well-formed JSON object"),
            (Array(#"{"class":"FOO","device":"/dev/case5","mode":3,"lat":38.5,"lon":-122.5}"#.utf8), "unknown report class"),
            (Array(#"{"class":"TPV","device":"/dev/case6","mode":3,"time":"\#(time)","lat":123.0,"lon":-122.5}"#.utf8), "TPV without a usable position or time"),
            (Array(#"{"class":"TPV","device":"/dev/case7","mode":3,"time":"\#(time)","lat":38.5,"lon":-122.5}xyz"#.utf8), "truncated report"),
            (Array(#"{"class":"TPV","device":"/dev/case8","mode":3,"time":"yesterday","lat":38.5,"lon":-122.5}"#.utf8), "TPV without a usable position or time"),
            (Array(#"{"class":"GST","device":"/dev/ttyACM0","time":"2025-01-01T00:00:00.000Z","rms":2.0,"lat":1.5,"lon":1.6}"#.utf8), nil),
        ]
        var bytes: [UInt8] = []
        for (k, bad) in cases.enumerated() {
            bytes += Array((Reports.tpv(k) + "\n").utf8) + bad.line + [0x0A]
        }
        bytes += Array((Reports.tpv(cases.count) + "\n").utf8)
        try await peer.write(bytes)

        let reported = cases.filter { $0.reason != nil }
        try await recorder.read { $0.fixes.count > cases.count && $0.statuses.count > reported.count }
        #expect(recorder.fixes == (0...cases.count).map { Reports.fix($0) })
        let expectedStatuses = reported.map { bad -> GPSDStatus in
            let excerpt = String(decoding: bad.line.prefix(80), as: UTF8.self) + (bad.line.count > 80 ? "…" : "")
            return .skippedReport(reason: bad.reason!, excerpt: excerpt)
        }
        #expect(recorder.statuses == [.connected(Self.source, release: "3.22")] + expectedStatuses)
        #expect(recorder.statuses[2] == .skippedReport(reason: "not a gpsd report", excerpt: "/dev/case1 \u{FFFD}\u{FFFD}\u{0}garbage {{{"))
    }

    @Test("given lines longer than 64 KiB when read then each is reported once and the stream goes on")
    func overlongLinesAreReportedOnce() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 100_000)
        let longer = (0..<200_000).map { UInt8(65 + ($0 * 7) % 26) }
        var bytes = Array((Reports.tpv(0) + "\n").utf8) + long + [0x0A]
        bytes += Array((Reports.tpv(1) + "\n").utf8) + longer + [0x0A]
        bytes += Array(([Reports.tpv(2), Reports.tpv(3)].joined(separator: "\n") + "\n").utf8)
        try await peer.write(bytes)
        try await recorder.read { $0.fixes.count >= 4 }
        let overlong = GPSDStatus.skippedReport(reason: "a line longer than 65536 bytes", excerpt: "")
        #expect(recorder.fixes == (0..<4).map { Reports.fix($0) })
        // In order with the fixes: each epoch is held until the next TPV (gpsd is still
        // learning the receiver), so fix 0 comes out after the first long line, which
        // ended after it, and fix 1 after the second.
        let fix = { (index: Int) in GPSDEvent.fix(Reports.fix(index)) }
        #expect(recorder.events == [Self.connected, .status(overlong), fix(0), .status(overlong), fix(1), fix(2), fix(3)])
    }
}

// MARK: Epochs and time

extension ReaderTests {
    @Test("given an epoch gpsd sent twice when nothing follows then its last report is delivered after the quiet time")
    func heldEpochIsFlushedWhenQuiet() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await recorder.read { $0.events.count >= 1 }
        // Taken before the write: the reader reads the epoch after it, and holds it for the
        // quiet time (50 ms) from then, so the fix cannot come sooner than 50 ms from here
        // however the test's thread is scheduled.
        let written = ContinuousClock.now
        try await peer.send(Reports.tpv(0, mode: 2), Reports.tpv(0))
        try await recorder.read { $0.fixes.count >= 1 }
        #expect(ContinuousClock.now - written >= .milliseconds(50))  // held for the quiet time, not sent at once
        #expect(recorder.events == [Self.connected, .fix(Reports.fix(0))])
    }

    @Test("given an NMEA epoch as gpsd 3.25 sends it (a TPV after RMC, GSA and GGA) when asking for the first fix then it is GGA's whole fix, before the epoch ends")
    func firstFixWaitsForTheWholeFixOfTheEpoch() async throws {
        let gpsd = SocketpairGPSD()
        // The epoch is held for 30 s: a fix taken in time was taken from its reports.
        let session = Self.session(gpsd, timings: Self.timings { $0.quietFlush = .seconds(30) })
        let rmc = #"{"class":"TPV","device":"\#(Reports.device)","mode":2,"time":"\#(Reports.time(0).iso8601)","lat":\#(Reports.latitude(0)),"lon":\#(Reports.longitude(0)),"track":44.125,"speed":1.5}"#
        let gsa = Reports.tpv(0, mode: 2).replacing(#""mode":2"#, with: #""mode":3"#)
        async let first = session.firstFix(timeout: .seconds(20), maximumAge: nil)
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send(rmc, gsa, Reports.tpv(0))
        let fix = try await first
        #expect(fix == Reports.fix(0))
        #expect(fix.mode == .threeD && fix.altitudeMSL == 83.25 && fix.horizontalError == 2.75)
        session.finish()
    }

    @Test("given an RTK receiver's TPV with its baseline and DGPS age and station when read then the fix carries them, the baseline where libgps reads it (3.23 on)")
    func rtkFieldsAreCarried() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        let rtk = Reports.tpv(0).replacing(#","eph":"#, with: #","relN":-1.234,"relE":5.678,"relD":0.125,"relH":102.5,"relL":5.816,"dgpsAge":1.5,"dgpsSta":136,"eph":"#)
        try await peer.send(rtk, Reports.tpv(1))  // the next epoch ends the first
        try await recorder.read { $0.fixes.count >= 1 }
        let fix = try #require(recorder.fixes.first)
        #expect(fix.dgpsAge == 1.5 && fix.dgpsStation == 136)
        let baseline = Fix.RelativePosition(north: -1.234, east: 5.678, down: 0.125, heading: 102.5, length: 5.816)
        #expect(fix.relativePosition == (TPVReport.readsRelativePositions ? baseline : nil))
        #expect(fix.latitude == Reports.fix(0).latitude && fix.horizontalError == 2.75)
    }

    @Test("given a held epoch when finish() is called then it is delivered and the iteration ends")
    func finishDeliversHeldEpoch() async throws {
        let gpsd = SocketpairGPSD()
        let session = Self.session(gpsd, timings: Self.timings { $0.quietFlush = .seconds(30) })
        var recorder = Recorder(session)
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send(Reports.tpv(0), "marker")  // the marker's status shows that the TPV was read
        try await recorder.read { $0.statuses.count >= 2 }
        #expect(recorder.fixes.isEmpty)
        session.finish()
        try await recorder.readToEnd()
        #expect(recorder.ended && recorder.failure == nil)
        #expect(recorder.events == [
            Self.connected, .status(.skippedReport(reason: "not a gpsd report", excerpt: "marker")), .fix(Reports.fix(0)),
        ])
    }

    @Test("given fixes then silence when read then noFixes is reported, and fixesResumed when fixes return")
    func silenceAndResumption() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd, timings: Self.timings { $0.silence = .milliseconds(200) }))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send((0..<4).map { Reports.tpv($0) })
        try await recorder.read { $0.statuses.count >= 2 }
        guard case .noFixes = recorder.statuses.last else {
            Issue.record("expected noFixes after the silence, got \(recorder.events)")
            return
        }
        try await peer.send(Reports.tpv(4))
        try await recorder.read { $0.statuses.count >= 3 }
        // Epochs 3 and 4 are sent at once (steady), so each came before the status that follows it.
        let events = recorder.events
        #expect(Array(events.prefix(5)) == [Self.connected] + Self.fixes(0..<4))
        #expect(Array(events.dropFirst(6).prefix(2)) == [.fix(Reports.fix(4)), .status(.fixesResumed)])
    }

    @Test("given fixes then a TPV without a fix, twice, when read then fixLost is reported once")
    func lossOfFixIsReportedOnce() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send(Reports.tpv(0), Reports.tpv(1), Reports.noFix(), Reports.noFix(), Reports.tpv(5))
        try await recorder.read { $0.fixes.count >= 3 }
        #expect(recorder.events == [
            Self.connected, .fix(Reports.fix(0)), .fix(Reports.fix(1)), .status(.fixLost(device: Reports.device)), .fix(Reports.fix(5)),
        ])
    }

    @Test("given gpsd reports its device lost twice when read then deviceLost is reported once, and again after it came back")
    func deviceLostIsReportedOncePerLoss() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        let lost = Reports.deviceLine(activated: false)
        try await peer.send(lost, lost, Reports.deviceLine(activated: true), lost, "marker")
        try await recorder.read { $0.statuses.contains { $0.skippedReason != nil } }
        #expect(recorder.statuses == [
            .connected(Self.source, release: "3.22"), .deviceLost(Reports.device), .deviceLost(Reports.device),
            .skippedReport(reason: "not a gpsd report", excerpt: "marker"),
        ])
    }
}

// MARK: Losing gpsd

extension ReaderTests {
    @Test("given gpsd closes the connection when reconnecting is off then every fix comes, then connectionLost is thrown")
    func hangUpThrowsConnectionLost() async throws {
        let gpsd = SocketpairGPSD()
        var recorder = Recorder(Self.session(gpsd))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send((0..<3).map { Reports.tpv($0) })
        peer.close()
        try await recorder.readToEnd()
        #expect(recorder.events == [Self.connected] + Self.fixes(0..<3))
        #expect(recorder.failure == LocTrackError(.connectionLost, source: Self.source, reason: "gpsd closed the connection"))
        #expect(gpsd.attempts == 1)
    }

    @Test("given gpsd closes the connection when reconnecting with backoff then waiting is reported, it reconnects and no epoch comes twice")
    func reconnectsAfterHangUp() async throws {
        let gpsd = SocketpairGPSD()
        let session = Self.session(gpsd, reconnect: Self.backoff)
        var recorder = Recorder(session)
        let first = try await gpsd.peer(0)
        try await Self.greet(first)
        try await first.send((0..<5).map { Reports.tpv($0) })
        first.close()
        // The restarted gpsd repeats the last epochs it had sent.
        let second = try await gpsd.peer(1)
        try await Self.greet(second)
        try await second.send((3..<9).map { Reports.tpv($0) })
        try await recorder.read { $0.fixes.count >= 9 }
        session.finish()
        try await recorder.readToEnd()

        let events = recorder.events
        #expect(recorder.ended && recorder.failure == nil)
        #expect(recorder.fixes == (0..<9).map { Reports.fix($0) })
        let waitingIndex = events.firstIndex { if case .status(.waiting) = $0 { true } else { false } }
        #expect(waitingIndex == 6, "events: \(events)")
        if let waitingIndex, case .status(.waiting(let error, let delay)) = events[waitingIndex] {
            #expect(error == LocTrackError(.connectionLost, source: Self.source, reason: "gpsd closed the connection"))
            #expect(delay >= .milliseconds(2) && delay <= .milliseconds(5))  // half to all of the 5 ms first step
            #expect(Array(events[..<waitingIndex]) == [Self.connected] + Self.fixes(0..<5))
            #expect(Array(events[(waitingIndex + 1)...]) == [Self.connected] + Self.fixes(5..<9))
        }
        #expect(gpsd.attempts == 2)
    }

    @Test("given gpsd is not listening yet when reconnecting with backoff then waiting is reported and the fixes come once it is")
    func retriesARefusedConnect() async throws {
        let gpsd = SocketpairGPSD()
        gpsd.plan(.refuse("connection refused"), .refuse("connection refused"))
        var recorder = Recorder(Self.session(gpsd, reconnect: Self.backoff))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send(Reports.tpv(0), Reports.tpv(1))
        try await recorder.read { $0.fixes.count >= 2 }
        let refused = LocTrackError(.cannotConnect, source: Self.source, reason: "connection refused")
        let waits = recorder.statuses.compactMap { if case .waiting(let error, _) = $0 { error } else { nil } }
        #expect(waits == [refused, refused])
        #expect(Array(recorder.events.suffix(3)) == [Self.connected] + Self.fixes(0..<2))
        #expect(gpsd.attempts == 3)
    }
}

// MARK: Consumers

extension ReaderTests {
    @Test("given a consuming task when it is cancelled then its iteration returns nil and the connection closes")
    func cancellingTheConsumerEndsTheIteration() async throws {
        let gpsd = SocketpairGPSD()
        // Epoch 1 stays held however slow the test is: a cancelled consumer wants nothing more.
        let session = Self.session(gpsd, timings: Self.timings { $0.quietFlush = .seconds(30) })
        let gotFirstFix = Flag()
        let consumer = Task {
            var recorder = Recorder(session)
            try await recorder.read { $0.fixes.count >= 1 }
            gotFirstFix.set()
            try await recorder.readToEnd(within: .seconds(10))
            return recorder.outcome
        }
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send(Reports.tpv(0), Reports.tpv(1))
        _ = try await eventually("the first fix", within: .seconds(5)) { gotFirstFix.isSet ? true : nil }
        consumer.cancel()
        let outcome = try await consumer.value(within: .seconds(15), "the consumer")
        #expect(outcome.ended && outcome.failure == nil)
        #expect(outcome.fixes == [Reports.fix(0)])
        #expect(try await peer.command() == Self.unwatch)
        try await peer.waitForEndOfFile()
    }

    @Test("given a consumer asking for the latest fix when gpsd answers ?POLL then the fresh polled fix comes first, stale and future ones never")
    func pollReplyComesFirst() async throws {
        let gpsd = SocketpairGPSD()
        let session = Self.session(gpsd)
        var recorder = Recorder(session, session.events(startingWithLatestNoOlderThan: .seconds(2)))
        let peer = try await gpsd.peer()
        #expect(try await peer.command() == Self.watch)
        #expect(try await peer.command() == "?POLL;")
        let now = Reports.time(100)
        let fresh = Timestamp(seconds: now.seconds, nanoseconds: -500_000_000)
        let reply = Reports.pollReply(time: now, tpvs: [
            Reports.tpv(1, device: "/dev/stale", time: Timestamp(seconds: now.seconds - 10)),
            Reports.tpv(99, time: fresh),
            Reports.tpv(2, device: "/dev/future", time: Timestamp(seconds: now.seconds + 5)),
        ])
        try await peer.send([Peer.banner] + Reports.preamble() + [reply, Reports.tpv(101), Reports.tpv(102)])
        try await recorder.read { $0.fixes.count >= 3 }
        #expect(recorder.events == [Self.connected, .fix(Reports.fix(99, time: fresh))] + Self.fixes(101...102))
    }

    @Test("given a bufferingNewest(1) consumer busy with a fix when newer fixes arrive then the newest is the next it gets")
    func bufferingNewestKeepsTheLatestForABusyConsumer() async throws {
        let gpsd = SocketpairGPSD()
        let session = Self.session(gpsd)
        var latest = Recorder(session, session.fixes(bufferingPolicy: .bufferingNewest(1)).events)
        var observer = Recorder(session)  // shows when the reader has handed fixes on
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send((0..<4).map { Reports.tpv($0) })
        try await observer.read { $0.fixes.count >= 4 }
        try await latest.read { $0.fixes.count >= 1 }
        #expect(latest.fixes == [Reports.fix(3)])
        // It holds that fix (its iterator has not asked again) while three more arrive.
        try await peer.send((4..<7).map { Reports.tpv($0) })
        try await observer.read { $0.fixes.count >= 7 }
        try await latest.read(within: .seconds(2)) { $0.fixes.count >= 2 }
        #expect(latest.fixes == [Reports.fix(3), Reports.fix(6)])
    }

    @Test("given two consumers of one session when gpsd sends fixes then both get every fix over one connection")
    func twoConsumersShareOneConnection() async throws {
        let gpsd = SocketpairGPSD()
        let session = Self.session(gpsd)
        var events = Recorder(session)
        var fixes = Recorder(session, AsyncGPSDEventSequence(session: session, options: SubscriberOptions(includesStatuses: false)))
        let peer = try await gpsd.peer()
        try await Self.greet(peer)
        try await peer.send((0..<3).map { Reports.tpv($0) })
        try await events.read { $0.fixes.count >= 3 }
        try await fixes.read { $0.fixes.count >= 3 }
        #expect(events.events == [Self.connected] + Self.fixes(0..<3))
        #expect(fixes.events == Self.fixes(0..<3))
        #expect(gpsd.attempts == 1)
    }
}
