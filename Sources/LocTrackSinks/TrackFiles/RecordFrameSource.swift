import LocTrackFormats
/// Where the track writer's frames come from, with the clock it waits by: stdin
/// (``StdinRecordFrames``), or a script in tests.
package protocol RecordFrameSource {
    /// The monotonic clock, in milliseconds.
    var now: Int64 { get }
    /// Waits for stdin until `deadline` (on ``now``'s clock; nil: no deadline).
    mutating func next(until deadline: Int64?) -> RecordFrameInput
}

/// What waiting for stdin brought.
package enum RecordFrameInput: Equatable {
    /// The whole frames a read completed (none when it held only part of one).
    case frames([RecordFrame.Decoded])
    /// Stdin ended: loctrack closed the pipe, or is gone.
    case ended
    /// The deadline came first.
    case deadlinePassed
}
