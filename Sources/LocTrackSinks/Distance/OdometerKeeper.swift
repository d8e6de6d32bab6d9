package import LocTrack
package import LocTrackDistance
package import LocTrackSystem
import Synchronization

/// Keeps the odometer on disk (``OdometerStore``) from a thread of its own,
/// `loctrack-odometer`, so that the command's loop never waits for a file: the loop hands
/// each reading over under a lock that only swaps a value; the thread writes.
///
/// While parked the odometer does not grow and the thread sleeps: no wake-up, no write.
/// While moving the thread is woken by a higher reading and writes at most once a second
/// (the store also writes at most once per second of receiver time), so a SIGKILL or a
/// power cut loses at most about the last second's metres. ``finish()`` writes the last
/// reading and joins the thread.
package final class OdometerKeeper: Sendable {
    /// The reading the odometer starts from: the stored one.
    package let startingMetres: Double
    private let channel: Channel
    private let thread = Mutex<JoinableThread?>(nil)

    /// Opens the odometer kept at `path` and starts its thread.
    /// - Throws: the store's error (a corrupt file), or the system's.
    package init(path: String) throws(OdometerKeeperError) {
        let store: OdometerStore
        do {
            store = try OdometerStore.open(path)
        } catch {
            throw .store(error)
        }
        startingMetres = store.metres
        do {
            channel = Channel(wakeUp: try WakeUpPipe(), storedMetres: store.metres)
        } catch {
            throw .system("cannot make the odometer's wake-up pipe", error)
        }
        let channel = self.channel
        do {
            var started: JoinableThread? = try JoinableThread(named: "loctrack-odometer") {
                var store = store
                channel.writeUntilStopped(&store)
            }
            thread.withLock { $0 = started.take() }
        } catch {
            throw .system("cannot start the odometer's thread", error)
        }
    }

    deinit { finish() }

    /// Hands `reading` over; returns at once. Only a reading higher than the last one
    /// handed over wakes the thread, and only when it is not awake for one already.
    package func keep(_ reading: OdometerReading, at time: Timestamp) {
        if channel.hand(reading, at: time) { channel.wakeUp.wake() }
    }

    /// Writes the last reading and joins the thread. Idempotent.
    package func finish() {
        channel.stop()
        let joining = thread.withLock { $0.take() }
        joining?.join()
    }

    /// What the keeper and its thread share. The thread holds this, not the keeper, so that
    /// the keeper's `deinit` can stop it.
    private final class Channel: Sendable {
        struct Handover: Sendable {
            /// The highest reading handed over, written or not (parked readings equal it).
            var highestMetres: Double
            /// The reading to write next, with its receiver time.
            var pending: (reading: OdometerReading, time: Timestamp)?
            /// Whether the thread was woken for `pending` and has not taken it yet.
            var woken = false
            var stopping = false
        }

        let wakeUp: WakeUpPipe
        let handover: Mutex<Handover>

        init(wakeUp: WakeUpPipe, storedMetres: Double) {
            self.wakeUp = wakeUp
            handover = Mutex(Handover(highestMetres: storedMetres))
        }

        /// - Returns: whether the thread must be woken.
        func hand(_ reading: OdometerReading, at time: Timestamp) -> Bool {
            handover.withLock { handover in
                guard !handover.stopping, reading.metres > handover.highestMetres else { return false }
                handover.highestMetres = reading.metres
                handover.pending = (reading, time)
                defer { handover.woken = true }
                return !handover.woken
            }
        }

        func stop() {
            handover.withLock { $0.stopping = true }
            wakeUp.wake()
        }

        /// The thread: sleeps until woken, waits out the spacing (a stop cuts it short),
        /// writes the latest reading; on a stop writes what is left and returns.
        func writeUntilStopped(_ store: inout OdometerStore) {
            var lastWrite = Int64.min / 2
            var reported = false
            while true {
                _ = try? wakeUp.wait(milliseconds: -1)
                let due = lastWrite + OdometerKeeper.writeSpacingMilliseconds - Monotonic.milliseconds
                if due > 0, !handover.withLock({ $0.stopping }) {
                    _ = try? wakeUp.wait(milliseconds: Int32(clamping: due))
                }
                let (pending, stopping) = handover.withLock { handover in
                    defer {
                        handover.pending = nil
                        handover.woken = false
                    }
                    return (handover.pending, handover.stopping)
                }
                do throws(OdometerStoreError) {
                    if let pending { try store.record(pending.reading, at: pending.time) }
                    if stopping { try store.flush() }
                } catch where !reported {
                    // A full disk or a read-only folder: the odometer goes on counting in memory.
                    printError("odometer: \(error); it counts on, but a restart resumes from the last kept value")
                    reported = true
                } catch {}
                lastWrite = Monotonic.milliseconds
                if stopping { return }
            }
        }
    }

    /// Writes are this far apart at least, in wall-clock milliseconds.
    static let writeSpacingMilliseconds: Int64 = 1000
}

/// Why the odometer could not be kept: its file, or the system.
package enum OdometerKeeperError: Error, CustomStringConvertible {
    case store(OdometerStoreError)
    case system(String, Errno)

    package var description: String {
        switch self {
        case .store(let error): "\(error)"
        case .system(let what, let error): "\(what): \(error)"
        }
    }
}
