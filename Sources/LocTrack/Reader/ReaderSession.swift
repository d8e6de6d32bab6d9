import Glibc

/// The reader thread's loop over one gpsd connection: poll, frame, decode, merge.
final class ReaderSession {
    enum Outcome {
        case stopped
        case failed(LocTrackError)
    }

    private let connection: GPSDConnection
    private let assembler: FixAssembler
    private let sink: @Sendable (ReaderEvent) -> Void
    private var framer = LineFramer()
    private var failure: LocTrackError?
    /// Whether gpsd's VERSION banner arrived (a peer that never sends one is not gpsd).
    private(set) var sawBanner = false

    init(connection: GPSDConnection, assembler: FixAssembler, sink: @escaping @Sendable (ReaderEvent) -> Void) {
        self.connection = connection
        self.assembler = assembler
        self.sink = sink
    }

    func run(wakeDescriptor: Int32, stopRequested: () -> Bool) -> Outcome {
        do {
            try connection.send(GPSDCommand.watch(device: connection.source.device))
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
            let timeout: Int32
            if !sawBanner {
                timeout = Int32(clamping: max(0, bannerDeadline - Monotonic.milliseconds))
            } else if assembler.isHoldingFixes {
                timeout = ReaderThread.quietFlushMilliseconds
            } else {
                timeout = -1  // nothing to do until gpsd speaks or we are woken
            }
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = retryingInterrupts { poll(&descriptors, 2, timeout) }
            if ready < 0 {
                return .failed(LocTrackError(.connectionLost, source: connection.source, reason: "poll: \(Errno.current)"))
            }
            if descriptors[1].revents != 0 { return .stopped }
            if ready == 0 {
                if !sawBanner {
                    return .failed(LocTrackError(
                        .notGPSD, source: connection.source,
                        reason: "no VERSION banner within \(ReaderThread.bannerTimeoutMilliseconds / 1000) s"))
                }
                assembler.flush()
                continue
            }
            let outcome = framer.drain(connection.socket) { line, length in
                handle(line: line, length: length)
            }
            if let failure { return .failed(failure) }
            switch outcome {
            case .open:
                continue
            case .endOfFile:
                return .failed(sawBanner
                    ? LocTrackError(.connectionLost, source: connection.source, reason: "gpsd closed the connection")
                    : LocTrackError(.notGPSD, source: connection.source, reason: "closed before sending a VERSION banner"))
            case .failed(let code):
                return .failed(LocTrackError(.connectionLost, source: connection.source, reason: "\(Errno(code: code))"))
            }
        }
    }

    private func handle(line: UnsafeMutablePointer<CChar>, length: Int) {
        switch ReportClass(line: line, length: length) {
        case .tpv:
            assembler.accept(connection.decodeTPV(line: line))
        case .version:
            sawBanner = true
            sink(.status(.connected(connection.source, release: connection.decodeVersionRelease(line: line))))
        case .error:
            let message = connection.decodeErrorMessage(line: line)
            failure = LocTrackError(.gpsdError, source: connection.source, reason: message)
        default:
            break
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
