import LocTrackMonitor
import LocTrackSystem
package import LocTrack
package import LocTrackDistance
package import LocTrackFormats

/// The format a sink writes: what each event becomes, whole records only, and the text
/// around them. Each sink owns one (stdout its `--format`, a broker JSON or OwnTracks, a
/// track file frames for the track writer); the command picks it when it wires the sink.
package protocol SinkEncoder {
    /// What comes before the first record (a GPX document's head, a CSV header).
    mutating func begin() -> String
    /// Appends what `event` becomes, if anything. Returns whether a record was written.
    /// - Parameter odometer: the odometer after the event, when the command measures distance.
    mutating func encode(_ event: GPSDEvent, odometer: OdometerReading?, into output: inout OutputBytes) -> Bool
    /// Appends the line of a trip's start or end, if this format has one.
    mutating func encode(_ trip: TripEvent, into output: inout OutputBytes) -> Bool
    /// Appends the line of a monitor event, if this format has one for it.
    mutating func encode(_ item: MonitorEventItem, into output: inout OutputBytes) -> Bool
    /// What completes the output (a GPX document's end).
    mutating func end() -> String
}

extension SinkEncoder {
    package mutating func begin() -> String { "" }
    package mutating func end() -> String { "" }
    package mutating func encode(_ event: GPSDEvent, odometer: OdometerReading?, into output: inout OutputBytes) -> Bool {
        false
    }
    package mutating func encode(_ trip: TripEvent, into output: inout OutputBytes) -> Bool { false }
    package mutating func encode(_ item: MonitorEventItem, into output: inout OutputBytes) -> Bool { false }

    /// Each event of `batch` with its odometer, and each trip right after the event that
    /// decided it: `record` is called once per event or trip, after it was appended.
    private mutating func encode(
        _ batch: GPSDBatch, into output: inout OutputBytes, record: (Bool, inout OutputBytes) -> Void
    ) {
        var trips = batch.trips[...]
        while let mark = trips.first, mark.afterEvent < 0 {
            record(encode(mark.event, into: &output), &output)
            trips = trips.dropFirst()
        }
        for (index, event) in batch.events.enumerated() {
            record(encode(event, odometer: batch.odometer(at: index), into: &output), &output)
            while let mark = trips.first, mark.afterEvent <= index {
                record(encode(mark.event, into: &output), &output)
                trips = trips.dropFirst()
            }
        }
        for mark in trips { record(encode(mark.event, into: &output), &output) }
    }

    /// Appends the records of a whole batch, in order, for one `write`.
    /// - Returns: how many records were written.
    package mutating func encode(_ batch: SinkBatch, into output: inout OutputBytes) -> Int {
        var records = 0
        switch batch {
        case .gpsd(let gpsd):
            encode(gpsd, into: &output) { written, _ in if written { records += 1 } }
        case .monitor(let items):
            for item in items where encode(item, into: &output) { records += 1 }
        case .regions:
            break
        }
        return records
    }

    /// The batch as messages, one per record, each without its line end: what a broker gets.
    package mutating func messages(_ batch: SinkBatch) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var record = OutputBytes(reservingCapacity: 512)
        func take(_ written: Bool) {
            if written { messages.append(record.bytesWithoutLineEnd) }
            record.removeAll()
        }
        switch batch {
        case .gpsd(let gpsd):
            messages.reserveCapacity(gpsd.events.count + gpsd.trips.count)
            encode(gpsd, into: &record) { written, record in
                if written { messages.append(record.bytesWithoutLineEnd) }
                record.removeAll()
            }
        case .monitor(let items):
            for item in items { take(encode(item, into: &record)) }
        case .regions:
            break
        }
        return messages
    }
}

/// Fixes in one of the fix formats (``FixEncoder``): each accepted fix one record, and a
/// break in the track where a status says so (``GPSDStatus/breaksTrack``).
package struct FixRecordEncoder: SinkEncoder {
    private var fixes: any FixEncoder
    /// A broker's `--max-error` of `stream`: a fix with a larger `eph`, or none, is not
    /// written to this sink. nil: every fix.
    private let accuracyLimit: Double?
    /// `--odometer`: the batches' odometer goes on the fix lines. Without it a batch may
    /// still carry readings (a Traccar sink needs them), and the lines stay as they were.
    private let writesOdometer: Bool

    package init(_ fixes: any FixEncoder, accuracyLimit: Double? = nil, writesOdometer: Bool = false) {
        self.fixes = fixes
        self.accuracyLimit = accuracyLimit
        self.writesOdometer = writesOdometer
    }

    package mutating func begin() -> String { fixes.begin() }
    package mutating func end() -> String { fixes.end() }

    package mutating func encode(_ event: GPSDEvent, odometer: OdometerReading?, into output: inout OutputBytes) -> Bool {
        switch event {
        case .fix(let fix):
            guard fix.meets(minimumAccuracy: accuracyLimit) else { return false }
            fixes.encode(fix, odometer: writesOdometer ? odometer : nil, into: &output)
            return true
        case .status(let status):
            if status.breaksTrack { fixes.breakTrack() }
            return false
        case .sky(let sky):
            fixes.note(sky)
            return false
        }
    }

    package mutating func encode(_ trip: TripEvent, into output: inout OutputBytes) -> Bool {
        fixes.encode(trip, into: &output)
    }
}

/// A monitor's events as lines (`monitor run`'s formats, docs/json.md), framed for the
/// track writer when the sink is a track file.
package struct MonitorEventEncoder: SinkEncoder {
    package enum Format: Sendable {
        case json, text, owntracks
    }

    private let format: Format
    /// Each line in a ``RecordFrame`` whose time (the event's fix's, else now) picks the file.
    private let framed: Bool

    package init(format: Format, framed: Bool) {
        self.format = format
        self.framed = framed
    }

    /// `--trips`: a trip's line in JSON or text (OwnTracks has no trip message), framed for a
    /// track file by the trip's own time.
    package mutating func encode(_ trip: TripEvent, into output: inout OutputBytes) -> Bool {
        guard format != .owntracks else { return false }
        let time = switch trip {
        case .started(let start, _): start.time
        case .ended(let summary): summary.end.time
        }
        let write = { [format] (line: inout OutputBytes) in
            if format == .json { TripLines.appendEventJSON(trip, to: &line) } else { line.append(TripLines.eventText(trip)) }
        }
        if framed {
            RecordFrame.append(seconds: time.seconds, startsSegment: false, into: &output, writePayload: write)
        } else {
            write(&output)
        }
        return true
    }

    package mutating func encode(_ item: MonitorEventItem, into output: inout OutputBytes) -> Bool {
        let event = item.event
        let line: String? = switch format {
        case .json: GeofenceEventLine.json(event)
        case .text: GeofenceEventLine.text(event)
        case .owntracks: item.ownTracks.flatMap { GeofenceEventLine.ownTracks(event, context: $0) }
        }
        guard let line else { return false }
        if framed {
            let seconds = event.fix?.time.seconds ?? wallClockSeconds()
            RecordFrame.append(seconds: seconds, startsSegment: false, into: &output) { $0.append(line) }
        } else {
            output.append(line)
        }
        return true
    }
}
