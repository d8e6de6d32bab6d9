import Foundation
@testable import LocTrack
@testable import LocTrackMonitor
@testable import LocTrackCLI
import LocTrackMQTT
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

/// What Home Assistant's OwnTracks integration needs from loctrack (docs/monitor.md,
/// "Home Assistant"): transitions with `tid`, regions' titles as `desc`, an accuracy limit
/// for brokers, and the regions as a `waypoints` message.
@Suite("OwnTracks transitions for Home Assistant: tid, desc from the title, rid, acc", .timeLimit(.minutes(1)))
struct OwnTracksTransitionLineTests {
    typealias F = GeofenceFixtures

    static func event(_ state: GeofenceState, previous: GeofenceState, eph: Double? = 4.2) -> GeofenceEvent {
        let fix = Fix(time: Timestamp(seconds: 1_795_000_103), mode: .threeD, latitude: 52.51629, longitude: 13.37765,
                      horizontalError: eph)
        return GeofenceEvent(monitor: "car", identifier: "home", state: state, previousState: previous, fix: fix)
    }

    @Test("given an enter of a region titled Home when written as OwnTracks then desc is the title, rid the id and tid the tracker id")
    func enterWithTitle() {
        let line = GeofenceEventLine.ownTracks(
            Self.event(.satisfied, previous: .unknown), regionAdded: 1_795_000_000, title: "Home", trackerID: "pi")
        #expect(line == """
            {"_type":"transition","event":"enter","desc":"Home","tst":1795000103,"wtst":1795000000,"lat":52.5162900,\
            "lon":13.3776500,"acc":4,"t":"c","tid":"pi","rid":"home"}

            """)
    }

    @Test("given a leave of a region without a title when written then desc falls back to the id")
    func leaveWithoutTitle() throws {
        let line = try #require(GeofenceEventLine.ownTracks(
            Self.event(.unsatisfied, previous: .satisfied, eph: 9.5), regionAdded: 7, trackerID: "lt"))
        let message = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(message["event"] as? String == "leave")
        #expect(message["desc"] as? String == "home")
        #expect(message["rid"] as? String == "home")
        #expect(message["tid"] as? String == "lt")
        #expect(message["acc"] as? Int == 10)
    }

    @Test("given a title with quotes when written then it is escaped JSON")
    func escapedTitle() throws {
        let line = try #require(GeofenceEventLine.ownTracks(
            Self.event(.satisfied, previous: .unknown), regionAdded: 0, title: #"Bob's "shed""#, trackerID: "b1"))
        let message = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(message["desc"] as? String == #"Bob's "shed""#)
    }

    @Test("given error estimates under a metre when written then acc is 1, never 0; without an eph acc is left out",
          arguments: [(0.0, 1), (0.2, 1), (0.5, 1), (1.5, 2), (1900.4, 1900)])
    func accuracy(eph: Double, acc: Int) {
        let line = GeofenceEventLine.ownTracks(Self.event(.satisfied, previous: .unknown, eph: eph), regionAdded: 0, trackerID: "pi")
        #expect(line?.contains(",\"acc\":\(acc),") == true, "\(line ?? "nil")")
    }

    @Test("given a fix without eph when written then no acc member")
    func noAccuracy() {
        let line = GeofenceEventLine.ownTracks(Self.event(.satisfied, previous: .unknown, eph: nil), regionAdded: 0, trackerID: "pi")
        #expect(line?.contains("acc") == false, "\(line ?? "nil")")
    }

    @Test("given a region removed while inside when written with the last fix then its leave carries the title and the tid")
    func removalLeave() {
        let removed = GeofenceEvent(monitor: "car", identifier: "home", state: .unmonitored, previousState: .satisfied, fix: nil)
        let line = GeofenceEventLine.ownTracks(removed, regionAdded: 5, lastFix: F.fix(north: 0, second: 3), title: "Home", trackerID: "pi")
        #expect(line?.hasPrefix(#"{"_type":"transition","event":"leave","desc":"Home","tst":1795000003,"wtst":5,"#) == true, "\(line ?? "nil")")
        #expect(line?.hasSuffix(#","acc":5,"t":"c","tid":"pi","rid":"home"}"# + "\n") == true, "\(line ?? "nil")")
    }

    @Test("given a region entered and then fixes without eph when it is removed then its leave carries the newest fix with an eph, and a run that saw none, the newest fix without acc")
    func removalLeavePosition() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            let monitor = try GeofenceMonitor(named: "m", directory: root)
            try await monitor.add(F.circle(radius: 100), identifier: "home", title: "Home")
            var transitions = await OwnTracksTransitions(monitor: monitor, trackerID: "pi")
            var fresh = await OwnTracksTransitions(monitor: monitor, trackerID: "pi")  // a run that sees only the eph-less fix
            let entered: [GPSDEvent] = [.fix(F.fix(north: 0, second: 0))]
            transitions.consider(entered)
            _ = try await monitor.decide(entered)
            let blind: [GPSDEvent] = [.fix(F.fix(north: 20, eph: 4, second: 1)), .fix(F.fix(north: 30, eph: nil, second: 2))]
            transitions.consider(blind)
            fresh.consider(Array(blind.suffix(1)))
            _ = try await monitor.decide(blind)
            try await monitor.remove("home")
            let removed = try await monitor.decide(EmptyCollection()).map(\.event).filter { $0.state == .unmonitored }
            let event = try #require(removed.first, "no unmonitored event")
            let line = await transitions.line(for: event)
            #expect(line?.contains(#""event":"leave","desc":"Home","tst":1795000001,"#) == true, "\(line ?? "nil")")
            #expect(line?.contains(#","acc":4,"#) == true, "\(line ?? "nil")")
            let blindLine = await fresh.line(for: event)
            #expect(blindLine?.contains(#""event":"leave","desc":"Home","tst":1795000002,"#) == true, "\(blindLine ?? "nil")")
            #expect(blindLine?.contains("acc") == false, "\(blindLine ?? "nil")")
        }
    }

    @Test("given a region entered as Home when it is replaced by one titled Office then its leave still says Home, and the new enter Office")
    func replacedRegionLeavesUnderItsOldTitle() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            let monitor = try GeofenceMonitor(named: "m", directory: root)
            try await monitor.add(F.circle(radius: 100), identifier: "home", title: "Home")
            var transitions = await OwnTracksTransitions(monitor: monitor, trackerID: "pi")
            let entered: [GPSDEvent] = [.fix(F.fix(north: 0, second: 0))]
            transitions.consider(entered)
            let enter = try await monitor.decide(entered).map(\.event)
            #expect(await transitions.line(for: try #require(enter.first))?.contains(#""desc":"Home""#) == true)
            try await monitor.add(F.circle(radius: 150), identifier: "home", title: "Office")
            let next: [GPSDEvent] = [.fix(F.fix(north: 0, second: 1))]
            transitions.consider(next)
            var lines: [String] = []
            for event in try await monitor.decide(next).map(\.event) {
                if let line = await transitions.line(for: event) { lines.append(line) }
            }
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first?.contains(#""event":"leave","desc":"Home""#) == true, "\(lines)")
            #expect(lines.last?.contains(#""event":"enter","desc":"Office""#) == true, "\(lines)")
        }
    }

    @Test("given a monitor with a titled region when OwnTracksTransitions writes its enter then the title and the tid come from the monitor and the options")
    func transitionsFromMonitor() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            let monitor = try GeofenceMonitor(named: "m", directory: root)
            try await monitor.add(F.circle(radius: 100), identifier: "home", title: "Home sweet home")
            var transitions = await OwnTracksTransitions(monitor: monitor, trackerID: "ca")
            let batch: [GPSDEvent] = [.fix(F.fix(north: 0, second: 0))]
            transitions.consider(batch)
            let deliveries = try await monitor.decide(batch)
            let line = await transitions.line(for: try #require(deliveries.first).event)
            #expect(line?.contains(#""event":"enter","desc":"Home sweet home""#) == true, "\(line ?? "nil")")
            #expect(line?.hasSuffix(#""tid":"ca","rid":"home"}"# + "\n") == true, "\(line ?? "nil")")
        }
    }
}

@Suite("The accuracy limit for OwnTracks brokers", .timeLimit(.minutes(1)))
struct OwnTracksBrokerAccuracyLimitTests {
    @Test("given stream --publish --format owntracks without --min-accuracy when parsed then brokers get the 100 m limit")
    func defaultLimit() throws {
        let parsed = try Command(arguments: ["stream", "--format", "owntracks", "--publish", "mqtt://broker.local/owntracks/alice/car"])
        guard case .stream(let options) = parsed else { Issue.record("\(parsed)"); return }
        #expect(options.brokerAccuracyLimit == 100)
        #expect(options.minimumAccuracy == nil)
    }

    @Test("given --min-accuracy given explicitly when parsed then it replaces the broker limit, and off removes every limit",
          arguments: [("250", 250.0 as Double?), ("20", 20), ("off", nil)])
    func explicitWins(value: String, minimum: Double?) throws {
        let parsed = try Command(arguments: [
            "stream", "--format", "owntracks", "--min-accuracy", value, "--publish", "mqtt://broker.local/owntracks/alice/car",
        ])
        guard case .stream(let options) = parsed else { Issue.record("\(parsed)"); return }
        #expect(options.brokerAccuracyLimit == nil)
        #expect(options.minimumAccuracy == minimum)
    }

    @Test("given other formats, or owntracks on stdout, when parsed then there is no broker limit",
          arguments: [["--format", "json", "--publish", "mqtt://b/t"], ["--publish", "mqtt://b/t"], ["--format", "owntracks"]])
    func onlyOwnTracksBrokers(arguments: [String]) throws {
        let parsed = try Command(arguments: ["stream"] + arguments)
        guard case .stream(let options) = parsed else { Issue.record("\(parsed)"); return }
        #expect(options.brokerAccuracyLimit == nil)
    }

    @Test("given --min-accuracy with a value that is neither a positive number nor off when parsed then one usage error",
          arguments: ["0", "-5", "none", "", "nan"])
    func badValue(value: String) {
        #expect(throws: UsageError.invalidValue(value, option: "--min-accuracy", expected: "a positive number of metres, or off")) {
            try Command(arguments: ["stream", "--min-accuracy", value])
        }
    }

    @Test("given once when --min-accuracy off is given then it stays a positive number only")
    func onceTakesNoOff() {
        #expect(throws: UsageError.invalidValue("off", option: "--min-accuracy", expected: "a positive number of metres")) {
            try Command(arguments: ["once", "--min-accuracy", "off"])
        }
    }
}

@Suite("Region titles: --title, GeoJSON properties.name, the state file", .timeLimit(.minutes(1)))
struct RegionTitleTests {
    typealias F = GeofenceFixtures

    @Test("given monitor add with --title when parsed then the title is taken; an empty one or a control character is a usage error")
    func titleOption() throws {
        #expect(try Command(arguments: ["monitor", "add", "home", "--circle", "52.5,13.4,80", "--title", "Home sweet home"])
            == .monitor(.add(.init(identifier: "home", region: .circle(latitude: 52.5, longitude: 13.4, radius: 80),
                                   title: "Home sweet home"))))
        for bad in ["", "a\tb", String(repeating: "x", count: 201)] {
            #expect(throws: UsageError.invalidValue(bad, option: "--title", expected: "1 to 200 characters without control characters")) {
                try Command(arguments: ["monitor", "add", "home", "--circle", "52.5,13.4,80", "--title", bad])
            }
        }
    }

    @Test("given GeoJSON features with properties.name when read then each region has that title; empty or absent is none")
    func geoJSONNames() throws {
        let square = #"{"type":"Polygon","coordinates":\#(GeoJSONRegionsTests.square)}"#
        func feature(_ properties: String) -> String { GeoJSONRegionsTests.feature(square, properties: properties) }
        let text = #"{"type":"FeatureCollection","features":[\#(feature(#"{"id":"a","name":"Tiergarten"}"#)),"#
            + #"\#(feature(#"{"id":"b","name":""}"#)),\#(feature(#"{"id":"c"}"#)),\#(feature(#"{"id":"d","name":null}"#))]}"#
        let regions = try GeoJSONRegionsTests.regions(text)
        #expect(regions.map(\.title) == ["Tiergarten", nil, nil, nil])
        #expect(regions.map(\.identifier) == ["a", "b", "c", "d"])
    }

    @Test("given a GeoJSON name that is not a string when read then invalidGeometry names the feature")
    func geoJSONNameNotText() {
        let square = #"{"type":"Polygon","coordinates":\#(GeoJSONRegionsTests.square)}"#
        let text = #"{"type":"FeatureCollection","features":[\#(GeoJSONRegionsTests.feature(square, properties: #"{"id":"a","name":7}"#))]}"#
        #expect(GeoJSONRegionsTests.error(text) == .invalidGeometry("feature 1: expected properties.name to be a string, found a number"))
    }

    @Test("given a snapshot with a titled region when encoded then it is version 2 with the title, and reads back equal")
    func titleRoundTrip() throws {
        var snapshot = MonitorSnapshot(name: "d")
        snapshot.add(F.circle(radius: 80), identifier: "home", title: "Home \"sweet\" home", assuming: .unknown,
                     at: Timestamp(seconds: 1_795_000_000))
        snapshot.add(F.circle(radius: 30), identifier: "shop", assuming: .unknown)
        let text = String(decoding: MonitorFileFormat.encode(snapshot), as: UTF8.self)
        #expect(text.hasPrefix(#"{"loctrack":"monitor","version":2,"#))
        #expect(text.contains(#""added":"2026-11-18T11:06:40.000Z","title":"Home \"sweet\" home"}"#), "\(text)")
        let decoded = try MonitorFileFormat.decode(Array(text.utf8), path: "/x")
        #expect(decoded == snapshot)
        #expect(decoded.conditions.map(\.title) == ["Home \"sweet\" home", nil])
    }

    @Test("given no titled region when encoded then the file stays version 1, which older loctracks read")
    func untitledStaysVersion1() {
        var snapshot = MonitorSnapshot(name: "d")
        snapshot.add(F.circle(radius: 80), identifier: "home", assuming: .unknown)
        #expect(String(decoding: MonitorFileFormat.encode(snapshot), as: UTF8.self).hasPrefix(#"{"loctrack":"monitor","version":1,"#))
    }

    @Test("given a version 1 file written before titles when read then every region is there, without a title")
    func oldFileReadable() throws {
        let old = #"{"loctrack":"monitor","version":1,"name":"default","nextSerial":3,"lastFixTime":"2026-11-22T04:25:03.240Z","#
            + #""conditions":[{"id":"home","serial":1,"region":{"type":"Point","coordinates":[13.4,52.5],"radius":150},"#
            + #""state":"satisfied","added":"2026-11-22T04:20:00.000Z"},{"id":"yard","serial":2,"region":{"type":"Point","#
            + #""coordinates":[13.5,52.5],"radius":50},"state":"unknown"}]}"# + "\n"
        let snapshot = try MonitorFileFormat.decode(Array(old.utf8), path: "/x")
        #expect(snapshot.conditions.map(\.identifier) == ["home", "yard"])
        #expect(snapshot.conditions.map(\.title) == [nil, nil])
        #expect(snapshot.conditions[0].state == .satisfied)
    }

    @Test("given a title that is not a non-empty string in a version 2 file when read then corruptStateFile names it",
          arguments: [(#""""#, #"found """#), ("5", "found 5")])
    func badStoredTitle(value: String, found: String) {
        let text = #"{"loctrack":"monitor","version":2,"name":"d","nextSerial":2,"conditions":[{"id":"a","serial":1,"#
            + #""region":{"type":"Point","coordinates":[13.4,52.5],"radius":150},"state":"unknown","title":\#(value)}]}"#
        #expect(throws: GeofenceError.corruptStateFile(path: "/x", reason: "conditions[0].title: expected a non-empty string, \(found)")) {
            try MonitorFileFormat.decode(Array(text.utf8), path: "/x")
        }
    }

    @Test("given a monitor when regions are added with titles then records have them after a reopen, and a re-add without one drops it")
    func monitorKeepsTitles() async throws {
        try await MonitorStoreTests.withTemporaryDirectory { root in
            do {
                let monitor = try GeofenceMonitor(named: "m", directory: root)
                try await monitor.add(F.circle(radius: 100), identifier: "home", title: "Home")
                try await monitor.add([("park", F.circle(radius: 300, north: 900), "Tiergarten" as String?), ("shop", F.circle(radius: 20), nil)])
            }
            let reopened = try GeofenceMonitor(named: "m", directory: root)
            #expect(await reopened.record(for: "home")?.title == "Home")
            #expect(await reopened.record(for: "home")?.displayName == "Home")
            #expect(await reopened.record(for: "park")?.title == "Tiergarten")
            #expect(await reopened.record(for: "shop")?.title == nil)
            #expect(await reopened.record(for: "shop")?.displayName == "shop")
            try await reopened.add(F.circle(radius: 100), identifier: "home")
            #expect(await reopened.record(for: "home")?.title == nil)
            await #expect(throws: GeofenceError.invalidTitle("")) { try await reopened.add(F.circle(radius: 1), identifier: "x", title: "") }
        }
    }
}

@Suite("monitor export: the regions as an OwnTracks waypoints message", .timeLimit(.minutes(1)))
struct OwnTracksWaypointsTests {
    typealias F = GeofenceFixtures

    static func record(_ identifier: String, _ condition: GeofenceCondition, title: String? = nil, added: Int64? = 1_795_000_000) -> GeofenceRecord {
        GeofenceRecord(identifier: identifier, condition: condition, state: .unknown, lastEvent: nil,
                       added: added.map { Timestamp(seconds: $0) }, title: title)
    }

    @Test("given a titled circle and an untitled one when exported then one waypoints message, rad rounded up, desc the title or the id")
    func circles() throws {
        let home = try GeofenceCondition.circle(center: GeoPoint(latitude: 52.5163, longitude: 13.3777), radius: 80)
        let shop = try GeofenceCondition.circle(center: GeoPoint(latitude: 52.52, longitude: 13.4), radius: 30.2)
        let message = OwnTracksWaypoints.message([Self.record("home", home, title: "Home"), Self.record("shop", shop, added: nil)])
        #expect(message == """
            {"_type":"waypoints","waypoints":[\
            {"_type":"waypoint","desc":"Home","lat":52.5163000,"lon":13.3777000,"rad":80,"tst":1795000000,"rid":"home"},\
            {"_type":"waypoint","desc":"shop","lat":52.5200000,"lon":13.4000000,"rad":31,"tst":0,"rid":"shop"}]}

            """)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(message.utf8)) as? [String: Any])
        #expect((json["waypoints"] as? [[String: Any]])?.count == 2)
    }

    @Test("given no regions when exported then an empty waypoints list")
    func empty() {
        #expect(OwnTracksWaypoints.message([]) == #"{"_type":"waypoints","waypoints":[]}"# + "\n")
    }

    @Test("given a 200 m by 100 m rectangle when exported then a circle at its centre through its corners")
    func rectangle() throws {
        let rectangle = F.polygon([(0, 0), (0, 200), (100, 200), (100, 0)])
        let circle = rectangle.enclosingCircle
        let centre = F.point(north: 50, east: 100)
        #expect(Earth.distance(from: circle.center, to: centre) < 0.01)
        #expect(abs(circle.radius - (100.0 * 100 + 50 * 50).squareRoot()) < 0.1)  // 111.8 m, half the diagonal
        let message = OwnTracksWaypoints.message([Self.record("lot", rectangle)])
        #expect(message.contains(#","rad":112,"tst":1795000000,"rid":"lot"}"#), "\(message)")
    }

    @Test("given an L-shaped polygon when its circle is made then it holds every corner and its centre is the area centroid")
    func lShape() {
        // Three 100 m squares, centres (50, 50), (50, 150), (150, 50) (north, east): the centroid is their mean.
        let corners: [(Double, Double)] = [(0, 0), (0, 200), (100, 200), (100, 100), (200, 100), (200, 0)]
        let circle = F.polygon(corners).enclosingCircle
        #expect(Earth.distance(from: circle.center, to: F.point(north: 250.0 / 3, east: 250.0 / 3)) < 0.05)
        for corner in corners {
            #expect(Earth.distance(from: circle.center, to: F.point(north: corner.0, east: corner.1)) <= circle.radius + 1e-6)
        }
    }

    @Test("given a square with a hole on one side when its circle is made then the centre moves away from the hole")
    func holeMovesCentroid() {
        let holed = F.polygon([(0, 0), (0, 100), (100, 100), (100, 0)], holes: [[(10, 60), (10, 90), (90, 90), (90, 60)]])
        let circle = holed.enclosingCircle
        let plain = F.polygon([(0, 0), (0, 100), (100, 100), (100, 0)]).enclosingCircle
        #expect(Earth.distance(from: plain.center, to: F.point(north: 50, east: 50)) < 0.01)
        // The hole's 2,400 m² centred at east 75 pulls the centroid west of 50: (50·10000 − 75·2400)/7600 = 42.1.
        #expect(Earth.distance(from: circle.center, to: F.point(north: 50, east: 42.105)) < 0.05)
    }

    @Test("given a circle region when its enclosing circle is made then it is the circle itself")
    func circleIsItself() throws {
        let center = try GeoPoint(latitude: -33.86, longitude: 151.21)
        let circle = try GeofenceCondition.circle(center: center, radius: 42.5).enclosingCircle
        #expect(circle.center == center)
        #expect(circle.radius == 42.5)
        #expect(OwnTracksWaypoints.radius(0.2) == 1)
        #expect(OwnTracksWaypoints.radius(80) == 80)
        #expect(OwnTracksWaypoints.radius(80.01) == 81)
    }

    @Test("given monitor export when parsed then the name and the format are taken; other formats are usage errors")
    func parsing() throws {
        #expect(try Command(arguments: ["monitor", "export"]) == .monitor(.export(name: "default", format: .owntracks)))
        #expect(try Command(arguments: ["monitor", "export", "--name", "car", "--format", "owntracks"])
            == .monitor(.export(name: "car", format: .owntracks)))
        #expect(throws: UsageError.invalidValue("gpx", option: "--format", expected: "owntracks")) {
            try Command(arguments: ["monitor", "export", "--format", "gpx"])
        }
        #expect(throws: UsageError.unexpectedArgument("home", command: "monitor export")) {
            try Command(arguments: ["monitor", "export", "home"])
        }
    }
}
