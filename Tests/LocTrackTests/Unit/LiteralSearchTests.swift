import LocTrackSystem
@testable import LocTrackCLI
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("Literal search (firstRange(of:) without the regex engine)")
struct LiteralSearchTests {
    @Test("given a text when searched then the first occurrence is found, or none", arguments: [
        ("fe80::1::2", "::", 4),
        ("/work/x/.build/release", "/.build/", 7),
        ("abc", "abcd", nil),
        ("", "::", nil),
        ("aaab", "ab", 2),
    ] as [(String, String, Int?)])
    func finds(text: String, needle: String, offset: Int?) {
        let found = text.range(ofLiteral: needle)
        #expect(found.map { text.distance(from: text.startIndex, to: $0.lowerBound) } == offset)
        if let found { #expect(text[found] == needle) }
    }

    @Test("given a substring when searched then indices are the substring's own")
    func substring() {
        let text = "xx[::1]:80"
        let inner = text.dropFirst(3)
        let found = inner.range(ofLiteral: "::")
        #expect(found.map { inner[$0] } == "::")
        #expect(found.map { text.distance(from: text.startIndex, to: $0.lowerBound) } == 3)
    }
}
