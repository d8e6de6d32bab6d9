@testable import LocTrackCLI
import Testing

@Suite("--publish: one message per printed line", .timeLimit(.minutes(1)))
struct PublishingSinkLinesTests {
    @Test("given lines with newlines when split then each is a payload without its newline")
    func splitsOnNewlines() {
        let payloads = PublishingSink.lines(of: Array("{\"a\":1}\n{\"b\":2}\n".utf8), expected: 2)
        #expect(payloads == [Array("{\"a\":1}".utf8), Array("{\"b\":2}".utf8)])
    }

    @Test("given empty lines and no final newline when split then empty lines make no message and the last line counts")
    func emptyLinesAndUnterminatedLast() {
        let payloads = PublishingSink.lines(of: Array("\n\nx\n\ny z".utf8), expected: 0)
        #expect(payloads == [Array("x".utf8), Array("y z".utf8)])
        #expect(PublishingSink.lines(of: [], expected: 1).isEmpty)
        #expect(PublishingSink.lines(of: [0x0A], expected: 1).isEmpty)
    }
}
