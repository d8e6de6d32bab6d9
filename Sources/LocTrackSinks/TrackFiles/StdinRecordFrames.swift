import LocTrack
import LocTrackSystem
import LocTrackFormats

/// The track writer's stdin: `poll` until a deadline, `read` what the pipe holds, decode
/// the whole frames (a frame's rest waits for the next read).
package struct StdinRecordFrames: RecordFrameSource {
    /// Bytes of a frame not yet whole.
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 256 * 1024)

    package var now: Int64 { Monotonic.milliseconds }

    package mutating func next(until deadline: Int64?) -> RecordFrameInput {
        if let deadline {
            let due = deadline - Monotonic.milliseconds
            if due <= 0 { return .deadlinePassed }
            do throws(Errno) {
                if try pollOne(StandardDescriptor.input, events: .readable, milliseconds: Int32(clamping: due)) == [] {
                    return .deadlinePassed
                }
            } catch {
                // A failed poll falls through to read, which then meets what is wrong.
            }
        }
        let count: Int
        do throws(Errno) {
            count = try systemRead(StandardDescriptor.input, into: &chunk)
        } catch {
            return .ended  // stdin unreadable: loctrack's end of it is gone as surely as at its end
        }
        if count == 0 { return .ended }
        pending += chunk[..<count]
        let (frames, consumed) = RecordFrame.decode(pending[...])
        pending.removeFirst(consumed)
        return .frames(frames)
    }
}
