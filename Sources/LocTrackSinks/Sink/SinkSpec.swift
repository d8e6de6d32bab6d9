package import LocTrackProcess
package import LocTrackFormats

/// One destination as the command line gave it (`--publish URL`, `--output PATH`, stdout),
/// parsed and checked, before anything is opened: what it needs from the command, and how
/// to start its ``Sink``. A command hands its list of specs to ``SinkPipeline/start(_:context:)``
/// and never asks which kinds they are; a new kind of destination is a spec, a sink, and one
/// line that registers its URL scheme.
package protocol SinkSpec: Sendable, Equatable {
    /// What the command must provide before the sink starts.
    /// - Parameter format: the fix format `--format` names (nil: none given, or the command
    ///   writes no fixes in it): a sink whose own format follows it may need more or less.
    func needs(writing format: OutputFormat?) -> SinkNeeds
    /// The folder the sink spools into, as `environment` resolves it; nil when it has none
    /// or none can be resolved (its start then says why). No two sinks may share one.
    func spoolFolder(environment: [String: String]) -> String?
    /// The spool folder the command line gave (`--spool`), nil for the default: what can be
    /// compared while parsing, which reads nothing, not even the environment.
    var spoolFolderGiven: String? { get }
    /// Opens what the sink writes to and starts it. Called once, in the pipeline's order.
    func start(_ context: SinkStartContext) throws(SinkStartError) -> any Sink
}

extension SinkSpec {
    package func spoolFolder(environment: [String: String]) -> String? { nil }
    package var spoolFolderGiven: String? { nil }

    /// Whether `other` is this very spec (the same kind, with the same values).
    fileprivate func isEqual(to other: any SinkSpec) -> Bool {
        (other as? Self) == self
    }
}

/// What a sink needs from the command around it.
package struct SinkNeeds: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// gpsd's SKY reports among the events (satellites, DOPs): the session parses them.
    package static let satelliteReports = SinkNeeds(rawValue: 1 << 0)
    /// The odometer and motion after each fix: the command measures distance.
    package static let distance = SinkNeeds(rawValue: 1 << 1)
    /// A spool folder of its own (``SinkSpec/spoolFolder(environment:)``): it is started
    /// before the sinks without one, so that a batch is in the spool (synced) before a
    /// track writer has it, and a SIGKILL between the two can leave a fix at a server that
    /// no file has, never one in a file that the server never gets.
    package static let spool = SinkNeeds(rawValue: 1 << 2)
    /// A thread of its own, joined when it finishes.
    package static let thread = SinkNeeds(rawValue: 1 << 3)
}

/// A spec of any kind, compared by kind and value: what a parsed command holds.
package struct AnySinkSpec: Equatable, Sendable {
    package let spec: any SinkSpec

    package init(_ spec: any SinkSpec) {
        self.spec = spec
    }

    package static func == (lhs: AnySinkSpec, rhs: AnySinkSpec) -> Bool {
        lhs.spec.isEqual(to: rhs.spec)
    }
}

/// Why a sink did not start: its one line for stderr, and the command's exit code.
package struct SinkStartError: Error, Equatable, CustomStringConvertible {
    package let description: String
    package let exitCode: ExitCode

    package init(_ description: String, exitCode: ExitCode) {
        self.description = description
        self.exitCode = exitCode
    }

    /// Two sinks resolve to one spool folder (one spool cannot serve two servers).
    package static func sharedSpool(_ folder: String) -> SinkStartError {
        SinkStartError(
            "two --publish use the spool \(folder): give each its own --spool or --client-id", exitCode: .usage)
    }
}

/// Why a destination URL was refused, for `--publish`'s one line.
package struct SinkURLError: Error, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
