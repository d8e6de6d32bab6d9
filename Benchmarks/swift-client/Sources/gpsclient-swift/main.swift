// gpsclient-swift: Benchmarks/c-client/gpsclient.c ported to Swift, line for line.
//
// The baseline a Swift user writes by hand: libgps's gps_open, gps_stream(WATCH_ENABLE |
// WATCH_JSON), then gps_waiting / gps_read in a loop on one thread, as libgps(3) shows,
// printing one JSON line per TPV with mode >= 2 exactly as the C client does (gpsd's field
// names, order and precisions, unknown values left out). stdout is fully buffered and
// flushed once per wake-up. printf is variadic, which Swift cannot call, so each line goes
// through vprintf with withVaList: the usual Swift answer.
//
// Usage: gpsclient-swift [--once] [HOST:PORT]      (default 127.0.0.1:2947)
//   --once   exit 0 after the first TPV with mode >= 2.
// Exit: 0 when gpsd closes the connection (or after --once's fix); 1 on errors.
import CLibGPS
import Glibc

// Swift 6 refuses C's `stdout` and `stderr` (mutable C globals), so the program opens its
// own FILEs on descriptors 1 and 2. A FILE pointer is not Sendable: at this C boundary it is
// nonisolated(unsafe), which is sound because the program has one thread.
nonisolated(unsafe) let output = fdopen(STDOUT_FILENO, "w")!
nonisolated(unsafe) let errors = fdopen(STDERR_FILENO, "w")!

/// printf(3), through its va_list twin.
func printf(_ format: String, _ arguments: any CVarArg...) {
    _ = withVaList(arguments) { vfprintf(output, format, $0) }
}

func field(_ name: String, _ value: Double, _ decimals: Int32) {
    if value.isFinite {
        name.withCString { printf(",\"%s\":%.*f", $0, decimals, value) }
    }
}

func printFix(_ gps: UnsafePointer<gps_data_t>) {
    let f = gps.pointee.fix
    printf("{\"class\":\"TPV\"")
    withUnsafeBytes(of: gps.pointee.dev.path) { path in
        let device = path.baseAddress!.assumingMemoryBound(to: CChar.self)
        if device[0] != 0 { printf(",\"device\":\"%s\"", device) }
    }
    if f.status >= 2 { printf(",\"status\":%d", f.status) }
    printf(",\"mode\":%d", f.mode)
    if f.time.tv_sec != 0 || f.time.tv_nsec != 0 {
        var sec = f.time.tv_sec
        var ms = (f.time.tv_nsec + 500_000) / 1_000_000
        if ms >= 1000 { sec += 1; ms -= 1000 }
        var brokenDown = tm()
        var when = [CChar](repeating: 0, count: 32)
        gmtime_r(&sec, &brokenDown)
        strftime(&when, when.count, "%Y-%m-%dT%H:%M:%S", &brokenDown)
        when.withUnsafeBufferPointer { printf(",\"time\":\"%s.%03ldZ\"", $0.baseAddress!, ms) }
    }
    field("ept", f.ept, 3)
    field("lat", f.latitude, 9)
    field("lon", f.longitude, 9)
    field("altHAE", f.altHAE, 4)
    field("altMSL", f.altMSL, 4)
    field("epx", f.epx, 3)
    field("epy", f.epy, 3)
    field("epv", f.epv, 3)
    field("track", f.track, 4)
    field("magtrack", f.magnetic_track, 4)
    field("magvar", f.magnetic_var, 1)
    field("speed", f.speed, 3)
    field("climb", f.climb, 3)
    field("epd", f.epd, 4)
    field("eps", f.eps, 2)
    field("epc", f.epc, 2)
    field("geoidSep", f.geoid_sep, 3)
    field("eph", f.eph, 3)
    field("sep", f.sep, 3)
    fputs("}\n", output)
}

func run() -> Int32 {
    var once = false
    var source = "127.0.0.1:2947"
    for argument in CommandLine.arguments.dropFirst() {
        if argument == "--once" { once = true } else { source = argument }
    }
    var host = source
    var port = "2947"
    if let colon = source.lastIndex(of: ":") {
        host = String(source[..<colon])
        port = String(source[source.index(after: colon)...])
    }

    signal(SIGPIPE, SIG_IGN)
    setvbuf(output, nil, _IOFBF, 1 << 16)

    // 24 KB: on the heap, as in C.
    let gps = calloc(1, MemoryLayout<gps_data_t>.size)!.assumingMemoryBound(to: gps_data_t.self)
    if gps_open(host, port, gps) != 0 {
        fputs("gpsclient-swift: \(host):\(port): \(String(cString: gps_errstr(errno)))\n", errors)
        return 1
    }
    gps_stream(gps, WATCH_ENABLE | WATCH_JSON, nil)

    var message = [CChar](repeating: 0, count: 32)  // enough to tell the class from the line's start
    while true {
        // As libgps(3) shows: wait up to 5 s for data (true at once while libgps holds some).
        guard gps_waiting(gps, 5_000_000) else { continue }
        while true {
            gps.pointee.set = 0  // libgps only clears PACKET_SET itself
            let r = gps_read(gps, &message, Int32(message.count))
            if r == 0 { break }  // no complete line left: wait again
            if r < 0 {  // EOF or error: gpsd is gone
                fflush(output)
                gps_close(gps)
                return 0
            }
            if strncmp(message, "{\"class\":\"TPV\"", 14) == 0 && gps.pointee.fix.mode >= MODE_2D {
                printFix(gps)
                if once {
                    fflush(output)
                    gps_close(gps)
                    return 0
                }
            }
        }
        if fflush(output) != 0 { return errno == EPIPE ? 0 : 1 }
    }
}

exit(run())
