@testable import LocTrackCLI
@testable import LocTrackFormats
@testable import LocTrackSinks

/// Stdin and the clock for the track writer's tests: each read arrives at a time of the
/// script's choosing; the clock jumps to it, or to a wait's deadline when that comes
/// first. After the script, stdin ends.
struct ScriptedRecordFrames: RecordFrameSource {
    struct Read {
        /// When the read arrives, on the monotonic clock (milliseconds).
        var at: Int64
        var frames: [RecordFrame.Decoded]
    }

    private var reads: [Read]
    private(set) var now: Int64
    /// Every wait's deadline, in order (nil: none).
    private(set) var deadlines: [Int64?] = []

    init(startingAt start: Int64 = 0, _ reads: [Read]) {
        now = start
        self.reads = reads
    }

    mutating func next(until deadline: Int64?) -> RecordFrameInput {
        deadlines.append(deadline)
        guard let read = reads.first else { return .ended }
        if let deadline, read.at > deadline {
            now = max(now, deadline)
            return .deadlinePassed
        }
        reads.removeFirst()
        now = max(now, read.at)
        return .frames(read.frames)
    }
}

/// Frames as the track writer decodes them.
enum WriterFrames {
    /// A frame holding `text` for a record at `seconds` (UTC).
    static func frame(_ seconds: Int64, _ text: String, startsSegment: Bool = false) -> RecordFrame.Decoded {
        RecordFrame.Decoded(seconds: seconds, startsSegment: startsSegment, payload: ArraySlice(Array(text.utf8)))
    }

    /// One frame per second from `start`, each holding its own time.
    static func seconds(_ range: Range<Int64>) -> [RecordFrame.Decoded] {
        range.map { frame($0, "\($0)\n") }
    }

    /// 2026-03-01T00:00:00Z: the day the rotation tests cross into the next of.
    static let march1: Int64 = 1_772_323_200
}
