import Glibc

// poll(2), with the events as an option set instead of POLL… flags.

/// The events `poll(2)` waits for and reports.
package struct PollEvents: OptionSet, Hashable, Sendable {
    package let rawValue: Int16

    package init(rawValue: Int16) { self.rawValue = rawValue }

    /// `POLLIN`: there is something to read (or the peer hung up).
    package static var readable: PollEvents { PollEvents(rawValue: Int16(POLLIN)) }
    /// `POLLOUT`: a write would not block.
    package static var writable: PollEvents { PollEvents(rawValue: Int16(POLLOUT)) }
    /// `POLLERR`: an error is pending (reported even when not asked for).
    package static var error: PollEvents { PollEvents(rawValue: Int16(POLLERR)) }
    /// `POLLHUP`: the peer hung up (reported even when not asked for).
    package static var hangUp: PollEvents { PollEvents(rawValue: Int16(POLLHUP)) }
}

/// Waits up to `milliseconds` (-1: forever) for `events` on `descriptor`.
/// The corresponding C function is `poll(2)`, retried on EINTR.
/// - Returns: the returned events (empty on timeout).
package func pollOne(_ descriptor: Int32, events: PollEvents, milliseconds: Int32) throws(Errno) -> PollEvents {
    var entry = pollfd(fd: descriptor, events: events.rawValue, revents: 0)
    let ready = try valueOrErrno { poll(&entry, 1, milliseconds) }
    return ready == 0 ? [] : PollEvents(rawValue: entry.revents)
}

/// A fixed set of descriptors a thread sleeps on with one `poll(2)`, kept between calls
/// so that a loop allocates nothing per wait.
package struct PollSet {
    private var entries: [pollfd]

    /// `count` entries, each watching nothing until ``set(_:descriptor:events:)``.
    package init(count: Int) {
        entries = [pollfd](repeating: pollfd(fd: -1, events: 0, revents: 0), count: count)
    }

    /// Entry `index` watches `descriptor` for `events` (a negative descriptor is skipped).
    package mutating func set(_ index: Int, descriptor: Int32, events: PollEvents) {
        entries[index] = pollfd(fd: descriptor, events: events.rawValue, revents: 0)
    }

    /// Entry `index` watches its descriptor for `events` from now on.
    package mutating func setEvents(_ index: Int, _ events: PollEvents) {
        entries[index].events = events.rawValue
    }

    /// What the last ``wait(entries:milliseconds:)`` returned for entry `index`.
    package func returned(_ index: Int) -> PollEvents {
        PollEvents(rawValue: entries[index].revents)
    }

    /// Sleeps until one of the first `count` entries (all by default) is ready, or
    /// `milliseconds` pass (-1: forever). The C function is `poll(2)`, retried on EINTR.
    /// - Returns: how many entries are ready, 0 on timeout.
    @discardableResult
    package mutating func wait(entries count: Int? = nil, milliseconds: Int32) throws(Errno) -> Int {
        for index in entries.indices { entries[index].revents = 0 }
        let watched = nfds_t(count ?? entries.count)
        return Int(try valueOrErrno { poll(&entries, watched, milliseconds) })
    }
}
