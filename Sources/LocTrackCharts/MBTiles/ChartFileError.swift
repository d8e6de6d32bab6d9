/// Why a `--tiles-file` cannot be served: one line for stderr and its exit code
/// (docs/exit-codes.md). Found before the server binds its address.
public struct ChartFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    /// 66 (EX_NOINPUT): missing, unreadable, not a regular file. 65 (EX_DATAERR): not an
    /// MBTiles file of raster tiles.
    public let exitCode: Int32

    public var description: String { "--tiles-file \(path): \(reason)" }

    static func noInput(_ path: String, _ reason: String) -> ChartFileError {
        ChartFileError(path: path, reason: reason, exitCode: 66)
    }

    static func data(_ path: String, _ reason: String) -> ChartFileError {
        ChartFileError(path: path, reason: reason, exitCode: 65)
    }
}
