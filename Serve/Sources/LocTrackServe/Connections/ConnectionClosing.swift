public import NIOCore

/// Closing a connection after an answer without losing the answer.
public enum ConnectionClosing {
    /// How long a client has, after the answer, to close its side before the server
    /// closes the connection anyway.
    public static let lingering = TimeAmount.seconds(2)

    /// Ends the server's side now (the answer already written goes out, then FIN) and
    /// closes the connection after ``lingering``. Closing at once while the client still
    /// sends (a body, the rest of an oversized head) would make the kernel answer with a
    /// reset, and a client may then lose the answer it had not read yet.
    public static func closeAfterAnswer(_ channel: any Channel) {
        channel.close(mode: .output, promise: nil)
        channel.eventLoop.scheduleTask(in: lingering) { channel.close(promise: nil) }
    }
}
