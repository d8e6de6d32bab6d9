import LocTrack
import LocTrackTrackFiles
import Testing
import LocTrackRecordedLines

@Suite("Times in track files", .timeLimit(.minutes(1)))
struct RecordedTimeTests {
    static let utc = Timestamp(iso8601: "2026-11-23T08:14:03.000Z")!

    @Test("given the forms programs write a time in when read then each is the same UTC instant", arguments: [
        "2026-11-23T08:14:03.000Z", "2026-11-23T08:14:03Z", "2026-11-23T08:14:03", "2026-11-23 08:14:03z",
        "2026-11-23T09:14:03+01:00", "2026-11-23T09:14:03+0100", "2026-11-23T09:14:03+01", "2026-11-23T03:14:03-05:00",
        " 2026-11-23T08:14:03.000000000000Z\n",
    ])
    func forms(text: String) {
        #expect(RecordedTime.timestamp(text) == Self.utc)
    }

    @Test("given fractions of a second when read then they are kept to the nanosecond, digits beyond cut")
    func fractions() {
        #expect(RecordedTime.timestamp("2026-11-23T08:14:03.5Z") == Timestamp(seconds: Self.utc.seconds, nanoseconds: 500_000_000))
        #expect(RecordedTime.timestamp("2026-11-23T08:14:03.1234567899Z") == Timestamp(seconds: Self.utc.seconds, nanoseconds: 123_456_789))
    }

    @Test("given a leap second when read then it is the next second's start")
    func leapSecond() {
        #expect(RecordedTime.timestamp("2016-12-31T23:59:60Z") == Timestamp(iso8601: "2017-01-01T00:00:00.000Z"))
    }

    @Test("given text that is no time when read then there is none", arguments: [
        "", "yesterday", "2026-11-23", "2026-02-30T08:14:03Z", "2026-11-23T24:00:00Z", "2026-11-23T08:14:03.Z",
        "2026-11-23T08:14:03+25:00", "2026-11-23T08:14:03 UTC", "1795392000",
    ])
    func notTimes(text: String) {
        #expect(RecordedTime.timestamp(text) == nil)
    }
}
