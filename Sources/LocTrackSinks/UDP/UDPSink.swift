import LocTrack
import LocTrackFormats
package import LocTrackSystem
import Synchronization

/// Sends each accepted fix as UDP datagrams, one line per datagram (an NMEA sentence with its
/// CR LF, or a TPV with its LF), on the caller's thread: a `sendto` that never waits is
/// cheaper than handing the bytes to a thread. Nothing is kept, so every event taken counts
/// as settled; a datagram the system refuses (no route, a full send buffer) is dropped, and
/// the first refusal after a success is said once on stderr.
package final class UDPSink: Sink {
    private let socket: DatagramSocket
    /// `udp://HOST:PORT`, for the line on stderr.
    private let name: String
    /// NMEA or JSON lines of fixes only: no odometer, no trips, no monitor events. The fan-out
    /// calls one sink at a time, so this lock is never contended.
    private let encoder: Mutex<FixRecordEncoder>
    private let takenEvents = Atomic(0)
    /// Whether the last datagram was refused, so that an outage is said once, not per fix.
    private let refusing = Atomic(false)

    package init(socket: DatagramSocket, named name: String, sendsJSON: Bool) {
        self.socket = socket
        self.name = name
        encoder = Mutex(FixRecordEncoder((sendsJSON ? OutputFormat.json : .nmea).makeEncoder()))
    }

    package func take(_ batch: SinkBatch) -> Bool {
        defer { takenEvents.add(batch.eventCount, ordering: .relaxed) }
        guard case .gpsd(let gpsd) = batch else { return true }
        let bytes = encoder.withLock { encoder in
            var output = OutputBytes(reservingCapacity: 256)
            _ = encoder.encode(.gpsd(GPSDBatch(gpsd.events)), into: &output)
            return output.bytes
        }
        var refusal: Errno?
        bytes.withUnsafeBytes { all in
            var start = 0
            for (index, byte) in all.enumerated() where byte == 0x0A {
                do throws(Errno) {
                    try socket.send(UnsafeRawBufferPointer(rebasing: all[start...index]))
                } catch {
                    refusal = error
                }
                start = index + 1
            }
        }
        let wasRefusing = refusing.exchange(refusal != nil, ordering: .relaxed)
        if let refusal, !wasRefusing {
            printError("\(name): cannot send (\(refusal)); fixes sent there are dropped until it can")
        }
        return true
    }

    package var settledEvents: Int { takenEvents.load(ordering: .relaxed) }

    package func finish(promptly: Bool) async -> SinkOutcome { .done }
}
