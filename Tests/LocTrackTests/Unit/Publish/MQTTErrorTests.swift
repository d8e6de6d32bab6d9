import LocTrack
@testable import LocTrackMQTT
import Testing

/// What a failed libmosquitto call says on stderr, from the values libmosquitto gives
/// (the end to end test against a real TLS mosquitto is in PublishOptionsEndToEndTests).
@Suite("MQTT errors: what a failed call says")
struct MQTTErrorTests {
    @Test("given OpenSSL's log lines of a refused certificate when taken as the TLS problem then the reason is OpenSSL's own words", arguments: [
        ("OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed", "certificate verify failed"),  // OpenSSL 3
        ("OpenSSL Error[0]: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify failed", "certificate verify failed"),  // OpenSSL 1.1
        ("OpenSSL Error", "OpenSSL Error"),
    ])
    func reasonOfTheLogLine(line: String, reason: String) {
        #expect(TLSProblem(logLine: line).reason == reason)
    }

    @Test("given a read that failed with EPROTO after OpenSSL logged a problem (libmosquitto 2.0.21) when described then it names TLS and OpenSSL's reason, not the errno")
    func tlsProblemBeatsTheErrno() {
        let error = MQTTError(call: "read", code: 14, errorNumber: 71,
                              tlsProblem: TLSProblem(logLine: "OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed"))
        #expect(error.description == "read: TLS: certificate verify failed")
        #expect(error.isTLSFailure)
        let plain = MQTTError(call: "read", code: 14, errorNumber: 71)
        #expect(plain.description == "read: Protocol error")
        #expect(!plain.isTLSFailure)
    }
}
