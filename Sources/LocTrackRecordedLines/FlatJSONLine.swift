import LocTrackSystem

/// A JSON line read in place, the way the reader thread takes gpsd's reports (`FlatReport` in
/// LocTrack): no tree, no String per member, only where the values of the members
/// ``JSONRecord`` reads are in the line, at the top and in a GeoJSON Feature's `properties`.
/// Other nested values (a Feature's `geometry`, a SKY's `satellites`) are checked and skipped.
///
/// It is as strict as the JSON tree (``JSONValue/init(parsing:)``) for what it accepts: one
/// object, RFC 8259's numbers (within `Double`'s range), the three literals, no duplicate
/// names in any object. What it does not take on (a string with an escape, a control
/// character or a byte beyond ASCII; nesting deeper than ``maximumDepth``; anything that is
/// not JSON) makes it return nil, and the line goes to the tree, which reads it or says
/// exactly why not. GeoJSON lines are read here, not by the tree, because `serve --track`
/// reads a day of them at start: the tree cost 100,000 instructions a line.
struct FlatJSONLine {
    /// Where a member's value is in the line: a string without its quotes, a number's text,
    /// or a literal (`true`, `false`, `null`). Offsets in 32 bits (a longer line goes to the
    /// tree): ``Members`` is made and filled for every line, and at 12 bytes a value instead
    /// of 24 it is half the memory to clear and copy.
    struct Scalar {
        enum Kind: UInt8 { case string, number, literal }
        private var startOffset: UInt32
        private var endOffset: UInt32
        var kind: Kind

        init(kind: Kind, start: Int, end: Int) {
            self.kind = kind
            startOffset = UInt32(truncatingIfNeeded: start)
            endOffset = UInt32(truncatingIfNeeded: end)
        }

        var start: Int { Int(startOffset) }
        var end: Int { Int(endOffset) }
    }

    /// The values of the members ``JSONRecord`` reads, nil when the line has no such member.
    struct Members {
        var reportClass, type, ownTracksType, mode, time, latitude, longitude, speed, horizontalError, device: Scalar?
        var seconds, velocity, accuracy: Scalar?
        var status, altitudeHAE, altitudeMSL, ownTracksAltitude: Scalar?
    }

    /// What a line holds: its members, and those of its `properties` object when it has one
    /// (a GeoJSON Feature's).
    struct Scanned {
        var members: Members
        var properties: Members?
    }

    /// The members of `line`, or nil when the line is to be read by the tree. `names` is room
    /// for the names of one line (``NameStore``, one per file); more names and the line goes to the tree.
    static func members(of line: UnsafeRawBufferPointer, names: UnsafeMutableBufferPointer<StoredName>) -> Scanned? {
        guard line.count < Int(UInt32.max) else { return nil }
        var scanner = FlatJSONLine(line, names: names)
        return scanner.scanLine()
    }

    /// Deeper nesting is no line loctrack or gpsd writes: the tree reads it (up to its 512).
    static let maximumDepth = 16

    /// Room for the names of one line, kept from line to line.
    struct NameStore {
        /// gpsd's TPV has fewer than 50 members.
        private var names = [StoredName](repeating: StoredName(start: 0, count: 0, hash: 0), count: 64)

        mutating func members(of line: UnsafeRawBufferPointer) -> Scanned? {
            names.withUnsafeMutableBufferPointer { FlatJSONLine.members(of: line, names: $0) }
        }
    }

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    /// The names seen in the line so far, for duplicates: a 128-bit filter of their hashes, and
    /// the names themselves (on the stack) for when it says maybe.
    private let names: UnsafeMutableBufferPointer<StoredName>
    private var nameCount = 0
    /// Where the names of the object being read start in ``names``: each object has its own.
    private var nameBase = 0
    private var filter: (UInt64, UInt64) = (0, 0)

    struct StoredName {
        var start: Int
        var count: Int
        var hash: UInt64
    }

    private init(_ line: UnsafeRawBufferPointer, names: UnsafeMutableBufferPointer<StoredName>) {
        bytes = line
        self.names = names
    }

    private mutating func scanLine() -> Scanned? {
        var scanned = Scanned(members: Members())
        skipSpace()
        guard take(0x7B) else { return nil }  // {
        skipSpace()
        guard !take(0x7D) else { return nil }  // {}: no fix, and the tree says so
        guard scanMembers(into: &scanned.members, properties: &scanned.properties, depth: 0) else { return nil }
        skipSpace()
        return position == bytes.count ? scanned : nil
    }

    /// The members of an object whose `{` is taken and which has at least one, through its `}`:
    /// scalars into `members`, the `properties` object at the top into `properties`, other
    /// nested values checked and skipped. False when the tree is to read the line.
    private mutating func scanMembers(into members: inout Members, properties: inout Members?, depth: Int) -> Bool {
        // The names of this object are checked against each other only.
        let outer = (base: nameBase, count: nameCount, filter: filter)
        nameBase = nameCount
        filter = (0, 0)
        defer { (nameBase, nameCount, filter) = outer }
        while true {
            guard let name = scanName(), isNew(name) else { return false }
            skipSpace()
            guard take(0x3A) else { return false }  // :
            skipSpace()
            // A scalar first: nearly every value is one. A nested value fails it at its first
            // byte, without a move; a bad scalar may have moved, so the first byte decides.
            let valueStart = position
            if let value = scanScalar() {
                if name.count <= 8 { members.set(name.packed, value) }
            } else if valueStart < bytes.count, bytes[valueStart] == 0x7B || bytes[valueStart] == 0x5B {  // { [
                position = valueStart
                if depth == 0, bytes[position] == 0x7B, name.count == 10, isProperties(name) {
                    var nested = Members()
                    var none: Members?
                    position += 1
                    skipSpace()
                    if !take(0x7D) {
                        guard scanMembers(into: &nested, properties: &none, depth: depth + 1) else { return false }
                    }
                    properties = nested
                } else {
                    guard skipNested(depth: depth + 1) else { return false }
                }
            } else {
                return false
            }
            skipSpace()
            if take(0x2C) {  // ,
                skipSpace()
                continue
            }
            return take(0x7D)  // }
        }
    }

    /// A nested object or array, checked as the tree would and skipped.
    private mutating func skipNested(depth: Int) -> Bool {
        guard depth < Self.maximumDepth else { return false }
        if take(0x5B) {  // [
            skipSpace()
            if take(0x5D) { return true }
            while true {
                guard skipValue(depth: depth) else { return false }
                skipSpace()
                if take(0x2C) {
                    skipSpace()
                    continue
                }
                return take(0x5D)  // ]
            }
        }
        guard take(0x7B) else { return false }
        skipSpace()
        if take(0x7D) { return true }
        var ignored = Members()
        var none: Members?
        return scanMembers(into: &ignored, properties: &none, depth: depth)
    }

    private mutating func skipValue(depth: Int) -> Bool {
        guard position < bytes.count else { return false }
        if bytes[position] == 0x7B || bytes[position] == 0x5B { return skipNested(depth: depth + 1) }
        return scanScalar() != nil
    }

    private func isProperties(_ name: ScannedName) -> Bool {
        let word: StaticString = "properties"
        return bytesEqual(bytes.baseAddress! + name.start, word.utf8Start, word.utf8CodeUnitCount)
    }

    // MARK: Names

    private struct ScannedName {
        var start: Int
        var count: Int
        /// The first 8 bytes, little-endian.
        var packed: UInt64
        var hash: UInt64
    }

    /// A member name: ASCII without escapes or control characters, else nil.
    private mutating func scanName() -> ScannedName? {
        guard take(0x22) else { return nil }
        let start = position
        var index = position
        var packed: UInt64 = 0
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 {
                position = index + 1
                return ScannedName(start: start, count: index - start, packed: packed, hash: hash)
            }
            guard byte >= 0x20, byte < 0x80, byte != 0x5C else { return nil }
            if index - start < 8 { packed |= UInt64(byte) &<< (8 &* UInt64(index - start)) }
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
            index += 1
        }
        return nil
    }

    /// Whether `name` is not yet in the line (the tree refuses an object with a name twice).
    private mutating func isNew(_ name: ScannedName) -> Bool {
        guard nameCount < names.count else { return false }
        let slot = (name.hash &* 0x9E37_79B9_7F4A_7C15) >> 57  // 0..<128
        let bit: UInt64 = 1 << (slot & 63)
        let seen = slot < 64 ? filter.0 & bit != 0 : filter.1 & bit != 0
        if seen {
            for other in names[nameBase..<nameCount] where other.hash == name.hash && other.count == name.count {
                if bytesEqual(bytes.baseAddress! + other.start, bytes.baseAddress! + name.start, name.count) { return false }
            }
        } else if slot < 64 {
            filter.0 |= bit
        } else {
            filter.1 |= bit
        }
        names[nameCount] = StoredName(start: name.start, count: name.count, hash: name.hash)
        nameCount += 1
        return true
    }

    // MARK: Values

    private mutating func scanScalar() -> Scalar? {
        guard position < bytes.count else { return nil }
        let start = position
        switch bytes[position] {
        case 0x22:  // "
            var index = position + 1
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x22 {
                    position = index + 1
                    return Scalar(kind: .string, start: start + 1, end: index)
                }
                guard byte >= 0x20, byte < 0x80, byte != 0x5C else { return nil }
                index += 1
            }
            return nil
        case 0x2D, 0x30...0x39:  // - 0-9
            return scanNumber() ? Scalar(kind: .number, start: start, end: position) : nil
        case 0x74: return literal("true") ? Scalar(kind: .literal, start: start, end: position) : nil
        case 0x66: return literal("false") ? Scalar(kind: .literal, start: start, end: position) : nil
        case 0x6E: return literal("null") ? Scalar(kind: .literal, start: start, end: position) : nil
        default: return nil  // a nested object or array, or not JSON
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, within `Double`'s range.
    private mutating func scanNumber() -> Bool {
        let start = position
        _ = take(0x2D)
        let integerStart = position
        if take(0x30) {
            if position < bytes.count, isDigit(bytes[position]) { return false }  // a leading zero
        } else if !digits() {
            return false
        }
        let integerDigits = position - integerStart
        if take(0x2E), !digits() { return false }
        var exponent = false
        if take(0x65) || take(0x45) {
            exponent = true
            if !take(0x2B) { _ = take(0x2D) }
            guard digits() else { return false }
        }
        // Without an exponent, fewer than 309 integer digits are below Double's largest.
        guard exponent || integerDigits > 308 else { return true }
        return JSONNumberText.slowValue(UnsafeRawBufferPointer(rebasing: bytes[start..<position])) != nil
    }

    /// One or more digits.
    @inline(__always)
    private mutating func digits() -> Bool {
        var index = position
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        defer { position = index }
        return index > position
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count, bytesEqual(bytes.baseAddress! + position, word.utf8Start, count) else {
            return false
        }
        position += count
        return true
    }

    // MARK: Bytes

    @inline(__always)
    private mutating func take(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// JSON's whitespace: space, tab, CR, LF.
    @inline(__always)
    private mutating func skipSpace() {
        while position < bytes.count, isJSONWhitespace(bytes[position]) { position += 1 }
    }
}

extension FlatJSONLine.Members {
    /// Keeps `value` when `name` is one of the members read. `name` is a name of up to 8 bytes
    /// as its bytes in little-endian order, which tells such names apart (a name has no zero byte).
    fileprivate mutating func set(_ name: UInt64, _ value: FlatJSONLine.Scalar) {
        switch name {
        case 0x73_73_61_6C_63: reportClass = value  // class
        case 0x65_70_79_74: type = value  // type
        case 0x65_70_79_74_5F: ownTracksType = value  // _type
        case 0x65_64_6F_6D: mode = value  // mode
        case 0x65_6D_69_74: time = value  // time
        case 0x74_61_6C: latitude = value  // lat
        case 0x6E_6F_6C: longitude = value  // lon
        case 0x64_65_65_70_73: speed = value  // speed
        case 0x68_70_65: horizontalError = value  // eph
        case 0x65_63_69_76_65_64: device = value  // device
        case 0x74_73_74: seconds = value  // tst
        case 0x6C_65_76: velocity = value  // vel
        case 0x63_63_61: accuracy = value  // acc
        case 0x73_75_74_61_74_73: status = value  // status
        case 0x45_41_48_74_6C_61: altitudeHAE = value  // altHAE
        case 0x4C_53_4D_74_6C_61: altitudeMSL = value  // altMSL
        case 0x74_6C_61: ownTracksAltitude = value  // alt
        default: break
        }
    }
}

/// JSON's whitespace: space, tab, LF, CR.
@inline(__always)
package func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
}
