import Glibc

/// The reader thread's loop over one gpsd connection: poll, frame, hand lines on.
///
/// It only ever sleeps in `poll()`: on the socket, on the wake-up pipe, and on
/// a timeout only while something is due (the VERSION banner, a held epoch,
/// the first report of a silent receiver). With a fix stream that is quiet,
/// nothing wakes it.
final class ReaderSession {
    enum Outcome {
        case stopped
        case failed(LocTrackError)
    }

    /// How long without a fix before a silent receiver is reported.
    static let silenceMilliseconds: Int64 = 5_000

    private let connection: GPSDConnection
    private let handler: ReportHandler
    private var framer = LineFramer()
    private var reportedOverlongLines = 0
    private var silenceReported = false

    init(connection: GPSDConnection, handler: ReportHandler) {
        self.connection = connection
        self.handler = handler
    }

    /// How much one wake-up reads before the loop checks the consumers again
    /// (16 reads of up to 64 KiB: hundreds of reports).
    static let readsPerWakeUp = 16

    /// - Parameter consumersAreBehind: while true, the socket is not read: gpsd's
    ///   reports wait in the kernel and TCP slows gpsd down, and memory stays
    ///   bounded. The session wakes the reader when the consumers catch up.
    func run(
        wakeDescriptor: Int32, stopRequested: () -> Bool, takePollRequest: () -> Bool,
        consumersAreBehind: () -> Bool, sink: @Sendable (ReaderEvent) -> Void
    ) -> Outcome {
        handler.connectionStarted()
        do {
            // A poll sent with the watch is answered as soon as the device is active.
            let poll = takePollRequest() ? GPSDCommand.poll : ""
            try connection.send(GPSDCommand.watch(device: connection.source.device) + poll)
        } catch {
            return .failed(error)
        }
        let bannerDeadline = Monotonic.milliseconds + Int64(ReaderThread.bannerTimeoutMilliseconds)
        var descriptors = [
            pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if stopRequested() { return .stopped }
            let now = Monotonic.milliseconds
            let timeout = nextTimeout(now: now, bannerDeadline: bannerDeadline)
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            // While the consumers are behind, only the wake-up pipe is watched.
            descriptors[0].events = consumersAreBehind() ? 0 : Int16(POLLIN)
            let ready = retryingInterrupts { poll(&descriptors, 2, timeout) }
            if ready < 0 {
                return .failed(LocTrackError(.connectionLost, source: connection.source, reason: "poll: \(Errno.current)"))
            }
            if descriptors[1].revents != 0 {
                drainWakeUps(wakeDescriptor)
                if stopRequested() { return .stopped }
                if takePollRequest() {
                    do { try connection.send(GPSDCommand.poll) } catch { return .failed(error) }
                }
                if ready == 1 { continue }
            }
            if descriptors[0].revents == 0 {
                if ready > 0 { continue }  // woken for the wake-up pipe only
                if !handler.sawBanner {
                    return .failed(LocTrackError(
                        .notGPSD, source: connection.source,
                        reason: "no VERSION banner within \(ReaderThread.bannerTimeoutMilliseconds / 1000) s"))
                }
                handler.assembler.flush()
                reportSilence(sink: sink)
                continue
            }
            let outcome = framer.drain(connection.socket, maximumReads: Self.readsPerWakeUp) { line, length in
                handler.handle(line: line, length: length)
            }
            noteOverlongLines()
            if !handler.sawBanner && Monotonic.milliseconds >= bannerDeadline {  // a peer that talks but is not gpsd
                return .failed(LocTrackError(
                    .notGPSD, source: connection.source,
                    reason: "no VERSION banner within \(ReaderThread.bannerTimeoutMilliseconds / 1000) s"))
            }
            if silenceReported, let last = handler.lastFixAt, last > Monotonic.milliseconds - Self.silenceMilliseconds {
                silenceReported = false
                sink(.status(.fixesResumed))
            }
            if let refusal = handler.refusal { return .failed(refusal) }
            switch outcome {
            case .open:
                continue
            case .endOfFile:
                return .failed(handler.sawBanner
                    ? LocTrackError(.connectionLost, source: connection.source, reason: "gpsd closed the connection")
                    : LocTrackError(.notGPSD, source: connection.source, reason: "closed before sending a VERSION banner"))
            case .failed(let code):
                return .failed(LocTrackError(.connectionLost, source: connection.source, reason: "\(Errno(code: code))"))
            }
        }
    }

    private func nextTimeout(now: Int64, bannerDeadline: Int64) -> Int32 {
        if !handler.sawBanner { return Int32(clamping: max(0, bannerDeadline - now)) }
        var deadlines: [Int64] = []
        if handler.assembler.isHoldingFixes { deadlines.append(now + Int64(ReaderThread.quietFlushMilliseconds)) }
        if !silenceReported, let last = handler.lastFixAt { deadlines.append(last + Self.silenceMilliseconds) }
        guard let next = deadlines.min() else { return -1 }  // nothing due: sleep until gpsd speaks
        return Int32(clamping: max(0, next - now))
    }

    private func reportSilence(sink: @Sendable (ReaderEvent) -> Void) {
        guard !silenceReported, let last = handler.lastFixAt else { return }
        let silent = Monotonic.milliseconds - last
        if silent >= Self.silenceMilliseconds {
            silenceReported = true
            sink(.status(.noFixes(seconds: Int(silent / 1000))))
        }
    }

    private func noteOverlongLines() {
        while reportedOverlongLines < framer.overlongLines {
            reportedOverlongLines += 1
            handler.malformed("", 0, why: "a line longer than \(LineFramer.maximumLineLength) bytes")
        }
    }
}

enum Monotonic {
    private static let origin = ContinuousClock.now

    /// Milliseconds on the monotonic clock.
    static var milliseconds: Int64 {
        let elapsed = (ContinuousClock.now - origin).components
        return elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
    }
}
