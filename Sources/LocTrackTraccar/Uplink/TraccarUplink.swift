import LocTrack
public import LocTrackSpool
import LocTrackSystem
import Synchronization

/// Sends positions to a Traccar server with nothing lost: store and forward, strictly
/// oldest first.
///
/// ``publish(_:)`` appends positions (OsmAnd queries, ``OsmAndQuery``) to the on-disk
/// spool (durably, before it returns) and wakes the uplink's thread, `loctrack-traccar`;
/// no network I/O happens on the caller's thread. That thread owns the HTTP client (one
/// libcurl handle, one keep-alive connection): it sends the spool's oldest position, one
/// request at a time, and removes it from the spool only once the server answered 2xx. A
/// server that is down, a dropped network, or a crash of this process therefore loses
/// nothing: the spool is sent first when the server is back and on the next start.
///
/// The thread is ``UploaderLoop``, which performs what ``UploaderStateMachine`` decides,
/// over an ``HTTPTransport``; the spool, the wake-up, the thread and the drain at the end
/// are LocTrackSpool's store-and-forward shell (``SpoolUplinkThread``, ``UplinkChannel``),
/// as for LocTrackMQTT's `Publisher`. The thread is the uplink's: ``finish(drainingFor:)``
/// returns once it has ended and been joined, and an uplink released without `finish`
/// stops it at once (a request under way is cut short within about a second; what the
/// server has not answered stays in the spool) and joins it.
public final class TraccarUplink: Sendable {
    /// The thread, and what it runs on: everything but the uplink itself.
    private let thread: SpoolUplinkThread<UplinkCore>
    var core: UplinkCore { thread.core }

    /// How long ``finish(promptly:)`` lets the thread drain: briefly after a signal (the
    /// user wants out), long enough for a backlog otherwise, as `--publish mqtt://` does.
    public static let promptDrain = Duration.seconds(2)
    public static let fullDrain = Duration.seconds(60)

    /// Loads libcurl, opens the spool and starts the uplink's thread, which sends what the
    /// spool holds at once.
    /// - Parameter onStatus: called on the uplink's thread for every change worth
    ///   reporting (see ``UplinkStatus``), and on the caller's for a full spool.
    /// - Throws: ``TraccarUplinkError``: libcurl is missing, the spool cannot be opened,
    ///   the thread cannot start.
    public init(_ configuration: TraccarUplinkConfiguration, onStatus: @escaping @Sendable (UplinkStatus) -> Void) throws(TraccarUplinkError) {
        let library: CurlLibrary
        do {
            library = try CurlLibrary.shared()
        } catch {
            throw .curl(error.description)
        }
        let core = try UplinkCore(configuration, onStatus: onStatus)
        do throws(Errno) {
            thread = try SpoolUplinkThread(named: "loctrack-traccar", core: core) { core in
                UploaderLoop.runWithCurl(core, library: library)
            }
        } catch {
            throw .thread(error.code)
        }
    }

    /// Spools `positions` (OsmAnd queries, in order, durably) and wakes the thread. Over the
    /// spool's limit the oldest are dropped, and said (``UplinkStatus/droppedOldest(count:limitBytes:)``).
    /// - Returns: false once the uplink cannot go on (the spool failed: said once through
    ///   `onStatus` as ``UplinkStatus/failed(reason:)``, which is fatal).
    public func publish(_ positions: [[UInt8]]) -> Bool {
        core.publish(positions)
    }

    /// Positions in the spool that the server has not taken.
    public var pendingCount: Int { core.spool.pendingCount }

    /// Positions sent again after a connection closed without a reply: the server may have
    /// stored them twice (Traccar stores duplicates). Counted since this uplink started.
    public var possibleDuplicates: Int { core.possibleDuplicates.load(ordering: .relaxed) }

    /// ``finish(drainingFor:)`` with ``promptDrain`` or ``fullDrain``.
    public func finish(promptly: Bool) async {
        await finish(drainingFor: promptly ? Self.promptDrain : Self.fullDrain)
    }

    /// Stops the thread: it first sends what is spooled for up to `drain`, then ends (a
    /// request under way at the deadline is cut short). What the server has not taken
    /// stays in the spool for the next start.
    public func finish(drainingFor drain: Duration) async {
        await thread.finish(drainingFor: drain)
    }
}

/// Why a ``TraccarUplink`` could not start.
public enum TraccarUplinkError: Error, Sendable, CustomStringConvertible {
    /// libcurl could not be loaded: the dynamic linker's words.
    case curl(String)
    /// The spool failed (its folder cannot be made, a corrupt spool, another process
    /// using it): its error says which file and why.
    case spool(SpoolError)
    case thread(Int32)

    public var description: String {
        switch self {
        case .curl(let reason): "traccar: cannot load libcurl (Debian's libcurl4): \(reason)"
        case .spool(let error): error.description
        case .thread(let code): "traccar: cannot start the uplink's thread: \(Errno(code: code))"
        }
    }
}
