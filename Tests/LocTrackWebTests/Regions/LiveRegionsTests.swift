import LocTrack
@testable import LocTrackMonitor
@testable import LocTrackWeb
import LocTrackSystem
import Testing

/// `serve --monitor NAME`: the monitor's regions read without changing anything, their
/// states decided from the hub's fixes.
@Suite("Live regions: --monitor", .timeLimit(.minutes(1)))
struct LiveRegionsTests {
    /// A monitor `home` in `directory` with a circle of 100 m at 47°N 8°E (`home`, "Home")
    /// and a square polygon (`work`, no title), `work` stored as satisfied.
    static func makeMonitor(in directory: String) throws {
        let store = try MonitorStore(name: "home", directory: directory)
        let circle = try GeofenceCondition.circle(center: GeoPoint(unchecked: 47, 8), radius: 100)
        let ring = [GeoPoint(unchecked: 46, 7), GeoPoint(unchecked: 46, 7.01), GeoPoint(unchecked: 46.01, 7.01),
                    GeoPoint(unchecked: 46, 7)]
        let square = try GeofenceCondition.polygons([try GeoPolygon(exterior: ring)])
        try store.update { snapshot in
            snapshot.add(circle, identifier: "home", title: "Home", assuming: .unknown)
            snapshot.add(square, identifier: "work", assuming: .satisfied)
        }
    }

    static let stored = "{\"type\":\"FeatureCollection\",\"features\":["
        + "{\"type\":\"Feature\",\"id\":\"home\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8,47]},"
        + "\"properties\":{\"id\":\"home\",\"title\":\"Home\",\"radius\":100,\"state\":\"unknown\"}},"
        + "{\"type\":\"Feature\",\"id\":\"work\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[7,46],[7.01,46],[7.01,46.01],[7,46]]]},"
        + "\"properties\":{\"id\":\"work\",\"title\":\"work\",\"state\":\"satisfied\"}}]}"

    @Test("given a stored monitor when loaded then /api/regions is its regions as GeoJSON with the stored states")
    func loads() throws {
        let directory = try TemporaryDirectory()
        try Self.makeMonitor(in: directory.path)
        let regions = try LiveRegions.load(monitor: "home", directory: directory.path)
        #expect(regions.name == "home")
        #expect(regions.count == 2)
        #expect(regions.geoJSON == Self.stored)
    }

    @Test("given a fix inside the circle and far from the square when the hub takes it then region events like monitor run's follow the fix, and /api/regions changes")
    func transition() async throws {
        let directory = try TemporaryDirectory()
        try Self.makeMonitor(in: directory.path)
        let hub = LiveHub(
            limits: .init(), regions: try LiveRegions.load(monitor: "home", directory: directory.path), clock: ManualClock().liveClock,
            run: "abc")
        hub.ingest(.fix(TestFixes.fix(second: 1)))
        #expect(hub.regionsGeoJSON() == Self.stored
            .replacingFirst("\"state\":\"unknown\"", with: "\"state\":\"satisfied\"")
            .replacingFirst("\"title\":\"work\",\"state\":\"satisfied\"", with: "\"title\":\"work\",\"state\":\"unsatisfied\""))
        let stream = try #require(hub.openEventStream(after: "abc-2").stream)
        let place = "\"time\":\"\(TestFixes.time(1))\",\"lat\":47.000000000,\"lon\":8.000000000,\"eph\":5.000}\n\n"
        #expect(await stream.nextText() == "id: abc-3\nevent: region\ndata: {\"class\":\"EVENT\",\"monitor\":\"home\",\"id\":\"home\","
            + "\"state\":\"satisfied\",\"previous\":\"unknown\",\(place)"
            + "id: abc-4\nevent: region\ndata: {\"class\":\"EVENT\",\"monitor\":\"home\",\"id\":\"work\","
            + "\"state\":\"unsatisfied\",\"previous\":\"satisfied\",\(place)")
    }

    @Test("given --dwell 10 when the fixes are inside for less than 10 s then nothing changes, and at 10 s the region is entered")
    func dwell() throws {
        let directory = try TemporaryDirectory()
        try Self.makeMonitor(in: directory.path)
        var regions = try LiveRegions.load(monitor: "home", directory: directory.path, dwellSeconds: 10)
        let early = regions.process(TestFixes.fix(second: 1)) + regions.process(TestFixes.fix(second: 10))
        #expect(!early.contains { $0.contains("\"id\":\"home\"") })
        let settled = regions.process(TestFixes.fix(second: 11))
        #expect(settled.contains { $0.contains("\"id\":\"home\",\"state\":\"satisfied\"") })
    }

    @Test("given a monitor running elsewhere and no lock file when loaded then it loads, and nothing is created or changed")
    func readsWithoutWriting() throws {
        let directory = try TemporaryDirectory()
        try Self.makeMonitor(in: directory.path)
        let store = try MonitorStore(name: "home", directory: directory.path)
        let runLock = try store.holdRunLock()
        try removeFile(store.lockPath)
        let before = try listDirectory(directory.path).sorted()
        let signature = store.signature()
        var regions = try LiveRegions.load(monitor: "home", directory: directory.path)
        _ = regions.process(TestFixes.fix(second: 1))
        #expect(try listDirectory(directory.path).sorted() == before)
        #expect(store.signature() == signature)
        #expect(try store.read().conditions.map(\.state) == [.unknown, .satisfied])
        _ = runLock
    }

    @Test("given a monitor with no state file when loaded then it has no regions: exit 64 with how to add one")
    func unknownMonitor() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: LiveSetupError(
            "monitor 'boat' has no regions (no state file); add one with `loctrack monitor add --name boat …`", exitCode: 64)) {
            try LiveRegions.load(monitor: "boat", directory: directory.path)
        }
        #expect(try listDirectory(directory.path).isEmpty)
    }

    @Test("given a corrupt state file when loaded then exit 65 as monitor run, and the file is left as it is")
    func corrupt() throws {
        let directory = try TemporaryDirectory()
        try directory.write("{not json", to: "home.monitor.json")
        do {
            _ = try LiveRegions.load(monitor: "home", directory: directory.path)
            Issue.record("a corrupt state file loaded")
        } catch {
            #expect(error.exitCode == 65)
            #expect(error.description.hasPrefix("cannot read monitor state \(directory.path)/home.monitor.json: "))
        }
        #expect(try listDirectory(directory.path) == ["home.monitor.json"])
    }

    @Test("given an invalid monitor name when loaded then exit 64")
    func invalidName() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: LiveSetupError(GeofenceError.invalidName("../x").description, exitCode: 64)) {
            try LiveRegions.load(monitor: "../x", directory: directory.path)
        }
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }
}
