import Synchronization

/// When the uplink must stop, in monotonic milliseconds: set by the program (``TraccarUplink/finish(drainingFor:)``),
/// read by the uplink's loop between requests and by the transport during one, to cut a
/// request short once the deadline passed (libcurl's transfer blocks until it ends).
package final class StopDeadline: Sendable {
    private let value = Atomic<Int64>(.max)

    package init() {}

    /// The deadline; `Int64.max` while no stop was asked for.
    package var milliseconds: Int64 { value.load(ordering: .acquiring) }

    /// Sets the deadline; the first request's stands.
    package func set(_ deadline: Int64) {
        _ = value.compareExchange(expected: .max, desired: deadline, ordering: .acquiringAndReleasing)
    }
}
