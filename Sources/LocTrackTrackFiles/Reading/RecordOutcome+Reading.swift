import LocTrackRecordedLines

extension TrackFileReading {
    /// Adds what the record on `line` (1-based) came to.
    mutating func take(_ outcome: RecordOutcome, at location: @autoclosure () -> String) {
        switch outcome {
        case .point(let point): points.append(point)
        case .notAPosition: break
        case .unreadable(let reason): skipUnreadable(RecordProblem(location(), reason))
        case .untimed: untimed += 1
        }
    }
}

/// A number as track files write it: plain decimal (`52.516290000`, `-0.5`, `1e3`), or nil
/// for anything else, `nan` and `inf` included (Swift's `Double("nan")` would read those).
/// Blanks around it are allowed (XML text).
func decimalNumber(_ text: some StringProtocol) -> Double? {
    var string = String(text)
    return string.withUTF8 { decimalNumber(bytes: UnsafeRawBufferPointer($0)) }
}

private func decimalNumber(bytes: UnsafeRawBufferPointer) -> Double? {
    var start = 0, end = bytes.count
    while start < end, TrackFileFormat.isWhitespace(bytes[start]) { start += 1 }
    while end > start, TrackFileFormat.isWhitespace(bytes[end - 1]) { end -= 1 }
    guard start < end else { return nil }
    let number = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    // The way GPX, TCX and KML write coordinates and speeds (`-0.5`, `52.516290000`): an
    // optional minus, digits with at most one point. Read in place, exactly rounded
    // (``JSONNumberText``); a `Double(String)` per coordinate was the most of a GPX's cost.
    var digits = 0, points = 0, plain = true
    for (index, byte) in number.enumerated() {
        if byte >= 0x30, byte <= 0x39 {
            digits += 1
        } else if byte == 0x2E {
            points += 1
        } else if !(byte == 0x2D && index == 0) {
            plain = false
            break
        }
    }
    if plain, digits > 0, points <= 1 { return JSONNumberText.value(number) }
    guard let first = number.first, first == 0x2D || first == 0x2B || first == 0x2E || (0x30...0x39).contains(first),
          number.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B || $0 == 0x65 || $0 == 0x45 }),
          let value = Double(String(decoding: number, as: UTF8.self)), value.isFinite
    else { return nil }
    return value
}
