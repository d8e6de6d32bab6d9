/// Why `serve` cannot start with its `--monitor` or `--track`: one line for stderr and
/// the exit code (docs/exit-codes.md), thrown before anything is served.
public struct LiveSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line, without `loctrack: ` and without a newline.
    public let description: String
    /// 64 a wrong name or pattern, or a monitor without regions; 65 a corrupt monitor state
    /// file; 74 a file that cannot be read (docs/exit-codes.md).
    public let exitCode: Int32

    package init(_ description: String, exitCode: Int32) {
        self.description = description
        self.exitCode = exitCode
    }
}
