public import HummingbirdCore
public import LocTrackWeb
public import NIOCore
import HTTPTypes

/// Hummingbird's responder for LocTrackWeb's routes: each request becomes a ``WebRequest``,
/// the routes answer, and the ``WebResponse`` is written: a whole body with its
/// Content-Length, or an event stream chunk by chunk as it comes.
public struct WebResponder: Sendable {
    /// What `serve` answers (LocTrackWeb's `WebService.respond(to:)`).
    /// Async only for what must be read first (a chart's tile, on a reader thread); the
    /// rest is answered without suspending.
    public typealias Respond = @Sendable (WebRequest) async -> WebResponse

    /// A whole body goes out in slices of this size, each written when the connection can
    /// take it, so that NIO holds at most about one slice beyond its high-water mark and a
    /// client reading slowly, but reading, is never taken for a stalled one
    /// (``StalledReaderCloser``).
    static let sliceSize = 16 * 1024

    let respond: Respond

    public init(_ respond: @escaping Respond) {
        self.respond = respond
    }

    /// For `HTTP1Channel(responder:)`.
    public func handle(_ request: Request, writer: consuming ResponseWriter, channel: any Channel) async throws {
        let webRequest = WebRequest(request.head)
        let response = await respond(webRequest)
        var head = response.head(method: request.method)
        // A body is refused (413) without being read: the connection closes after the
        // answer, so that a client cannot keep it busy by sending the body slowly.
        if webRequest.hasBody { head.headerFields[.connection] = "close" }
        let sendsBody = request.method != .head && head.status.code != 204 && head.status.code != 304
        switch response.body {
        case .bytes(let bytes) where sendsBody && !bytes.isEmpty:
            try await writer.write(response: head, body: Self.slices(of: bytes))
        case .bytes:
            try await writer.writeResponse(head)
        case .events(let stream) where sendsBody:
            try await EventStreamWriting.write(stream, head: head, to: writer, channel: channel)
        case .events(let stream):
            stream.cancel()
            try await writer.writeResponse(head)
        }
        if webRequest.hasBody { ConnectionClosing.closeAfterAnswer(channel) }
    }

    /// `bytes` as a body written slice by slice, each when the channel is writable again.
    static func slices(of bytes: [UInt8]) -> ResponseBody {
        if bytes.count <= sliceSize { return ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)) }
        return ResponseBody(contentLength: bytes.count) { writer in
            var start = 0
            while start < bytes.count {
                let end = min(start + sliceSize, bytes.count)
                try await writer.write(ByteBuffer(bytes: bytes[start..<end]))
                start = end
            }
            try await writer.finish(nil)
        }
    }
}
