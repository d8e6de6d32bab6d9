import Glibc
import Synchronization

/// The one thread that talks to gpsd.
///
/// It connects, sends the `?WATCH`, then blocks in `poll()` on the gpsd socket
/// and a wake-up eventfd. Each wake-up drains every complete line; a partial
/// line just waits in the framer (no spinning), and nothing is left buffered
/// for the next packet. TPVs go through libgps's parser and the epoch merger,
/// and every result is handed to `sink` in order (a ``SerialProcessor``'s
/// `submit`, which never blocks).
///
/// Stopping: ``stop(flushing:)`` sets a flag and writes to the eventfd; the
/// thread wakes within a millisecond, closes the watch and the socket, and
/// sends ``ReaderEvent/ended``.
final class ReaderThread: Sendable {
    /// How long a connected peer has to send gpsd's VERSION banner.
    static let bannerTimeoutMilliseconds: Int32 = 2_000
    /// How long a held fix (an epoch that may still grow) waits when nothing arrives.
    static let quietFlushMilliseconds: Int32 = 1_500

    private enum StopRequest: Int { case none = 0, flushing = 1, immediately = 2 }

    let source: GPSDSource
    let reconnectPolicy: ReconnectPolicy
    let reportsSatellites: Bool
    private let consumersAreBehind: @Sendable () -> Bool
    private let sink: @Sendable (ReaderEvent) -> Void
    /// A self-pipe: the thread polls the read end, ``stop(flushing:)`` writes to the other.
    private let wakeDescriptors: (read: Int32, write: Int32)
    private let stopRequest = Atomic<Int>(StopRequest.none.rawValue)
    private let pollRequest = Atomic<Bool>(false)
    private let connecting = Atomic<Bool>(false)

    /// Whether the thread is inside `gps_open`, where a stop request cannot reach it.
    var isConnecting: Bool { connecting.load(ordering: .sequentiallyConsistent) }

    init(
        source: GPSDSource, reconnectPolicy: ReconnectPolicy = .never, reportsSatellites: Bool = false,
        consumersAreBehind: @escaping @Sendable () -> Bool = { false },
        sink: @escaping @Sendable (ReaderEvent) -> Void
    ) throws(LocTrackError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw LocTrackError(.cannotConnect, source: source, reason: "pipe: \(Errno.current)")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        self.source = source
        self.reconnectPolicy = reconnectPolicy
        self.reportsSatellites = reportsSatellites
        self.consumersAreBehind = consumersAreBehind
        self.sink = sink
        self.wakeDescriptors = (descriptors[0], descriptors[1])
    }

    // The running thread holds a reference, so the pipe outlives every poll() on it.
    deinit {
        close(wakeDescriptors.read)
        close(wakeDescriptors.write)
    }

    func start() throws(LocTrackError) {
        // A write to a socket gpsd has closed must fail with EPIPE, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let status = startDetachedThread { [self] in run() }
        guard status == 0 else {
            throw LocTrackError(.cannotConnect, source: source, reason: "cannot start the reader thread: \(Errno(code: status))")
        }
    }

    /// Asks the thread to stop. With `flushing`, fixes it holds (an epoch that
    /// might still have grown) are delivered first.
    func stop(flushing: Bool) {
        let request = flushing ? StopRequest.flushing : .immediately
        _ = stopRequest.compareExchange(expected: StopRequest.none.rawValue, desired: request.rawValue, ordering: .sequentiallyConsistent)
        wake()
    }

    /// Wakes the thread to look at the consumers again (they caught up).
    func resumeReading() {
        wake()
    }

    /// Asks gpsd for its latest fixes (`?POLL;`) as soon as the watch is on.
    func requestPoll() {
        pollRequest.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    /// Wakes the thread's poll() through the self-pipe.
    private func wake() {
        var byte: UInt8 = 1
        _ = retryingInterrupts { write(wakeDescriptors.write, &byte, 1) }
    }

    private var requestedStop: StopRequest {
        StopRequest(rawValue: stopRequest.load(ordering: .sequentiallyConsistent)) ?? .none
    }

    private func run() {
        let assembler = FixAssembler(sink: sink)
        let handler = ReportHandler(
            source: source, assembler: assembler, reportsSatellites: reportsSatellites, sink: sink)
        var backoff = Backoff(reconnectPolicy)
        while true {
            let error: LocTrackError
            switch connectAndRead(handler: handler) {
            case .stopped:
                if requestedStop == .flushing { assembler.flush() }
                sink(.ended)
                return
            case .failed(let failure, let wasServing):
                error = failure
                if wasServing { backoff.reset() }
            }
            // Whatever was assembled before the failure was accepted: deliver it.
            assembler.flush()
            guard reconnectPolicy.enabled, error.isWorthRetrying else {
                sink(.failed(error))
                return
            }
            let delay = backoff.nextDelayMilliseconds()
            sink(.status(.waiting(error, retryIn: .milliseconds(delay))))
            if waitForWakeUp(milliseconds: delay) || requestedStop != .none {
                if requestedStop == .flushing { assembler.flush() }
                sink(.ended)
                return
            }
        }
    }

    private enum ConnectionOutcome {
        case stopped
        /// `wasServing`: gpsd had greeted us, so the next outage starts its backoff afresh.
        case failed(LocTrackError, wasServing: Bool)
    }

    private func connectAndRead(handler: ReportHandler) -> ConnectionOutcome {
        if requestedStop != .none { return .stopped }
        let connection: GPSDConnection
        do {
            // gps_open blocks in connect() without a timeout; meanwhile a stop cannot reach
            // this thread, so the session ends its consumers without waiting (isConnecting).
            connecting.store(true, ordering: .sequentiallyConsistent)
            defer { connecting.store(false, ordering: .sequentiallyConsistent) }
            connection = try GPSDConnection(connectingTo: source)
        } catch {
            return requestedStop == .none ? .failed(error, wasServing: false) : .stopped
        }
        if requestedStop != .none { return .stopped }
        let session = ReaderSession(connection: connection, handler: handler)
        let outcome = session.run(
            wakeDescriptor: wakeDescriptors.read,
            stopRequested: { self.requestedStop != .none },
            takePollRequest: { self.pollRequest.exchange(false, ordering: .sequentiallyConsistent) },
            consumersAreBehind: consumersAreBehind,
            sink: sink)
        switch outcome {
        case .stopped:
            try? connection.send(GPSDCommand.unwatch)
            return .stopped
        case .failed(let error):
            return .failed(error, wasServing: handler.sawBanner)
        }
    }

    /// Sleeps up to `milliseconds`; returns true when woken by ``stop(flushing:)``.
    /// Sleeps up to `milliseconds`; returns true when woken by ``stop(flushing:)``.
    /// (A poll request waits for the next connection.)
    private func waitForWakeUp(milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: wakeDescriptors.read, events: Int16(POLLIN), revents: 0)
        let deadline = Monotonic.milliseconds + Int64(milliseconds)
        while true {
            let remaining = Int32(clamping: max(0, deadline - Monotonic.milliseconds))
            let ready = poll(&descriptor, 1, remaining)
            if ready > 0 {
                drainWakeUps(wakeDescriptors.read)
                if requestedStop != .none { return true }
                continue
            }
            if ready == 0 || errno != EINTR { return false }
        }
    }
}

/// Empties the wake-up pipe so the next poll() sleeps again.
func drainWakeUps(_ descriptor: Int32) {
    var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress!, $0.count) }) > 0 {}
}

extension LocTrackError {
    /// Whether waiting for gpsd might help. An ERROR reply (unknown device) will not go away.
    var isWorthRetrying: Bool {
        code == .cannotConnect || code == .connectionLost || code == .notGPSD
    }
}
