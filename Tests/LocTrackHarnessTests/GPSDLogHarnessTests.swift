import LocTrackTestSupport
import Testing

/// The harness reads what gpsd did from its log (`-D 3`), which gpsd 3.22 (Debian 12) and 3.25
/// (Debian 13) write differently: the same start, watch and first reports, as each logs them.
@Suite("gpsd's log as the harness reads it: 3.22 and 3.25", .timeLimit(.minutes(1)))
struct GPSDLogHarnessTests {
    static let devices = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/1","activated":"2026-11-28T23:06:35.733Z","native":0}]}"#
    static let watch = #"{"class":"WATCH","enable":true,"json":true}"#
    static let tpv = #"{"class":"TPV","device":"/dev/pts/1","mode":3,"lat":40.759986333}"#

    /// gpsd 3.22: every message one line, the client traffic escaped.
    static let log322 = """
        gpsd:INFO: <= control(6): adding /dev/pts/1
        gpsd:CLIENT: => client(0): {"class":"VERSION","release":"3.22"}\\x0d\\x0a
        gpsd:CLIENT: <= client(0): ?WATCH={"enable":true,"json":true};\\x0a
        gpsd:INFO: SER: opening read-only GPS data source type 6 and at '/dev/pts/1'
        gpsd:INFO: SER: speed 4800, 8N1
        gpsd:INFO: gpsd_activate(2): activated GPS (fd 7)
        gpsd:CLIENT: => client(0): \(devices)\\x0d\\x0a\(watch)\\x0d\\x0a
        gpsd:CLIENT: => client(0): \(tpv)\\x0d\\x0a

        """

    /// gpsd 3.25: the bytes as sent, with their length; one write's reports on lines of their
    /// own, then an empty line; no `activated GPS` at `-D 3`.
    static let log325 = """
        gpsd:INFO: <= control(6): adding /dev/pts/1
        gpsd:CLIENT: => client(0) len 42: {"class":"VERSION","release":"3.25"}\r\n\n\
        gpsd:CLIENT: <= client(0): ?WATCH={"enable":true,"json":true};\n\n\
        gpsd:INFO: SER: opening read-only GPS data source type 6 at '/dev/pts/1'
        gpsd:INFO: SER: fd 7 current speed 4800, 8N1
        gpsd:CLIENT: => client(0) len 314: \(devices)\r\n\(watch)\r\n\n\
        gpsd:CLIENT: => client(0) len 199: \(tpv)\r\n\n\
        gpsd:WARN: CORE: device signed off /dev/pts/1

        """

    @Test("given the same session logged by gpsd 3.22 and 3.25 when read then the watchers, the activated device and the reports are the same",
          arguments: [("3.22", log322), ("3.25", log325)])
    func bothVersionsReadAlike(_ version: String, _ text: String) {
        let log = GPSFake.messages(in: text)
        #expect(GPSFake.watchingClients(in: log) == [0], "\(version)")
        #expect(GPSFake.activatedDevices(in: log) == ["/dev/pts/1"], "\(version)")
        let reports = GPSFake.reports(in: log)
        #expect(reports.map(\.client) == [0, 0, 0, 0], "\(version)")
        #expect(reports.compactMap { $0.report["class"] as? String } == ["VERSION", "DEVICES", "WATCH", "TPV"], "\(version)")
        #expect(log.contains { $0.contains("adding /dev/pts/1") }, "\(version)")
        #expect(log.contains { $0.contains("=> client(0): {\"class\":\"VERSION\"") }, "\(version)")
    }

    @Test("given a 3.25 log when read then each message is one entry, the continuation lines joined as 3.22 escapes them, no empty entries")
    func messagesOf325() {
        let log = GPSFake.messages(in: Self.log325)
        #expect(log.count == 8)
        #expect(!log.contains(""))
        #expect(log[5] == "gpsd:CLIENT: => client(0): \(Self.devices)\\x0d\\x0a\(Self.watch)")
        #expect(log[2] == #"gpsd:CLIENT: <= client(0): ?WATCH={"enable":true,"json":true};"#)
        #expect(log[7] == "gpsd:WARN: CORE: device signed off /dev/pts/1")
    }

    @Test("given a device reported deactivated or listed without an activation time when read then it is not activated")
    func notActivated() {
        let log = GPSFake.messages(in: """
            gpsd:CLIENT: => client(0) len 60: {"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/2"}]}\r\n\n\
            gpsd:CLIENT: => client(0): {"class":"DEVICE","path":"/dev/pts/3","activated":0}\\x0d\\x0a

            """)
        #expect(GPSFake.activatedDevices(in: log).isEmpty)
    }

    @Test("given gpsd -V's output of 3.22 and 3.25 when read then the versions compare as numbers")
    func versions() {
        #expect(GPSDVersion(versionOutput: "/usr/sbin/gpsd: 3.22 (revision 3.22)") == GPSDVersion(3, 22))
        #expect(GPSDVersion(versionOutput: "gpsd: 3.25 (revision 3.25)") == GPSDVersion(3, 25))
        #expect(GPSDVersion(versionOutput: "gpsd: 3.27.5 (revision 3.27.5)")! > GPSDVersion(3, 25))
        #expect(GPSDVersion(3, 9) < GPSDVersion(3, 22))
        #expect(GPSDVersion(versionOutput: "no such file") == nil)
    }
}
