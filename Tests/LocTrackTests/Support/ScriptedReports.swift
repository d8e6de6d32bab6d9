@testable import LocTrack
import Synchronization
import LocTrackSystem
@testable import LocTrackFormats
@testable import LocTrackSinks

/// gpsd 3.22's reports as the scripted gpsds send them (after scripts/faults/reports.py),
/// and the fix loctrack must make of each TPV.
///
/// Epoch k is at 2025-01-01T00:00:00Z + k s with a position of its own. Every number is
/// a binary fraction (k/64, 2.75, …), so the expected `Double`s are exact whatever
/// decimal-to-binary conversion libgps uses.
enum Reports {
    static let device = "/dev/ttyACM0"
    static let baseTime: Int64 = 1_735_689_600

    static func time(_ k: Int) -> Timestamp { Timestamp(seconds: baseTime + Int64(k)) }

    /// What gpsd sends after `?WATCH`, before its first report.
    static func preamble(device: String = device) -> [String] {
        [
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"\#(device)","driver":"u-blox","activated":"2025-01-01T00:00:00.000Z","flags":1,"native":1,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00,"mincycle":0.02}]}"#,
            #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#,
            deviceLine(device, activated: true),
        ]
    }

    static func deviceLine(_ device: String = device, activated: Bool) -> String {
        activated
            ? #"{"class":"DEVICE","path":"\#(device)","driver":"u-blox","activated":"2025-01-01T00:00:00.000Z","flags":1,"native":1,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00,"mincycle":0.02}"#
            : #"{"class":"DEVICE","path":"\#(device)","activated":0}"#
    }

    /// gpsd 3.22's TPV for epoch k; `mode: 2` leaves the altitudes out (an RMC-only report).
    static func tpv(_ k: Int, device: String = device, mode: Int = 3, time: Timestamp? = nil) -> String {
        var text = #"{"class":"TPV","device":"\#(device)","status":2,"mode":\#(mode),"time":"\#((time ?? self.time(k)).iso8601)","ept":0.5,"#
        text += #""lat":\#(latitude(k)),"lon":\#(longitude(k)),"#
        if mode == 3 { text += #""altHAE":53.5,"altMSL":83.25,"alt":83.25,"epv":3.0,"# }
        text += #""epx":1.0,"epy":1.5,"track":44.125,"magtrack":57.5,"magvar":13.5,"speed":1.5,"eps":2.0,"geoidSep":-29.75,"eph":2.75,"sep":5.0}"#
        return text
    }

    /// The fix of ``tpv(_:device:mode:time:)``, value for value.
    static func fix(_ k: Int, device: String = device, mode: Int = 3, time: Timestamp? = nil) -> Fix {
        Fix(time: time ?? self.time(k), mode: mode == 3 ? .threeD : .twoD, status: .dgps, device: device,
            latitude: latitude(k), longitude: longitude(k),
            altitudeHAE: mode == 3 ? 53.5 : nil, altitudeMSL: mode == 3 ? 83.25 : nil,
            horizontalError: 2.75, longitudeError: 1.0, latitudeError: 1.5, verticalError: mode == 3 ? 3.0 : nil,
            timeError: 0.5, sphericalError: 5.0, speed: 1.5, track: 44.125, magneticTrack: 57.5,
            magneticVariation: 13.5, speedError: 2.0, geoidSeparation: -29.75)
    }

    static func latitude(_ k: Int) -> Double { 38.5 + Double(k) / 64 }
    static func longitude(_ k: Int) -> Double { -122.5 - Double(k) / 128 }

    /// A TPV of a receiver without a fix.
    static func noFix(device: String = device) -> String {
        #"{"class":"TPV","device":"\#(device)","mode":1}"#
    }

    /// gpsd's answer to `?POLL`: its clock and the latest TPV of each device.
    static func pollReply(time: Timestamp, tpvs: [String]) -> String {
        #"{"class":"POLL","time":"\#(time.iso8601)","active":\#(tpvs.count),"tpv":[\#(tpvs.joined(separator: ","))],"gst":[],"sky":[]}"#
    }
}

/// One consumer of a session's events: reads them batch by batch as an iterator
/// of ``AsyncGPSDEventSequence`` hands them out, and keeps them.
struct Recorder {
    private var iterator: AsyncGPSDEventSequence.Iterator
    private let session: GPSDSession
    /// What each `nextBatch()` returned, in order.
    private(set) var batches: [[GPSDEvent]] = []
    /// What the iteration threw, if it did.
    private(set) var failure: LocTrackError?
    /// Whether the iteration ended without an error (returned nil).
    private(set) var ended = false

    /// Subscribes at once: the session connects now.
    init(_ session: GPSDSession, _ events: AsyncGPSDEventSequence? = nil) {
        self.session = session
        iterator = (events ?? session.events()).makeAsyncIterator()
    }

    var events: [GPSDEvent] { batches.flatMap { $0 } }
    var fixes: [Fix] { events.compactMap(\.fix) }
    var statuses: [GPSDStatus] {
        events.compactMap { if case .status(let status) = $0 { status } else { nil } }
    }
    var isOver: Bool { ended || failure != nil }

    /// Reads until `enough` holds, or the iteration ends or throws. After `limit` it
    /// finishes the session (so the iteration ends) and throws: a reader that never
    /// delivers fails the test instead of hanging it.
    mutating func read(within limit: Duration = .seconds(5), until enough: (Recorder) -> Bool = { _ in false }) async throws {
        let fired = Flag()
        let watchdog = Task { [session] in
            try await Task.sleep(for: limit)
            fired.set()
            session.finish()
        }
        defer { watchdog.cancel() }
        while !isOver && !enough(self) {
            do throws(LocTrackError) {
                if let batch = try await iterator.nextBatch() { batches.append(Array(batch)) } else { ended = true }
            } catch {
                failure = error
            }
        }
        if fired.isSet {
            throw ScriptError("gave up after \(limit); events so far: \(events)")
        }
    }

    /// Reads until the iteration ends or throws.
    mutating func readToEnd(within limit: Duration = .seconds(5)) async throws {
        try await read(within: limit)
    }

    /// What was read, to hand out of a task.
    var outcome: Outcome { Outcome(events: events, failure: failure, ended: ended) }

    struct Outcome: Sendable {
        let events: [GPSDEvent]
        let failure: LocTrackError?
        let ended: Bool
        var fixes: [Fix] { events.compactMap(\.fix) }
    }
}

extension GPSDStatus {
    /// The reason of a ``skippedReport(reason:excerpt:)``, else nil.
    var skippedReason: String? {
        if case .skippedReport(let reason, _) = self { return reason }
        return nil
    }
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}
