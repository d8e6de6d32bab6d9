/// One server-sent event as written on the stream (the HTML standard's `text/event-stream`):
/// `id: RUN-N`, `event: NAME`, one `data:` line per line of the data, and a blank line.
package struct ServerSentEvent: Sendable, Equatable {
    /// The event names of docs/http.md.
    package enum Name: String, Sendable, CaseIterable {
        case fix, sky, status, distance, region, reset
    }

    package var id: EventID
    package var name: Name
    /// JSON in one line, as every event of docs/http.md has it; text with line breaks is
    /// written as several `data:` lines, which a client joins back with `\n`.
    package var data: String

    package init(id: EventID, name: Name, data: String) {
        self.id = id
        self.name = name
        self.data = data
    }

    /// The event as sent, ending with its blank line.
    package var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.utf8.count + 48)
        bytes += Array("id: \(id)\nevent: \(name.rawValue)\n".utf8)
        // CR, LF and CRLF all end a line in an event stream: each line of the data gets its
        // own field, so that none of them can end the event early or forge another field.
        let utf8 = Array(data.utf8)
        var start = 0
        var index = 0
        while index <= utf8.count {
            if index == utf8.count || utf8[index] == 0x0A || utf8[index] == 0x0D {
                bytes += Self.dataField
                bytes += utf8[start..<index]
                bytes.append(0x0A)
                if index + 1 < utf8.count, utf8[index] == 0x0D, utf8[index + 1] == 0x0A { index += 1 }
                start = index + 1
            }
            index += 1
        }
        bytes.append(0x0A)
        return bytes
    }

    private static let dataField = Array("data: ".utf8)

    /// A comment line: keeps a quiet connection open through proxies and tells a client
    /// that the server is there (docs/http.md: every 15 s when nothing else was sent).
    package static let keepAlive: [UInt8] = Array(": keep-alive\n\n".utf8)
}
