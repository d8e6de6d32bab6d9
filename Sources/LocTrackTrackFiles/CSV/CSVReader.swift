import LocTrackRecordedLines

/// Reads a CSV track: the header names the columns (``CSVHeader``), then one row per fix,
/// as `stream --format csv` writes them. A row with another number of fields than the
/// header is unreadable; a last row without its line end that is not whole is where the
/// file was cut.
enum CSVReader {
    static func read(_ bytes: [UInt8]) -> TrackFileReading {
        let file = RecordedBytes(bytes)
        var records = CSVRecords(file.contents)
        guard let first = records.next(), let header = CSVHeader(fields: first.fields) else {
            return TrackFileReading(format: nil)
        }
        var reading = TrackFileReading(format: .csv)
        var lastLine = first.line
        while let record = records.next() {
            lastLine = record.line
            if record.fields.count == 1, record.fields[0].trimmingBlanks().isEmpty, !record.endsInsideQuotes { continue }
            let whole = record.fields.count == header.count && !record.endsInsideQuotes
            guard whole else {
                if record.isTerminated {
                    reading.skipUnreadable(.line(record.line, "\(record.fields.count) fields where the header has \(header.count)"))
                } else {
                    reading.cutShort = .line(record.line, "the last row has no end and is not whole")
                }
                continue
            }
            reading.take(outcome(of: record.fields, header), at: "line \(record.line)")
        }
        if let zeros = file.zerosProblem(afterLine: lastLine + 1), reading.cutShort == nil { reading.cutShort = zeros }
        return reading
    }

    static func outcome(of fields: [String], _ header: CSVHeader) -> RecordOutcome {
        let mode = header.mode.flatMap { Int(fields[$0].trimmingBlanks()) }
        if let mode, mode < 2 { return .notAPosition }
        let timeText = fields[header.time]
        guard let time = RecordedTime.timestamp(timeText) else {
            return .unreadable("time \"\(timeText.prefix(40))\" is not an ISO 8601 time")
        }
        guard let latitude = decimalNumber(fields[header.latitude]) else {
            return .unreadable("lat \"\(fields[header.latitude].prefix(40))\" is not a number")
        }
        guard let longitude = decimalNumber(fields[header.longitude]) else {
            return .unreadable("lon \"\(fields[header.longitude].prefix(40))\" is not a number")
        }
        return .checked(
            time: time, latitude: latitude, longitude: longitude, speed: header.speed.flatMap { decimalNumber(fields[$0]) },
            horizontalError: header.horizontalError.flatMap { decimalNumber(fields[$0]) }, device: header.device.map { fields[$0] },
            altitudeMSL: header.altitudeMSL.flatMap { decimalNumber(fields[$0]) },
            altitudeHAE: header.altitudeHAE.flatMap { decimalNumber(fields[$0]) }, isThreeD: mode == 3,
            isDGPS: header.status.flatMap { Int(fields[$0].trimmingBlanks()) } == 2)
    }
}
