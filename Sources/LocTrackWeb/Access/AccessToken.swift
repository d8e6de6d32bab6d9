public import LocTrackProcess
import LocTrackSystem

/// The token every request needs when `serve` has `--token-file` (docs/http.md, Access):
/// the file's first line, without surrounding blanks. Compared in constant time.
public struct AccessToken: Sendable, Equatable {
    /// The token's bytes: cookie octets only (RFC 6265: printable ASCII but blanks, `"`,
    /// `,`, `;` and `\`), so that it travels unchanged in a header, a cookie and a query.
    let bytes: [UInt8]

    /// Why the token file cannot be used: one line, and exit 78 (EX_CONFIG).
    public struct LoadError: Error, Equatable, CustomStringConvertible {
        public let description: String
        public var exitCode: ExitCode { .configuration }
    }

    /// A token file larger than this is not a token file.
    static let largestFile = 64 * 1024

    /// The token `text`, or nil when it is empty or holds a byte that is not a cookie octet.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy(Self.isCookieOctet) else { return nil }
        self.bytes = bytes
    }

    /// Reads the token from `path`: a regular file that neither group nor others may read
    /// or write, whose first line (blanks around it taken away) is a token.
    /// - Throws: ``LoadError`` naming the file and what is wrong.
    public static func load(from path: String) throws(LoadError) -> AccessToken {
        let file: FileDescriptor
        do {
            file = try openFile(path, .readOnly)
        } catch {
            throw LoadError(description: "cannot read the token file \(path): \(error)")
        }
        let descriptor = file.rawValue
        let contents: [UInt8]
        do {
            let status = try descriptorStatus(descriptor)
            guard status.isRegularFile else { throw LoadError(description: "the token file \(path) is not a regular file") }
            guard status.permissions & 0o077 == 0 else {
                throw LoadError(description: "the token file \(path) may be read or written by group or others (mode "
                                + String(status.permissions, radix: 8) + "): chmod 600 \(path)")
            }
            guard status.size <= Int64(largestFile) else {
                throw LoadError(description: "the token file \(path) is larger than 64 KiB: it is not a token file")
            }
            contents = try readToEnd(descriptor)
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError(description: "cannot read the token file \(path): \(error)")
        }
        return try token(fromFile: contents, path: path)
    }

    /// The token in a token file's `contents`: its first line without surrounding blanks.
    static func token(fromFile contents: [UInt8], path: String) throws(LoadError) -> AccessToken {
        let firstLine = contents.prefix { $0 != UInt8(ascii: "\n") }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
        let trimmed = firstLine.drop(while: isBlank).reversed().drop(while: isBlank).reversed()
        guard !trimmed.isEmpty else {
            throw LoadError(description: "the token file \(path) has no token: its first line is empty")
        }
        guard trimmed.allSatisfy(isCookieOctet) else {
            throw LoadError(description: "the token in \(path) holds a blank, a quote, a comma, a semicolon, a backslash "
                            + "or a byte that is not printable ASCII; make one with: head -c 24 /dev/urandom | base64")
        }
        return AccessToken(validBytes: Array(trimmed))
    }

    private init(validBytes: [UInt8]) { self.bytes = validBytes }

    /// Whether `candidate` is this token. The time taken depends on the token's length
    /// only, never on where `candidate` first differs, so a client cannot find the token
    /// byte by byte by timing the answers.
    func matches(_ candidate: some StringProtocol) -> Bool {
        let offered = Array(candidate.utf8)
        var difference: UInt8 = offered.count == bytes.count ? 0 : 1
        for index in bytes.indices {
            let byte = index < offered.count ? offered[index] : 0
            difference |= byte ^ bytes[index]
        }
        return difference == 0
    }

    /// The token as text (cookie octets are ASCII).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    private static func isCookieOctet(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x23...0x2B, 0x2D...0x3A, 0x3C...0x5B, 0x5D...0x7E: true
        default: false
        }
    }
}
