/// RFC 3986 percent-encoding: the bytes a set keeps as they are, every other byte as
/// `%XX` (upper-case hex). The reverse of ``PercentDecoding``. One encoder for the broker
/// URL's user (LocTrackMQTT) and the Traccar uplink's query values (LocTrackTraccar).
package enum PercentEncoding {
    /// Unreserved characters (`A-Z a-z 0-9 - . _ ~`): what a query value keeps, so that
    /// `&`, `=`, `+`, `%`, `/` and spaces in it reach the server as written.
    package static let unreserved = ByteSet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    /// Unreserved characters and sub-delimiters: what a URL's userinfo keeps (no `:`).
    package static let userinfo = ByteSet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=")

    /// Which ASCII bytes are kept.
    package struct ByteSet: Sendable {
        private var kept = [Bool](repeating: false, count: 128)

        package init(_ characters: StaticString) {
            characters.withUTF8Buffer { for byte in $0 { kept[Int(byte)] = true } }
        }

        package func contains(_ byte: UInt8) -> Bool { byte < 128 && kept[Int(byte)] }
    }

    /// Appends `text`, encoded, to `bytes`.
    package static func append(_ text: String, keeping kept: ByteSet, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            if kept.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
    }

    /// `text`, encoded.
    package static func string(_ text: String, keeping kept: ByteSet) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        append(text, keeping: kept, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
