/// Splits gpsd's `POLL` reply, which libgps 3.22 cannot parse, into its parts:
/// gpsd's clock at the time of the reply and each TPV object of its `tpv` array
/// (which libgps's parser then reads as ordinary TPV reports).
///
/// `{"class":"POLL","time":"2026-…Z","active":1,"tpv":[{"class":"TPV",…}],"gst":[…],"sky":[…]}`
struct PollReply {
    /// gpsd's wall clock when it answered.
    let time: Timestamp?
    /// Byte ranges of the objects in `"tpv":[…]`.
    let tpvObjects: [Range<Int>]

    init(line: UnsafeRawBufferPointer) {
        time = ByteSearch.offset(after: Array("\"time\":\"".utf8), in: line).flatMap { start in
            line[start...].firstIndex(of: 0x22).flatMap { end in
                Timestamp(iso8601: String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
            }
        }
        guard let arrayStart = ByteSearch.offset(after: Array("\"tpv\":[".utf8), in: line) else {
            tpvObjects = []
            return
        }
        var objects: [Range<Int>] = []
        var depth = 0
        var inString = false
        var escaped = false
        var objectStart = arrayStart
        var index = arrayStart
        scan: while index < line.count {
            let byte = line[index]
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else {
                switch byte {
                case 0x22: inString = true
                case 0x7B, 0x5B:  // { [
                    if depth == 0 { objectStart = index }
                    depth += 1
                case 0x7D, 0x5D:  // } ]
                    if depth == 0 { break scan }  // the end of the tpv array
                    depth -= 1
                    if depth == 0 && byte == 0x7D { objects.append(objectStart..<(index + 1)) }
                default: break
                }
            }
            index += 1
        }
        tpvObjects = objects
    }
}
