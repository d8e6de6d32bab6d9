/// The records of an RFC 4180 text, each with the line it starts on: fields separated by
/// commas, a field in double quotes may hold commas, line breaks and doubled quotes; a
/// record ends at CRLF or LF (loctrack writes CRLF; a file edited elsewhere may have LF).
struct CSVRecords: Sequence, IteratorProtocol {
    struct Record: Equatable {
        var fields: [String]
        /// The 1-based line the record starts on.
        var line: Int
        /// Whether the record ended with a line break; false for the text's last one when the
        /// text does not end with one (a file cut short, or written without a final newline).
        var isTerminated: Bool
        /// Whether the text ended inside a quoted field.
        var endsInsideQuotes: Bool
    }

    private let bytes: [UInt8]
    private var offset = 0
    private var line = 1

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func next() -> Record? {
        guard offset < bytes.count else { return nil }
        var record = Record(fields: [], line: line, isTerminated: false, endsInsideQuotes: false)
        var field: [UInt8] = []
        var quoted = false
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            if quoted {
                if byte == 0x22 {
                    if offset < bytes.count, bytes[offset] == 0x22 {
                        field.append(0x22)
                        offset += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == 0x0A { line += 1 }
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case 0x22 where field.isEmpty:
                quoted = true
            case 0x2C:
                record.fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            case 0x0D where offset < bytes.count && bytes[offset] == 0x0A:
                continue  // the CR of a CRLF
            case 0x0A:
                line += 1
                record.fields.append(String(decoding: field, as: UTF8.self))
                record.isTerminated = true
                return record
            default:
                field.append(byte)
            }
        }
        record.fields.append(String(decoding: field, as: UTF8.self))
        record.endsInsideQuotes = quoted
        return record
    }
}

/// The columns `loctrack trips` reads from a CSV header: `time`, `lat` and `lon` must be
/// there; `speed`, `eph`, `device` and `mode` are used when they are (loctrack's header
/// has them all, in ``LocTrackFormats/CSVEncoder/columns``' order, but any order will do).
struct CSVHeader: Equatable {
    let count: Int
    let time: Int
    let latitude: Int
    let longitude: Int
    let speed: Int?
    let horizontalError: Int?
    let device: Int?
    let mode: Int?
    /// The columns the page's track also shows (`serve --track` reads JSON lines only, but a
    /// point is the same whichever format recorded it).
    let status: Int?
    let altitudeHAE: Int?
    let altitudeMSL: Int?

    init?(_ line: String) {
        self.init(fields: line.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
    }

    init?(fields: [String]) {
        let names = fields.map { $0.trimmingBlanks().lowercased() }
        func column(_ name: String) -> Int? { names.firstIndex(of: name.lowercased()) }
        guard let time = column("time"), let latitude = column("lat"), let longitude = column("lon") else { return nil }
        count = names.count
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        speed = column("speed")
        horizontalError = column("eph")
        device = column("device")
        mode = column("mode")
        status = column("status")
        altitudeHAE = column("altHAE")
        altitudeMSL = column("altMSL")
    }
}

extension String {
    /// Without the spaces and tabs around it.
    func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
