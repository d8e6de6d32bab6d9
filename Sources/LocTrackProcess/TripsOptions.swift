/// How `loctrack trips` writes its trips. Here, with the handoff that carries it from
/// `loctrack` to `loctrack-trips`; LocTrackFormats' `TripLines` writes in it.
public enum TripsFormat: String, CaseIterable, Equatable, Sendable {
    /// One `TRIP` object per line (docs/distance.md#loctrack-trips).
    case json
    /// One readable line per trip, then the totals.
    case text
    /// A header, then one row per trip (RFC 4180).
    case csv

    /// JSON for pipes and files, text for a person at a terminal (as for fixes).
    public static func `default`(stdoutIsTerminal: Bool) -> TripsFormat {
        stdoutIsTerminal ? .text : .json
    }
}

/// What `loctrack trips` was asked for, and how `loctrack` hands it to `loctrack-trips`: the
/// program it becomes (exec) once the words are parsed, so that `loctrack` itself never
/// loads libxml2. The handoff is `--format FORMAT -- FILE…`, a form of the program's own:
/// the format already decided (stdout's terminal or not), the files as given.
public struct TripsOptions: Equatable, Sendable {
    /// `--format`; nil: text on a terminal, else JSON (decided by `loctrack` before the handoff).
    public var format: TripsFormat?
    /// The track files, in the order given; `-` is stdin.
    public var files: [String]

    public init(format: TripsFormat? = nil, files: [String]) {
        self.format = format
        self.files = files
    }

    /// The arguments after the program name that give `loctrack-trips` these files in `format`.
    public func handoffArguments(format: TripsFormat) -> [String] {
        ["--format", format.rawValue, "--"] + files
    }

    /// Reads back what ``handoffArguments(format:)`` wrote; ``format`` is then never nil.
    /// - Throws: ``HandoffError`` when the arguments are not that (someone ran `loctrack-trips` by hand).
    public init(handoff arguments: [String]) throws(HandoffError) {
        func refused(_ reason: String) -> HandoffError {
            HandoffError(program: InstallLayout.tripsName, command: "trips", reason: reason)
        }
        guard arguments.count >= 4, arguments[0] == "--format", arguments[2] == "--" else {
            throw refused("expected --format FORMAT -- FILE…")
        }
        guard let format = TripsFormat(rawValue: arguments[1]) else {
            throw refused("no format \(arguments[1])")
        }
        self.init(format: format, files: Array(arguments[3...]))
    }
}
