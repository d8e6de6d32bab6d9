/// What a ``Publisher``'s thread calls besides its status reports, for a program that
/// talks with the broker's other clients (Home Assistant's `homeassistant/status`).
///
/// Both run on the publisher's thread, between its network steps: they must not block,
/// and they may call ``Publisher/publish(_:)`` (the spool has its own lock).
public struct PublisherHooks: Sendable {
    /// A message arrived on one of ``PublisherConfiguration/subscriptions``.
    public var onMessage: @Sendable (ReceivedMessage) -> Void
    /// The thread woke up (at least once a second while it runs), with the monotonic
    /// milliseconds it woke at: for work due at a time, such as an update held back.
    public var onWake: @Sendable (Int64) -> Void

    public init(
        onMessage: @escaping @Sendable (ReceivedMessage) -> Void = { _ in },
        onWake: @escaping @Sendable (Int64) -> Void = { _ in }
    ) {
        self.onMessage = onMessage
        self.onWake = onWake
    }
}
