import LocTrackMonitor
import LocTrackMQTT
import LocTrackSinks
import LocTrackSystem
import LocTrackTraccar
import Testing

/// loctrack's state folder, resolved once in the system layer for the monitors, the odometer
/// and the uplinks' spools: each environment case, with a stand-in for the password database.
@Suite("State folder", .timeLimit(.minutes(1)))
struct StateDirectoryTests {
    /// A password database whose entry for this user has `home`.
    static func database(_ home: String?) -> () throws(Errno) -> String? { { () throws(Errno) in home } }

    @Test("given environments when the state folder is resolved then XDG_STATE_HOME if absolute, else HOME, else the password database",
          arguments: [
            // XDG_STATE_HOME absolute: it wins over HOME, with or without a trailing slash.
            (["XDG_STATE_HOME": "/var/state", "HOME": "/home/u"], "/var/state/loctrack"),
            (["XDG_STATE_HOME": "/var/state/", "HOME": "/home/u"], "/var/state/loctrack"),
            (["XDG_STATE_HOME": "/var/state"], "/var/state/loctrack"),
            // Relative or empty XDG_STATE_HOME is ignored (the XDG specification): HOME's .local/state.
            (["XDG_STATE_HOME": "relative/state", "HOME": "/home/u"], "/home/u/.local/state/loctrack"),
            (["XDG_STATE_HOME": "", "HOME": "/home/u/"], "/home/u/.local/state/loctrack"),
            (["HOME": "/home/u"], "/home/u/.local/state/loctrack"),
            // Neither usable: the password database's home.
            (["HOME": "relative"], "/db/home/.local/state/loctrack"),
            ([:], "/db/home/.local/state/loctrack"),
            // systemd's STATE_DIRECTORY is not read (the units set XDG_STATE_HOME=%S instead).
            (["STATE_DIRECTORY": "/var/lib/loctrack", "HOME": "/home/u"], "/home/u/.local/state/loctrack"),
            (["STATE_DIRECTORY": "/var/lib/loctrack"], "/db/home/.local/state/loctrack"),
          ])
    func resolution(environment: [String: String], expected: String) throws {
        #expect(try StateDirectory.resolve(environment: environment, homeFromPasswordDatabase: Self.database("/db/home")) == expected)
        #expect(try StateDirectory.spool(named: "c1", environment: environment, homeFromPasswordDatabase: Self.database("/db/home"))
            == expected + "/spool/c1")
    }

    @Test("given a usable variable when the state folder is resolved then the password database is not asked")
    func databaseOnlyLast() throws {
        let failing = { () throws(Errno) -> String? in throw Errno.permissionDenied }
        #expect(try StateDirectory.resolve(environment: ["HOME": "/home/u"], homeFromPasswordDatabase: failing)
            == "/home/u/.local/state/loctrack")
    }

    @Test("given no usable variable and no home in the password database when resolved then it fails and says why")
    func noFolder() {
        #expect(throws: StateDirectory.Failure.noHome) {
            try StateDirectory.resolve(environment: ["HOME": "relative"], homeFromPasswordDatabase: Self.database(nil))
        }
        #expect(throws: StateDirectory.Failure.noHome) {
            try StateDirectory.resolve(environment: [:], homeFromPasswordDatabase: Self.database("relative"))
        }
        let failing = { () throws(Errno) -> String? in throw Errno.permissionDenied }
        #expect(throws: StateDirectory.Failure.passwordDatabase(.permissionDenied)) {
            try StateDirectory.resolve(environment: [:], homeFromPasswordDatabase: failing)
        }
        #expect("\(StateDirectory.Failure.noHome)".contains("XDG_STATE_HOME and HOME"))
    }

    @Test("given one environment when a monitor, a broker's spool and a Traccar spool are resolved then all are in one folder")
    func oneFolderForAll() throws {
        let environment = ["XDG_STATE_HOME": "/s", "HOME": "/home/u"]
        let folder = try StateDirectory.resolve(environment: environment)
        #expect(try MonitorStore(name: "m", environment: environment).directory == folder)
        let broker = PublishOptions(broker: try BrokerURL(parsing: "mqtt://b.local/t"), clientID: "pi")
        #expect(try broker.spoolDirectory(environment: environment) == folder + "/spool/pi")
        let traccar = TraccarOptions(url: try TraccarURL(parsing: "http://h:5055/?id=van"), spoolLimitBytes: 1)
        #expect(traccar.spoolDirectory(environment: environment) == folder + "/spool/traccar-van")
    }
}
