public import LocTrack

/// How fixes are written on stdout.
public enum OutputFormat: String, CaseIterable, Equatable, Sendable {
    /// One JSON object per line, gpsd's TPV field names and units.
    case json
    /// One readable line per fix.
    case text

    /// JSON for pipes and files, text for a person at a terminal.
    public static func `default`(stdoutIsTerminal: Bool) -> OutputFormat {
        stdoutIsTerminal ? .text : .json
    }

    /// The line for `fix`, with its trailing newline.
    public func line(for fix: Fix) -> String {
        switch self {
        case .json: JSONLine.format(fix)
        case .text: TextLine.format(fix)
        }
    }
}
