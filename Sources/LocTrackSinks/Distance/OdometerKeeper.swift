package import LocTrack
package import LocTrackDistance
package import LocTrackSystem
import Synchronization

/// Keeps the odometer on disk (``OdometerStore``) from a thread of its own,
/// `loctrack-odometer`, so that the command's loop never waits for a file: the loop hands
/// each higher reading to an inbox of one (``BoundedInbox``: a newer reading replaces one
/// not yet written, which the newer one includes); the thread writes.
///
/// While parked the odometer does not grow and the thread sleeps: no wake-up, no write.
/// While moving the thread is woken by a higher reading and writes at most once a second
/// (the store also writes at most once per second of receiver time), so a SIGKILL or a
/// power cut loses at most about the last second's metres. ``finish()`` writes the last
/// reading and joins the thread.
package final class OdometerKeeper: Sendable {
    /// A reading handed over, with its receiver time.
    private struct Handover: Sendable {
        let reading: OdometerReading
        let time: Timestamp
    }

    /// The reading the odometer starts from: the stored one.
    package let startingMetres: Double
    /// The highest reading handed over, written or not (parked readings equal it): only a
    /// higher one goes to the thread.
    private let highestMetres: Mutex<Double>
    private let inbox: BoundedInbox<Handover>
    private let thread = ThreadOwner()

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
        highestMetres = Mutex(store.metres)
        do {
            inbox = try BoundedInbox(capacity: 1)
        } catch {
            throw .system("cannot make the odometer's wake-up pipe", error)
        }
        let inbox = self.inbox
        do {
            try thread.start(named: "loctrack-odometer") {
                var store = store
                Self.writeUntilFinished(inbox, &store)
            }
        } catch {
            throw .system("cannot start the odometer's thread", error)
        }
    }

    deinit { finish() }

    /// Hands `reading` over; returns at once. Only a reading higher than the last one
    /// handed over goes to the thread, and wakes it only when it is not awake for one already.
    package func keep(_ reading: OdometerReading, at time: Timestamp) {
        let higher = highestMetres.withLock { highest in
            guard reading.metres > highest else { return false }
            highest = reading.metres
            return true
        }
        if higher { inbox.put(Handover(reading: reading, time: time)) }
    }

    /// Writes the last reading and joins the thread. Idempotent.
    package func finish() {
        inbox.close()
        thread.join()
    }

    /// The thread: sleeps until a reading comes, waits out the spacing (``finish()`` cuts it
    /// short), writes the latest reading; once finished writes what is left and returns.
    private static func writeUntilFinished(_ inbox: BoundedInbox<Handover>, _ store: inout OdometerStore) {
        var lastWrite = Int64.min / 2
        var reported = false
        func attempt(_ write: (inout OdometerStore) throws(OdometerStoreError) -> Void) {
            do throws(OdometerStoreError) {
                try write(&store)
            } catch where !reported {
                // A full disk or a read-only folder: the odometer goes on counting in memory.
                printError("odometer: \(error); it counts on, but a restart resumes from the last kept value")
                reported = true
            } catch {}
        }
        while case .handle(let first, _) = inbox.next() {
            var latest = first[first.count - 1]
            let due = lastWrite + writeSpacingMilliseconds - Monotonic.milliseconds
            if due > 0, !inbox.isClosed { inbox.wait(milliseconds: Int32(clamping: due)) }
            // What came meanwhile replaced the reading in the inbox: the newest is written.
            if case .handle(let newer, _) = inbox.take() { latest = newer[newer.count - 1] }
            attempt { store throws(OdometerStoreError) in try store.record(latest.reading, at: latest.time) }
            lastWrite = Monotonic.milliseconds
        }
        attempt { store throws(OdometerStoreError) in try store.flush() }
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
