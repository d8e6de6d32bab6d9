import LocTrackSystem

/// The reader thread's loop over one gpsd connection: poll, frame, hand lines on.
///
/// It only ever sleeps in `poll()`: on the socket, on the wake-up pipe, and on
/// a timeout only while something is due (the VERSION banner, a held epoch,
/// the first report of a silent receiver). With a fix stream that is quiet,
/// nothing wakes it. Before each sleep, what the wake-up produced goes out as
/// one batch.
final class ReaderSession {
    enum Outcome {
        case stopped
        case failed(LocTrackError)
    }

    /// How much one wake-up reads before its batch goes out and the loop checks the
    /// consumers again: 2 reads of up to 64 KiB, a few hundred reports. Small batches
    /// keep the reader and the consumer working side by side in a flood, and bound the
    /// memory a batch holds (the runs behind the number: docs/performance.md, "What the
    /// design does for speed").
    static let readsPerWakeUp = 2

    private let transport: any GPSDTransport
    private let source: GPSDSource
    private let handler: ReportHandler
    private let timings: ReaderTimings
    private let control: ReaderControl
    private let output: ReaderOutput
    /// The executor the session's consumers run on, when the session was built with one:
    /// the thread is lent to it before each sleep (``ConsumerExecutor/lendCurrentThread(_:)``).
    private let consumerExecutor: ConsumerExecutor?
    private var framer = LineFramer()
    private var silenceReported = false
    /// ``timings``' delays in whole milliseconds, converted once: they are read on every
    /// fix, and a `Duration`'s conversion is 128-bit arithmetic.
    private let silenceMilliseconds: Int64
    private let quietFlushMilliseconds: Int64

    init(
        transport: any GPSDTransport, source: GPSDSource, handler: ReportHandler, timings: ReaderTimings,
        control: ReaderControl, output: ReaderOutput, consumerExecutor: ConsumerExecutor? = nil
    ) {
        self.transport = transport
        self.source = source
        self.handler = handler
        self.timings = timings
        self.control = control
        self.output = output
        self.consumerExecutor = consumerExecutor
        silenceMilliseconds = timings.silence.milliseconds
        quietFlushMilliseconds = timings.quietFlush.milliseconds
    }

    /// Runs until a stop is requested or the connection fails. While the consumers
    /// are behind (``ReaderControl/isPaused``), the socket is not read: gpsd's reports
    /// wait in the kernel, TCP slows gpsd down, and memory stays bounded.
    func run() -> Outcome {
        handler.connectionStarted()
        do {
            // A poll sent with the watch is answered as soon as the device is active.
            let poll = control.takePollRequest() ? GPSDCommand.poll : ""
            try transport.send(GPSDCommand.watch(device: source.device) + poll)
        } catch {
            return .failed(error)
        }
        let bannerDeadline = Monotonic.milliseconds + timings.banner.milliseconds
        var descriptors = PollSet(count: 2)
        descriptors.set(0, descriptor: transport.descriptor, events: .readable)
        descriptors.set(1, descriptor: control.wakeUps.readDescriptor, events: .readable)
        var socketMayHoldMore = false
        while true {
            if !socketMayHoldMore, let consumerExecutor {
                // Nothing is left to read: the thread sleeps next, so the consumer this batch
                // resumes may run on it now instead of waking the executor's own thread
                // (the session was built with `consumersRunOn:`). No lock is held here.
                consumerExecutor.lendCurrentThread { output.flush() }
            } else {
                output.flush()
            }
            if control.isStopRequested { return .stopped }
            let timeout = nextTimeout(now: Monotonic.milliseconds, bannerDeadline: bannerDeadline)
            descriptors.setEvents(0, control.isPaused ? [] : .readable)
            let ready: Int
            do throws(Errno) {
                ready = try descriptors.wait(milliseconds: timeout)
            } catch {
                return .failed(LocTrackError(.connectionLost, source: source, failedCall: "poll", error))
            }
            if !descriptors.returned(1).isEmpty {
                control.wakeUps.drain()
                if control.isStopRequested { return .stopped }
                if control.takePollRequest() {
                    do { try transport.send(GPSDCommand.poll) } catch { return .failed(error) }
                }
                if ready == 1 { continue }
            }
            if descriptors.returned(0).isEmpty {
                if ready > 0 { continue }  // woken for the wake-up pipe only
                if !handler.sawBanner { return .failed(noBanner) }
                handler.assembler.flush()
                reportSilence()
                continue
            }
            let outcome = framer.drain(
                transport.descriptor, maximumReads: Self.readsPerWakeUp,
                overlong: { handler.malformed("", 0, why: "a line longer than \(LineFramer.maximumLineLength) bytes") }
            ) { line, length in
                handler.handle(line: line, length: length)
            }
            // A peer that talks but is not gpsd.
            if !handler.sawBanner && Monotonic.milliseconds >= bannerDeadline { return .failed(noBanner) }
            if silenceReported, let last = handler.lastFixAt, last > Monotonic.milliseconds - silenceMilliseconds {
                silenceReported = false
                output.send(.status(.fixesResumed))
            }
            if let refusal = handler.refusal { return .failed(refusal) }
            socketMayHoldMore = outcome == .more
            switch outcome {
            case .open, .more:
                continue
            case .endOfFile:
                return .failed(handler.sawBanner
                    ? LocTrackError(.connectionLost, source: source, reason: "gpsd closed the connection")
                    : LocTrackError(.notGPSD, source: source, reason: "closed before sending a VERSION banner"))
            case .failed(let code):
                return .failed(LocTrackError(.connectionLost, source: source, reason: "\(Errno(code: code))", errorNumber: code))
            }
        }
    }

    private var noBanner: LocTrackError {
        LocTrackError(.notGPSD, source: source, reason: "no VERSION banner within \(timings.banner.spoken)")
    }

    private func nextTimeout(now: Int64, bannerDeadline: Int64) -> Int32 {
        if !handler.sawBanner { return Int32(clamping: max(0, bannerDeadline - now)) }
        var next = Int64.max
        if handler.assembler.isHoldingFixes { next = now + quietFlushMilliseconds }
        if !silenceReported, let last = handler.lastFixAt { next = min(next, last + silenceMilliseconds) }
        if next == .max { return -1 }  // nothing due: sleep until gpsd speaks
        return Int32(clamping: max(0, next - now))
    }

    private func reportSilence() {
        guard !silenceReported, let last = handler.lastFixAt else { return }
        let silent = Monotonic.milliseconds - last
        if silent >= silenceMilliseconds {
            silenceReported = true
            output.send(.status(.noFixes(seconds: Int(silent / 1000))))
        }
    }
}
