import LocTrackSystem

/// Ending a connection as a polite gpsd client does: the watch turned off, then what gpsd
/// still sends read and dropped until its WATCH reply says the watch is off, so the socket
/// closes with nothing unread.
///
/// Why: closing a socket with unread bytes resets the connection (RST) at once. gpsd, still
/// writing the reports it had queued, then fails a write and drops the client before it
/// reads the client's last command. gpsd 3.25, which sends a TPV after each NMEA sentence,
/// did so in a test: it never read loctrack's `?WATCH={"enable":false}`. A gpsd that does
/// not answer costs at most `grace` at the end.
enum Unwatch {
    /// The start of gpsd's reply to the unwatch, `{"class":"WATCH","enable":false,…}`.
    private static let reply = Array(#""class":"WATCH","enable":false"#.utf8)

    static func send(on transport: any GPSDTransport, grace: Duration) {
        guard (try? transport.send(GPSDCommand.unwatch)) != nil, grace > .zero else { return }
        let deadline = Monotonic.milliseconds + grace.milliseconds
        var unread: [UInt8] = []  // the bytes since the last that cannot start the reply
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline - Monotonic.milliseconds
            guard remaining > 0,
                let ready = try? pollOne(transport.descriptor, events: .readable, milliseconds: Int32(clamping: remaining)),
                !ready.isEmpty
            else { return }
            let count: Int
            do throws(Errno) {
                count = try systemRead(transport.descriptor, into: &buffer)
            } catch {
                if error == .wouldBlock { continue }
                return
            }
            if count == 0 { return }  // gpsd closed
            unread += buffer[..<count]
            if unread.withUnsafeBytes({ ByteSearch.offset(after: reply, in: $0) }) != nil { return }
            unread.removeFirst(max(0, unread.count - (reply.count - 1)))
        }
    }
}
