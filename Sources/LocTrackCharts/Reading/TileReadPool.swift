import LocTrackSystem
import Synchronization

/// Reads tiles on threads of its own, so that SQLite's blocking reads (a slow SD card, a
/// chart of several GB) never hold up the server's event loops or Swift's cooperative pool.
///
/// Each thread opens its own read-only connection to every file and its own prepared
/// statements (a connection belongs to one thread: ``ReadOnlyDatabase``). Requests wait in
/// one queue, in order, at most ``queueLimit`` of them; a thread takes one, reads, and
/// delivers the tile after the queue's lock is released. Shut down by a flag, a
/// wake-up per thread and a join (``stop()``), as swift-subprocess's thread does.
final class TileReadPool: Sendable {
    /// What a reader answers a request with, on its own thread: the waiting task's
    /// continuation, or the server's hand-over to its event loop.
    typealias Delivery = @Sendable (TileLookup) -> Void

    private struct Job: Sendable {
        let address: TileAddress
        let deliver: Delivery
    }

    private struct Queue {
        var jobs: [Job] = []
        var head = 0
        var stopping = false

        var waiting: Int { jobs.count - head }

        mutating func take() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            // Drop the taken ones once they are half the array: O(1) amortised.
            if head > 64 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    /// One reader thread, joined when it goes (``JoinableThread``).
    private final class Reader: Sendable {
        let thread: JoinableThread
        init(_ thread: consuming JoinableThread) { self.thread = thread }
    }

    /// Requests waiting at most; one more is answered ``TileLookup/busy``.
    let queueLimit: Int
    private let queue = Mutex(Queue())
    private let wakeUp = Semaphore()
    private let readers = Mutex<[Reader]>([])

    /// Starts `threads` readers over `paths` (the layers' files, in layer order).
    init(paths: [String], threads: Int, queueLimit: Int = 1_024) throws(Errno) {
        self.queueLimit = queueLimit
        var started: [Reader] = []
        for index in 1...max(1, threads) {
            let thread = try JoinableThread(named: "loctrack-tiles-\(index)") { [self] in
                self.run(paths: paths)
            }
            started.append(Reader(thread))
        }
        readers.withLock { $0 = started }
    }

    /// Reads the tile's bytes from its file on a reader thread and calls `deliver` there
    /// with them (at once, on the calling thread, with ``TileLookup/busy`` when the queue is full).
    func read(_ address: TileAddress, deliver: @escaping Delivery) {
        let queued = queue.withLock { queue -> Bool in
            guard !queue.stopping, queue.waiting < queueLimit else { return false }
            queue.jobs.append(Job(address: address, deliver: deliver))
            return true
        }
        if queued {
            wakeUp.signal()
        } else {
            deliver(.busy)
        }
    }

    /// Ends the threads once each has finished the read it is doing, answers what still
    /// waits as unreadable, and joins them.
    func stop() {
        let count = readers.withLock { $0.count }
        let left = queue.withLock { queue -> [Job] in
            queue.stopping = true
            defer { queue.jobs = []; queue.head = 0 }
            return Array(queue.jobs[queue.head...])
        }
        for job in left { job.deliver(.unreadable("the server is stopping")) }
        for _ in 0..<count { wakeUp.signal() }
        let joined = readers.withLock { readers -> [Reader] in
            defer { readers = [] }
            return readers
        }
        _ = joined  // each Reader's thread is joined as it goes, here, outside every lock
    }

    /// A reader thread's life: open the files, then read what is asked until stopped.
    private func run(paths: [String]) {
        let statements: Result<[Statement], SQLiteError>
        var databases: [ReadOnlyDatabase] = []
        do throws(SQLiteError) {
            var prepared: [Statement] = []
            for path in paths {
                let database = try ReadOnlyDatabase(path: path)
                databases.append(database)
                prepared.append(try database.prepare(ChartFileInspection.tileQuery))
            }
            statements = .success(prepared)
        } catch {
            statements = .failure(error)
        }
        while true {
            wakeUp.wait()
            guard let job = queue.withLock({ queue in queue.stopping ? nil : queue.take() }) else {
                if queue.withLock({ $0.stopping }) { return }
                continue
            }
            let lookup: TileLookup
            switch statements {
            case .success(let statements):
                lookup = Self.read(job.address, with: statements[job.address.layer - 1])
            case .failure(let error):
                lookup = .unreadable(error.description)
            }
            job.deliver(lookup)
        }
    }

    private static func read(_ address: TileAddress, with statement: Statement) -> TileLookup {
        do throws(SQLiteError) {
            try statement.start(Int64(address.zoom), Int64(address.column), Int64(address.storedRow))
            guard try statement.step(), let bytes = statement.bytes(0), !bytes.isEmpty else { return .absent }
            let type = TileImageType(sniffing: bytes).contentType ?? Self.contentType(address.fileExtension)
            return .found(TileData(bytes: bytes, contentType: type))
        } catch {
            return .unreadable(error.description)
        }
    }

    static func contentType(_ fileExtension: String) -> String {
        switch fileExtension {
        case "jpg": "image/jpeg"
        case "webp": "image/webp"
        default: "image/png"
        }
    }
}
