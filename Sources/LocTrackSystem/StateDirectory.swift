// loctrack's state folder, resolved here once for everything kept in it: the monitors' state
// files, the odometer, and the spools of the MQTT and Traccar uplinks. It used to be resolved
// twice, by the monitor and by the MQTT options, with different fallbacks (the spools did
// not look in the password database), so two parts of one run could disagree on the folder.

/// Where loctrack keeps what must survive a restart but is not worth backing up or syncing:
/// the XDG Base Directory specification's state home, with `loctrack` below it. In order
/// (docs/usage.md, "The state folder"):
///
/// 1. `$XDG_STATE_HOME/loctrack` when `XDG_STATE_HOME` is an absolute path (the
///    specification says to ignore a relative one, and an empty one is unset);
/// 2. else `$HOME/.local/state/loctrack` when `HOME` is an absolute path (the
///    specification's default);
/// 3. else `.local/state/loctrack` below the user's home in the password database (a
///    process started without `HOME`: a system service without `User=`, `env -i`);
/// 4. else there is none, and what needed it says which option names a folder instead.
///
/// systemd's `STATE_DIRECTORY` is not read. loctrack's units set `XDG_STATE_HOME=%S`,
/// which names the same folder (`/var/lib` + `loctrack` = `StateDirectory=loctrack`), and
/// reading it ahead of `HOME` would move, on upgrade, the files of a service that has
/// `StateDirectory=` but no `XDG_STATE_HOME` (and leave its monitors behind).
package enum StateDirectory {
    /// The variables ``resolve(environment:homeFromPasswordDatabase:)`` reads.
    package static let variables = ["XDG_STATE_HOME", "HOME"]

    /// Why there is no state folder.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// Neither variable is an absolute path and the password database has no home for this user.
        case noHome
        /// Neither variable is an absolute path and the password database could not be read.
        case passwordDatabase(Errno)

        package var description: String {
            switch self {
            case .noHome:
                "no state folder: XDG_STATE_HOME and HOME are unset or not absolute paths, "
                    + "and the password database has no home for this user"
            case .passwordDatabase(let error):
                "no state folder: XDG_STATE_HOME and HOME are unset or not absolute paths, "
                    + "and the password database could not be read: \(error)"
            }
        }
    }

    /// loctrack's state folder, in the order above.
    /// - Parameters:
    ///   - environment: where `XDG_STATE_HOME` and `HOME` are looked up (``processEnvironment``).
    ///   - homeFromPasswordDatabase: the last resort; asked only when neither variable is usable,
    ///     so a test can stand in for the machine's password database.
    package static func resolve(
        environment: [String: String],
        homeFromPasswordDatabase: () throws(Errno) -> String? = passwordDatabaseHome
    ) throws(Failure) -> String {
        if let stateHome = environment["XDG_STATE_HOME"], stateHome.hasPrefix("/") {
            return joined(stateHome, "loctrack")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return joined(home, ".local/state/loctrack")
        }
        let recorded: String?
        do throws(Errno) {
            recorded = try homeFromPasswordDatabase()
        } catch {
            throw .passwordDatabase(error)
        }
        guard let home = recorded, home.hasPrefix("/") else { throw .noHome }
        return joined(home, ".local/state/loctrack")
    }

    /// `spool/NAME` in the state folder: where an uplink's spool is when no `--spool` is given
    /// (a broker's by client id, a Traccar server's as `traccar-DEVICE`), one folder per name
    /// so that two uplinks never share one.
    package static func spool(
        named name: String, environment: [String: String],
        homeFromPasswordDatabase: () throws(Errno) -> String? = passwordDatabaseHome
    ) throws(Failure) -> String {
        try resolve(environment: environment, homeFromPasswordDatabase: homeFromPasswordDatabase) + "/spool/" + name
    }

    /// ``variables`` from this process's environment.
    package static var processEnvironment: [String: String] {
        var environment: [String: String] = [:]
        for name in variables {
            if let value = environmentValue(name) { environment[name] = value }
        }
        return environment
    }

    private static func joined(_ directory: String, _ child: String) -> String {
        directory.hasSuffix("/") ? directory + child : directory + "/" + child
    }
}
