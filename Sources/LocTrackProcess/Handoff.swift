/// Why a program of loctrack's refused the arguments `loctrack` hands it when it becomes that
/// program (exec) once the words are parsed: `loctrack trips` becomes `loctrack-trips` (so that
/// `loctrack` never loads libxml2), `loctrack serve` becomes `loctrack-serve` (so that it never
/// links the server). The handoff is a form of the program's own, not the user's: its values
/// were checked when the words were parsed, so reading it back cannot meet a usage error, only
/// a program started by hand or by a `loctrack` of another version. Each says so the same way.
public struct HandoffError: Error, Equatable, CustomStringConvertible {
    /// The program that refused (`loctrack-trips`).
    public let program: String
    /// The command that starts it (`trips`).
    public let command: String
    /// What was wrong with the arguments.
    public let reason: String

    public init(program: String, command: String, reason: String) {
        self.program = program
        self.command = command
        self.reason = reason
    }

    public var description: String {
        "\(program) is started by `loctrack \(command)` (\(reason)); run `loctrack \(command) --help`"
    }
}
