import LocTrackSystem

/// Splits gpsd's byte stream into complete lines without ever spinning on a partial one.
///
/// loctrack frames lines itself instead of calling `gps_read`: `gps_read` parses
/// every line (SKY lines are large and cost most of the time, and most
/// consumers never look at them), returns -1 forever once a line outgrows its
/// 20 KB buffer, and cannot hand back the raw `POLL` reply. Each complete line
/// still goes to libgps's own parser (`gps_unpack`).
struct LineFramer: ~Copyable {
    /// Longest line kept. gpsd's longest reports (SKY with 100+ satellites, POLL)
    /// stay well under this; anything longer is dropped up to its newline.
    static let maximumLineLength = 65_536

    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var discardingOverlongLine = false
    /// Lines dropped because they outgrew ``maximumLineLength``.
    private(set) var overlongLines = 0

    init() {
        buffer = .allocate(byteCount: Self.maximumLineLength + 1, alignment: 1)
    }

    deinit { buffer.deallocate() }

    /// Bytes of an incomplete line waiting for the rest.
    var pendingByteCount: Int { end - start }

    /// Reads what the non-blocking `socket` has, and calls `line` for every complete
    /// line with a NUL-terminated, mutable pointer valid only during the call.
    ///
    /// - Returns: `.open` after the socket would block (or a read took less than it
    ///   could: all the socket had), `.endOfFile` when the peer closed it,
    ///   `.failed(errno)` on a read error.
    /// - Parameter maximumReads: stop after this many reads (the caller polls again and
    ///   can check its downstream in between); `.more` then, with data possibly left.
    /// - Parameter overlong: called when a line outgrows ``maximumLineLength``, once
    ///   per line, in order with the lines around it.
    mutating func drain(
        _ socket: Int32, maximumReads: Int = .max, overlong: () -> Void = {},
        _ line: (_ text: UnsafeMutablePointer<CChar>, _ length: Int) -> Void
    ) -> ReadOutcome {
        for _ in 0..<maximumReads {
            let overlongBefore = overlongLines
            makeRoom()
            if overlongLines > overlongBefore { overlong() }
            let count: Int
            do throws(Errno) {
                count = try systemRead(socket, buffer.baseAddress! + end, buffer.count - end)
            } catch {
                return error == .wouldBlock ? .open : .failed(error.code)
            }
            if count == 0 { return .endOfFile }
            let room = buffer.count - end
            let scanFrom = end
            end += count
            emitLines(scanningFrom: scanFrom, line)
            // A read that did not fill the room took all the socket had: another would
            // only say EAGAIN. Return to poll() (one system call fewer per report at 1 Hz).
            if count < room { return .open }
        }
        return .more
    }

    /// Frames bytes already in memory (tests, replays).
    mutating func append(
        _ bytes: some Collection<UInt8>, _ line: (_ text: UnsafeMutablePointer<CChar>, _ length: Int) -> Void
    ) {
        for byte in bytes {
            makeRoom()
            buffer[end] = byte
            end += 1
            if byte == 0x0A { emitLines(scanningFrom: end - 1, line) }
        }
    }

    private mutating func emitLines(
        scanningFrom scanStart: Int, _ line: (_ text: UnsafeMutablePointer<CChar>, _ length: Int) -> Void
    ) {
        let base = buffer.baseAddress!
        var cursor = scanStart
        while cursor < end {
            guard let found = findByte(base + cursor, 0x0A, end - cursor) else { break }
            let newline = base.distance(to: UnsafeMutableRawPointer(found))
            if discardingOverlongLine {
                discardingOverlongLine = false
            } else {
                var length = newline - start
                if length > 0 && buffer[newline - 1] == 0x0D { length -= 1 }  // tolerate CRLF
                buffer[start + length] = 0
                line((base + start).assumingMemoryBound(to: CChar.self), length)
            }
            start = newline + 1
            cursor = start
        }
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Makes space at the end: moves the partial line to the front, or drops a
    /// line that fills the whole buffer (the rest of it is dropped up to its newline).
    private mutating func makeRoom() {
        guard end == buffer.count else { return }
        compact()
        if end == buffer.count {
            start = 0
            end = 0
            if !discardingOverlongLine { overlongLines += 1 }  // one count per line, however long
            discardingOverlongLine = true
        }
    }

    private mutating func compact() {
        guard start > 0 else { return }
        let base = buffer.baseAddress!
        moveBytes(base, base + start, end - start)
        end -= start
        start = 0
    }
}

enum ReadOutcome: Equatable {
    /// The socket is open and was drained: the next poll() sleeps until gpsd writes.
    case open
    /// The socket is open and the last read filled the buffer: it may hold more.
    case more
    case endOfFile
    case failed(Int32)
}
