/// Rewrites a report line that is valid JSON but not in gpsd's compact layout
/// into that layout, in place, so that everything after it reads it as gpsd's own.
///
/// gpsd writes `{"class":"TPV","device":…}`: no whitespace, the class first. Some
/// clones and emulators write `{"class": "TPV", "device": …}` or put the class
/// later; both are valid JSON, and libgps reads neither's class (it matches the text
/// `"class":"TPV"`), nor does ``ReportClass`` (a prefix test) or the raw-text lookups
/// of DEVICE and POLL replies. This is the slow path: the reader takes it only for a
/// line that does not start with gpsd's `{"class":"` or end in `}`, and for POLL
/// replies (one per request), so the compact form costs nothing more.
enum CompactReport {
    /// Removes the whitespace outside strings and moves the top-level `"class"` member first.
    /// - Returns: the new length (the line is NUL-terminated there), or nil, with the line
    ///   untouched, when it is not one JSON object with a `"class"` member at its top level
    ///   (strings and brackets are only checked as far as the rewrite needs).
    static func rewrite(_ line: UnsafeMutablePointer<CChar>, length: Int) -> Int? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: max(length, 1)) { buffer -> Int? in
            let compact = buffer.baseAddress!
            guard let layout = compactCopy(from: line, length: length, into: compact) else { return nil }
            let (count, classMember) = layout
            // `{` + the class member + `,` + the members before it + the rest (`,…}` or `}`).
            var write = 0
            func append(_ range: Range<Int>) {
                for index in range {
                    line[write] = compact[index]
                    write += 1
                }
            }
            append(0..<1)
            append(classMember)
            if classMember.lowerBound > 1 {
                line[write] = 0x2C  // ,
                write += 1
                append(1..<(classMember.lowerBound - 1))  // without the comma before the class
            }
            append(classMember.upperBound..<count)
            line[write] = 0
            return write
        }
    }

    /// Copies `line` into `compact` without whitespace outside strings.
    /// - Returns: the compact length and where the top-level class member is in it.
    private static func compactCopy(
        from line: UnsafePointer<CChar>, length: Int, into compact: UnsafeMutablePointer<CChar>
    ) -> (count: Int, classMember: Range<Int>)? {
        var count = 0
        var depth = 0
        var inString = false
        var escaped = false
        var closed = false
        var memberStart = -1  // where the current top-level member starts in `compact`
        var classMember: Range<Int>?
        var classStart: Int?
        for index in 0..<length {
            let byte = UInt8(bitPattern: line[index])
            if inString {
                if byte < 0x20 { return nil }  // a control character: not JSON
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else {
                if byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A { continue }
                if closed { return nil }  // bytes after the object
                if count == 0 && byte != 0x7B { return nil }  // not an object
                switch byte {
                case 0x22:  // "
                    inString = true
                    if depth == 1 && count == memberStart && isClassKey(line, index, length) { classStart = count }
                case 0x7B, 0x5B:  // { [
                    depth += 1
                    if depth == 1 { memberStart = count + 1 }
                case 0x7D, 0x5D:  // } ]
                    depth -= 1
                    if depth < 0 { return nil }
                    if depth == 0 {
                        if byte != 0x7D { return nil }  // `{…]`
                        if let start = classStart, classMember == nil { classMember = start..<count }
                        closed = true
                    }
                case 0x2C where depth == 1:  // , between top-level members
                    if let start = classStart, classMember == nil { classMember = start..<count }
                    memberStart = count + 1
                default:
                    break
                }
            }
            compact[count] = CChar(bitPattern: byte)
            count += 1
        }
        guard closed, !inString, let classMember else { return nil }
        return (count, classMember)
    }

    /// Whether the key starting at `index` (its opening quote) is `"class"`.
    private static func isClassKey(_ line: UnsafePointer<CChar>, _ index: Int, _ length: Int) -> Bool {
        let key = Array("\"class\"".utf8)
        guard index + key.count <= length else { return false }
        return key.indices.allSatisfy { UInt8(bitPattern: line[index + $0]) == key[$0] }
    }
}
