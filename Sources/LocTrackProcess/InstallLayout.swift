package import LocTrackSystem


/// Where loctrack's other files are, found from the folder of the running program: the
/// server `loctrack serve` runs, the page that server serves, the program `loctrack trips`
/// runs. Installed (`/usr/bin/loctrack`, `/usr/lib/loctrack/loctrack-serve`,
/// `/usr/lib/loctrack/loctrack-trips`, `/usr/share/loctrack/web/`) or in a source tree
/// (`.build/<triple>/<config>/`, `Serve/.build/…`, `web/`). Pure but for
/// ``runningProgramDirectory``, so the lists are tested as they are.
package enum InstallLayout {
    /// The folder of the running program, symbolic links resolved (`/proc/self/exe`).
    package static func runningProgramDirectory() throws(Errno) -> String {
        directory(of: try currentExecutablePath())
    }

    /// Everything before the last `/` (`/` for a file at the root).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `relative` below the absolute `directory`, `.` and `..` taken away by the text alone:
    /// `/usr/bin` and `../lib/x` give `/usr/lib/x`. Right for a directory from
    /// `/proc/self/exe`, whose path holds no symbolic links.
    package static func join(_ directory: String, _ relative: String) -> String {
        var parts: [Substring] = []
        for part in (directory + "/" + relative).split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// For a program built by SwiftPM (`ROOT/.build/TRIPLE/CONFIG`): the package's folder
    /// and the build folder's path below `.build` (`TRIPLE/CONFIG`); nil otherwise.
    package static func sourceTree(of programDirectory: String) -> (root: String, build: String)? {
        guard let marker = programDirectory.range(ofLiteral: "/.build/") else { return nil }
        let root = String(programDirectory[..<marker.lowerBound])
        return (root.isEmpty ? "/" : root, String(programDirectory[marker.upperBound...]))
    }

    /// The server's program name.
    package static let serverName = "loctrack-serve"
    /// Names the server to run, for tests and unusual installs.
    package static let serverVariable = "LOCTRACK_SERVE"

    /// Where `loctrack serve` looks for the server, in order: only `override`
    /// (`$LOCTRACK_SERVE`) when it is set; else beside loctrack, then
    /// `../lib/loctrack/` from there (the Debian package and `make install`), then, in a
    /// source tree, the same build folder of the Serve/ package.
    package static func serverCandidates(override: String?, programDirectory: String?) -> [String] {
        if let override, !override.isEmpty { return [override] }
        guard let programDirectory else { return [] }
        var places = installedPlaces(of: serverName, programDirectory: programDirectory)
        if let tree = sourceTree(of: programDirectory) {
            places.append(join(tree.root, "Serve/.build/" + tree.build + "/" + serverName))
        }
        return places
    }

    /// The program `loctrack trips` runs.
    package static let tripsName = "loctrack-trips"
    /// Names the program `loctrack trips` runs, for tests and unusual installs.
    package static let tripsVariable = "LOCTRACK_TRIPS"

    /// Where `loctrack trips` looks for its program, in order: only `override`
    /// (`$LOCTRACK_TRIPS`) when it is set; else beside loctrack (a source tree builds both
    /// into one folder), then `../lib/loctrack/` from there (the Debian package and
    /// `make install`).
    package static func tripsCandidates(override: String?, programDirectory: String?) -> [String] {
        if let override, !override.isEmpty { return [override] }
        guard let programDirectory else { return [] }
        return installedPlaces(of: tripsName, programDirectory: programDirectory)
    }

    /// `name` beside loctrack, then in `../lib/loctrack/` from there.
    private static func installedPlaces(of name: String, programDirectory: String) -> [String] {
        [join(programDirectory, name), join(programDirectory, "../lib/loctrack/" + name)]
    }
}
