import LocTrackSystem
package import LocTrackFormats
package import LocTrackProcess

/// The one start of a streaming command's sinks, for `stream` and `monitor run` alike: the
/// specs the command line gave (stdout when it gave none), checked together, started in one
/// order, and handed to one ``SinkFanOut``. No kind is special here: what a sink needs is
/// what its spec says.
package enum SinkPipeline {
    /// The sinks, or the exit code of the one that could not start (its one line is on
    /// stderr; the ones started before it have been finished, so nothing is left half done).
    package enum Started {
        case ready(SinkFanOut)
        case failed(ExitCode)
    }

    /// What the command's sinks need, together: those given, or stdout alone.
    /// - Parameter format: the fix format `--format` names (``SinkSpec/needs(writing:)``).
    package static func needs(of specs: [AnySinkSpec], writing format: OutputFormat?) -> SinkNeeds {
        starting(specs).reduce(into: SinkNeeds()) { $0.formUnion($1.spec.needs(writing: format)) }
    }

    /// The specs that start: the given ones, or stdout alone.
    package static func starting(_ specs: [AnySinkSpec]) -> [AnySinkSpec] {
        specs.isEmpty ? [AnySinkSpec(StandardOutputSinkSpec())] : specs
    }

    /// The first spool folder two specs resolve to, whatever their kinds (a broker and a
    /// Traccar server given one `--spool`, or two brokers with one client id).
    package static func sharedSpool(_ specs: [AnySinkSpec], environment: [String: String]) -> String? {
        firstShared(specs.map { $0.spec.spoolFolder(environment: environment) })
    }

    /// The first spool folder two specs were given with `--spool`, whatever their kinds: the
    /// same rule, for the parse, before the environment is read.
    package static func sharedSpoolGiven(_ specs: [AnySinkSpec]) -> String? {
        firstShared(specs.map(\.spec.spoolFolderGiven))
    }

    private static func firstShared(_ folders: [String?]) -> String? {
        var seen: Set<String> = []
        for case let folder? in folders where !seen.insert(folder).inserted { return folder }
        return nil
    }

    /// The order the sinks start and are handed each batch in: the ones with a spool first
    /// (``SinkNeeds/spool`` says why), otherwise as given.
    package static func startOrder(_ specs: [AnySinkSpec]) -> [AnySinkSpec] {
        // Whether a sink spools does not depend on the format it writes.
        let spooled = { (spec: AnySinkSpec) in spec.spec.needs(writing: nil).contains(.spool) }
        return specs.filter(spooled) + specs.filter { !spooled($0) }
    }

    /// Starts every sink of `specs` (stdout alone when empty) in ``startOrder(_:)``.
    package static func start(_ specs: [AnySinkSpec], context: SinkStartContext) async -> Started {
        let specs = startOrder(starting(specs))
        if let folder = sharedSpool(specs, environment: context.environment) {
            printError(SinkStartError.sharedSpool(folder).description)
            return .failed(.usage)
        }
        var context = context
        context.alone = SinkFanOut.waitsForRoom(sinkCount: specs.count)
        var sinks: [any Sink] = []
        for spec in specs {
            do throws(SinkStartError) {
                sinks.append(try spec.spec.start(context))
            } catch {
                printError(error.description)
                _ = await SinkFanOut(sinks).finish(promptly: true)
                return .failed(error.exitCode)
            }
        }
        return .ready(SinkFanOut(sinks))
    }
}
