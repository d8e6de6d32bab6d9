import LocTrack
@testable import LocTrackCLI
import LocTrackFormats
import LocTrackProcess
import LocTrackSinks
import Synchronization
import Testing

/// The one start of a command's sinks, with in-memory specs: given the specs a command line
/// gave, when the pipeline starts them, then the order, the company each is told of, the
/// needs, the spool clashes across kinds, and what a failed start leaves.
@Suite("One pipeline start for every sink", .timeLimit(.minutes(1)))
struct SinkPipelineTests {
    typealias Spec = InMemorySinkSpec

    static func specs(_ specs: Spec...) -> [AnySinkSpec] { specs.map(AnySinkSpec.init) }

    static func stream(_ arguments: [String]) throws -> Command.StreamOptions {
        guard case .stream(let options) = try Command(arguments: ["stream"] + arguments) else {
            Issue.record("not stream")
            return Command.StreamOptions()
        }
        return options
    }

    @Test("given a file, a broker, a UDP listener and a Traccar server when started then the spooled ones start first, each in the order given, and none is alone")
    func spooledSinksStartFirst() async {
        let log = Spec.Log()
        let given = Self.specs(
            Spec("file", needs: .thread, log: log), Spec("broker", spool: "/a", log: log),
            Spec("udp", needs: .satelliteReports, log: log), Spec("traccar", spool: "/b", log: log))
        guard case .ready(var fanOut) = await SinkPipeline.start(given, context: .forDoubles()) else {
            Issue.record("did not start")
            return
        }
        #expect(log.starts.withLock { $0 } == ["broker", "traccar", "file", "udp"].map { .init(name: $0, alone: false) })
        // The fan-out hands batches in the same order, to every sink.
        #expect(fanOut.sinks.count == 4)
        #expect(await fanOut.send(.gpsd(GPSDBatch([.status(.fixLost(device: nil))]))))
        for name in ["broker", "traccar", "file", "udp"] {
            #expect(log.sink(name)?.state.withLock { $0.eventsTaken } == 1, "\(name)")
            #expect(log.sink(name)?.state.withLock { $0.waitingTakes } == 0, "\(name) waited beside others")
        }
    }

    @Test("given one sink when started then it is told it is alone, and the fan-out lets it wait for room")
    func aSinkAloneIsToldSo() async {
        let log = Spec.Log()
        guard case .ready(var fanOut) = await SinkPipeline.start(Self.specs(Spec("file", log: log)), context: .forDoubles())
        else {
            Issue.record("did not start")
            return
        }
        #expect(log.starts.withLock { $0 } == [.init(name: "file", alone: true)])
        #expect(await fanOut.send(.gpsd(GPSDBatch([.status(.fixLost(device: nil))]))))
        #expect(log.sink("file")?.state.withLock { $0.waitingTakes } == 1)
    }

    @Test("given no destination when the specs start then stdout is the one sink, which needs SKY only for NMEA")
    func stdoutWhenNoneIsGiven() {
        let starting = SinkPipeline.starting([])
        #expect(starting == [AnySinkSpec(StandardOutputSinkSpec())])
        #expect(SinkPipeline.needs(of: [], writing: nil) == .thread)
        #expect(SinkPipeline.needs(of: [], writing: .json) == .thread)
        #expect(SinkPipeline.needs(of: [], writing: .nmea) == [.thread, .satelliteReports])
    }

    @Test("given two sinks of any kinds in one spool folder when started then it is a usage error and none starts")
    func sharedSpoolAcrossKinds() async {
        let log = Spec.Log()
        let started = await SinkPipeline.start(
            Self.specs(Spec("broker", spool: "/s", log: log), Spec("traccar", spool: "/s", log: log)), context: .forDoubles())
        guard case .failed(let code) = started else {
            Issue.record("started")
            return
        }
        #expect(code == .usage)
        #expect(log.starts.withLock { $0 }.isEmpty)
    }

    @Test("given a broker and a Traccar server in one spool folder when parsed or started then the clash is found across the kinds")
    func brokerAndTraccarShareASpool() throws {
        // One --spool given to both: refused by the parse, before anything starts.
        #expect(throws: UsageError.sharedSpool("/s")) {
            try Command(arguments: [
                "stream", "--publish", "mqtt://h/t", "--spool", "/s", "--publish", "http://h:5055/?id=a", "--spool", "/s",
            ])
        }
        // The defaults meet: a broker whose client id is Traccar's folder name for device a.
        let options = try Self.stream(["--publish", "mqtt://h/t", "--client-id", "traccar-a", "--publish", "http://h:5055/?id=a"])
        #expect(SinkPipeline.sharedSpool(options.sinks, environment: ["HOME": "/home/u"])
            == "/home/u/.local/state/loctrack/spool/traccar-a")
        #expect(SinkPipeline.sharedSpool(try Self.stream(["--publish", "mqtt://h/t", "--spool", "/s"]).sinks, environment: [:]) == nil)
    }

    @Test("given a sink that fails to start after two started when started then its exit code is the command's and the two are finished promptly")
    func aFailedStartFinishesTheStarted() async {
        let log = Spec.Log()
        let started = await SinkPipeline.start(
            Self.specs(
                Spec("a", spool: "/a", log: log), Spec("b", log: log),
                Spec("c", failure: SinkStartError("no", exitCode: .unavailable), log: log), Spec("d", log: log)),
            context: .forDoubles())
        guard case .failed(let code) = started else {
            Issue.record("started")
            return
        }
        #expect(code == .unavailable)
        #expect(log.starts.withLock { $0.map(\.name) } == ["a", "b", "c"])
        #expect(log.sink("a")?.state.withLock { $0.finishedPromptly } == true)
        #expect(log.sink("b")?.state.withLock { $0.finishedPromptly } == true)
    }

    @Test("given command lines when parsed then the needs are what their destinations say in the format given, and a UDP sink has no spool")
    func needsFromTheSpecs() throws {
        func needs(_ arguments: [String]) throws -> SinkNeeds {
            let options = try Self.stream(arguments)
            return SinkPipeline.needs(of: options.sinks, writing: options.format)
        }
        #expect(try needs(["-o", "t/%F.json"]) == .thread)
        #expect(try needs(["-o", "t/%F.nmea"]) == [.thread, .satelliteReports])
        #expect(try needs(["-o", "t/%F.json", "--format", "nmea"]) == [.thread, .satelliteReports], ".json names no format")
        #expect(try needs(["-o", "t/%F.gpx", "--format", "nmea"]) == .thread, "a GPX file whatever --format")
        #expect(try needs(["--publish", "udp://10.0.0.5:10110"]) == .satelliteReports)
        #expect(try needs(["--publish", "udp://10.0.0.5:10110", "--format", "json"]) == [], "TPVs alone need no SKY")
        #expect(try needs(["--publish", "mqtt://h/t"]) == [.spool, .thread])
        #expect(try needs(["--publish", "mqtt://h/t", "--ha-discovery"]) == [.spool, .thread, .satelliteReports])
        #expect(try needs(["--publish", "http://h:5055/?id=a"]) == [.spool, .thread, .satelliteReports, .distance])
        let udp = try Self.stream(["--publish", "udp://10.0.0.5", "--publish", "udp://[::1]:2000"]).sinks
        #expect(udp.allSatisfy { $0.spec.spoolFolder(environment: ["HOME": "/home/u"]) == nil })
    }
}
