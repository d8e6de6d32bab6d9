import LocTrack
import LocTrackTestSupport
import Testing

/// Issue 35: a gpsd-protocol server that writes valid JSON in another layout than gpsd's
/// (spaces after `:` and `,`, tabs, the class last). No gpsd needed: the test plays the
/// server on a loopback port (``LoopbackGPSD``).
@Suite("End to end: a gpsd clone that writes spaced JSON", .serialized, .timeLimit(.minutes(1)))
struct SpacedJSONEndToEndTests {
    /// What the server sends after the banner: gpsd's preamble, fixes, SKY and a lost device.
    static let reports: [String] = Reports.preamble()
        + (0..<5).map { Reports.tpv($0) } + [SkyDecodingTests.full, Reports.tpv(5, mode: 2)]

    static func stream(_ layout: ReportLayoutTests.Layout?) async throws -> LoctrackResult {
        let gpsd = try LoopbackGPSD(banner: layout?.apply(Peer.banner) ?? Peer.banner)
        let loctrack = try LoctrackProcess.start(["stream", "--format", "json", "--no-reconnect", gpsd.sourceArgument])
        let peer = try await gpsd.peer()
        #expect(try await peer.command() == #"?WATCH={"enable":true,"json":true};"#)
        try await peer.send(reports.map { layout?.apply($0) ?? $0 })
        peer.close()
        return try await loctrack.result()
    }

    @Test("given a server that writes the same reports spaced, with tabs or with the class last when streaming json then loctrack prints exactly the compact form's fixes and on stderr only the hang-up",
          .timeLimit(.minutes(1)))
    func sameFixesAsCompact() async throws {
        let compact = try await Self.stream(nil)
        #expect(compact.status == .exited(69), "gpsd hangs up after the replay: \(compact)")
        #expect(compact.stdoutLines.count == 6, "\(compact)")
        // Only the hang-up is said (69): no report was skipped.
        #expect(compact.stderrLines.count == 1 && compact.stderr.contains("gpsd closed the connection"), "\(compact)")
        for layout in [ReportLayoutTests.Layout.spaceAfterPunctuation, .tabs, .spacedAndClassLast] {
            let result = try await Self.stream(layout)
            #expect(result.status == .exited(69), "\(layout): \(result)")
            #expect(result.stdout == compact.stdout, "\(layout): \(result)")
            #expect(result.stderrLines.count == 1 && result.stderr.contains("gpsd closed the connection"), "\(layout): \(result)")
        }
    }
}
