import LocTrack
import LocTrackSystem

/// Where monitors keep their files when no directory is given: the XDG Base Directory
/// specification's state home, which is for data that should survive a restart but is
/// not worth backing up or syncing (what a monitor's conditions and last states are).
package enum StateDirectory {
    /// `$XDG_STATE_HOME/loctrack` when that is set to an absolute path (the spec says to
    /// ignore relative ones), else `$HOME/.local/state/loctrack`; without a usable `HOME`,
    /// the home directory from the password database.
    package static func resolve(environment: [String: String]) throws(GeofenceError) -> String {
        if let stateHome = environment["XDG_STATE_HOME"], stateHome.hasPrefix("/") {
            return joined(stateHome, "loctrack")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return joined(home, ".local/state/loctrack")
        }
        let recorded: String?
        do throws(Errno) {
            recorded = try passwordDatabaseHome()
        } catch {
            throw .stateFileIO(path: "the password database", operation: "find the home directory in", errorNumber: error.code)
        }
        if let home = recorded, home.hasPrefix("/") {
            return joined(home, ".local/state/loctrack")
        }
        throw .stateFileIO(path: "$HOME", operation: "find the state directory under", errorNumber: Errno.noSuchFile.code)
    }

    /// The variables ``resolve(environment:)`` reads, from this process's environment.
    package static var processEnvironment: [String: String] {
        var environment: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "HOME"] {
            if let value = environmentValue(name) { environment[name] = value }
        }
        return environment
    }

    private static func joined(_ directory: String, _ child: String) -> String {
        directory.hasSuffix("/") ? directory + child : directory + "/" + child
    }
}
