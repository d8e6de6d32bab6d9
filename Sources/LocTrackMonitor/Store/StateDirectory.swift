import Glibc
import LocTrack

/// Where monitors keep their files when no directory is given: the XDG Base Directory
/// specification's state home, which is for data that should survive a restart but is
/// not worth backing up or syncing (what a monitor's conditions and last states are).
enum StateDirectory {
    /// `$XDG_STATE_HOME/loctrack` when that is set to an absolute path (the spec says to
    /// ignore relative ones), else `$HOME/.local/state/loctrack`; without a usable `HOME`,
    /// the home directory from the password database.
    static func resolve(environment: [String: String]) throws(GeofenceError) -> String {
        if let stateHome = environment["XDG_STATE_HOME"], stateHome.hasPrefix("/") {
            return joined(stateHome, "loctrack")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return joined(home, ".local/state/loctrack")
        }
        if let home = passwordDatabaseHome(), home.hasPrefix("/") {
            return joined(home, ".local/state/loctrack")
        }
        throw .stateFileIO(path: "$HOME", operation: "find the state directory under", errorNumber: ENOENT)
    }

    /// This user's home directory from the password database (`getpwuid_r`: the
    /// reentrant form, as stores may be made on several threads).
    private static func passwordDatabaseHome() -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        return buffer.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress, getpwuid_r(getuid(), &entry, start, buffer.count, &found) == 0, found != nil,
                  let directory = entry.pw_dir else { return nil }
            return String(cString: directory)
        }
    }

    /// The variables ``resolve(environment:)`` reads, from this process's environment.
    static var processEnvironment: [String: String] {
        var environment: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    private static func joined(_ directory: String, _ child: String) -> String {
        directory.hasSuffix("/") ? directory + child : directory + "/" + child
    }
}
