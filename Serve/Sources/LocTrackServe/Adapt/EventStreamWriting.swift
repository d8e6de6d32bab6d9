import HTTPTypes
import HummingbirdCore
import LocTrackWeb
import NIOCore

/// Writes a server-sent event stream as a chunked body, each chunk as soon as the stream
/// gives it (NIO's async writer flushes every write), and detaches the client from its
/// broadcaster the moment either side is done: the stream ended, a write failed, or the
/// connection closed while nothing was being written (the client went away, was cut for
/// not reading, or the server is stopping).
enum EventStreamWriting {
    static func write(
        _ stream: EventStream, head: HTTPResponse, to writer: consuming ResponseWriter, channel: any Channel
    ) async throws {
        // Between chunks the writer waits in the stream, where a closed connection would
        // go unnoticed until the next keep-alive; its close ends that wait at once.
        channel.closeFuture.whenComplete { _ in stream.cancel() }
        defer { stream.cancel() }
        var body = try await writer.writeHead(head)
        for await chunk in stream {
            try await body.write(ByteBuffer(bytes: chunk))
        }
        try await body.finish(nil)
    }
}
