/// Makes a report line safe for libgps 3.22's parser, in place.
///
/// libgps 3.22's JSON parser loops forever on some malformed or unexpected
/// input, found by loctrack's fuzzer: `{="class":"TPV"` and, although it is
/// valid JSON, `{"class":"TPV","a":[{"class":"GST"}]}`. It also stops reading
/// a report at the first array-valued key it does not know. So before libgps
/// sees a TPV, VERSION or ERROR report (none of which has nested values in
/// gpsd's protocol), loctrack checks that the line is exactly one JSON object
/// of `"key":scalar` members and removes every nested member (`"key":[…]`,
/// `"key":{…}`) and every `null` one. Anything else is refused and counted as malformed.
///
/// The rewrite also drops the whitespace valid JSON allows around `:` and `,`
/// (gpsd never writes any; some clones do), so what libgps and the raw-text lookups
/// see is gpsd's compact form: a line without whitespace is left where it is.
enum FlatReport {
    /// Rewrites the NUL-terminated `line` of `length` bytes without nested members.
    /// - Returns: the new length, or nil when the line is not one well-formed JSON object,
    ///   or has a second `"class"` key (libgps picks its parser by searching the text
    ///   for `"class":"…"`, so `{"class":"TPV","class":"DEVICE",…}` went to its DEVICE
    ///   parser, which looped forever on one of loctrack's fuzz inputs).
    static func flatten(_ line: UnsafeMutablePointer<CChar>, length: Int) -> Int? {
        guard let flatLength = removeNestedMembers(line, length: length) else { return nil }
        let classKey = Self.classKey
        let bytes = UnsafeRawBufferPointer(start: line, count: flatLength)
        guard let first = ByteSearch.offset(after: classKey, in: bytes),
              ByteSearch.offset(after: classKey, in: UnsafeRawBufferPointer(rebasing: bytes[first...])) == nil
        else { return nil }
        return flatLength
    }

    private static let classKey = Array("\"class\"".utf8)

    private static func removeNestedMembers(_ line: UnsafeMutablePointer<CChar>, length: Int) -> Int? {
        var scanner = Scanner(line: line, length: length)
        guard scanner.take(0x7B) else { return nil }  // {
        var write = 1
        var first = true
        scanner.skipSpace()
        if scanner.take(0x7D) { return finish(line, &write, scanner) }  // {}
        while true {
            scanner.skipSpace()
            let keyStart = scanner.position
            guard scanner.skipString() else { return nil }  // the key
            let keyEnd = scanner.position
            scanner.skipSpace()
            guard scanner.take(0x3A) else { return nil }  // :
            scanner.skipSpace()
            let valueStart = scanner.position
            let nested = scanner.peek == 0x7B || scanner.peek == 0x5B
            guard nested ? scanner.skipNested() : scanner.skipScalar() else { return nil }
            let valueEnd = scanner.position
            if !nested && !isNull(line, valueStart, valueEnd) {
                if write == (first ? keyStart : keyStart - 1) && valueStart == keyEnd + 1 {
                    write = valueEnd  // nothing removed before it and no space in it: already in place
                } else {
                    if !first { line[write] = 0x2C; write += 1 }  // ,
                    copy(line, keyStart..<keyEnd, to: &write)
                    line[write] = 0x3A  // :
                    write += 1
                    copy(line, valueStart..<valueEnd, to: &write)
                }
                first = false
            }
            scanner.skipSpace()
            if scanner.take(0x2C) { continue }
            guard scanner.take(0x7D) else { return nil }  // }
            return finish(line, &write, scanner)
        }
    }

    /// Whether the value is `null`: libgps 3.22 stops reading a report at `"device":null`
    /// or `"time":null`, and gpsd itself leaves out what it does not know.
    private static func isNull(_ line: UnsafeMutablePointer<CChar>, _ start: Int, _ end: Int) -> Bool {
        line[start] == 0x6E && end - start == 4 && line[start + 1] == 0x75 && line[start + 2] == 0x6C && line[start + 3] == 0x6C
    }

    /// Moves `range` down to `write` (never above it), and `write` past it.
    private static func copy(_ line: UnsafeMutablePointer<CChar>, _ range: Range<Int>, to write: inout Int) {
        for index in range {
            line[write] = line[index]
            write += 1
        }
    }

    private static func finish(_ line: UnsafeMutablePointer<CChar>, _ write: inout Int, _ scanner: Scanner) -> Int? {
        var scanner = scanner
        scanner.skipSpace()
        guard scanner.atEnd else { return nil }  // trailing bytes after the object
        line[write] = 0x7D
        write += 1
        line[write] = 0
        return write
    }

    private struct Scanner {
        let line: UnsafeMutablePointer<CChar>
        let length: Int
        var position = 0

        var atEnd: Bool { position >= length }
        var peek: UInt8 { atEnd ? 0 : UInt8(bitPattern: line[position]) }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte, !atEnd else { return false }
            position += 1
            return true
        }

        mutating func skipSpace() {
            while !atEnd, peek == 0x20 || peek == 0x09 || peek == 0x0D { position += 1 }
        }

        /// A JSON string with its escapes; control characters are refused.
        mutating func skipString() -> Bool {
            guard take(0x22) else { return false }
            while !atEnd {
                let byte = peek
                position += 1
                if byte == 0x22 { return true }
                if byte < 0x20 { return false }
                if byte == 0x5C {
                    guard !atEnd else { return false }
                    position += 1
                }
            }
            return false
        }

        /// A number or a literal (true, false, null): the characters they are made of.
        mutating func skipScalar() -> Bool {
            if peek == 0x22 { return skipString() }
            let start = position
            while !atEnd {
                let byte = peek
                let isNumberOrLiteral = (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x2B || byte == 0x2E
                    || (0x61...0x7A).contains(byte) || byte == 0x45
                guard isNumberOrLiteral else { break }
                position += 1
            }
            return position > start
        }

        /// A nested object or array, with balanced brackets and well-formed strings.
        mutating func skipNested() -> Bool {
            var depth = 0
            while !atEnd {
                switch peek {
                case 0x22:
                    guard skipString() else { return false }
                    continue
                case 0x7B, 0x5B:
                    depth += 1
                case 0x7D, 0x5D:
                    depth -= 1
                    if depth == 0 {
                        position += 1
                        return true
                    }
                default:
                    break
                }
                position += 1
            }
            return false
        }
    }
}
