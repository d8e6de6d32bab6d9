import Foundation
import Glibc
import LocTrack
import LocTrackMonitor
import LocTrackTestSupport
import Testing

extension EndToEndTests {
    /// `loctrack monitor add|remove|list` with bad input and a corrupt state file: one
    /// line on stderr, the documented exit code, and the stored monitor unchanged.
    @Suite("Monitor: bad input and corrupt state", .serialized, .timeLimit(.minutes(1)))
    struct MonitorInput {
        private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

        @Test("given a stored monitor when add gets a bad circle, bad GeoJSON or remove an unknown id then it exits 64 with one line and the state file is byte for byte the same",
              arguments: [
                  (["monitor", "add", "x", "--circle", "91,13,10"], "latitude from -90 to 90"),
                  (["monitor", "add", "x", "--circle", "52,-181,10"], "longitude from -180 to 180"),
                  (["monitor", "add", "x", "--circle", "52,13,0"], "radius of more than 0"),
                  (["monitor", "add", "x", "--circle", "52;13;10"], "LAT,LON,RADIUS"),
                  (["monitor", "add", "--geojson", "FILE:not json"], "invalid JSON"),
                  (["monitor", "add", "--geojson", "FILE:{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]}"], "LineString"),
                  (["monitor", "add", "x", "--geojson", "FILE:{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[0,95],[1,1],[0,0]]]}"], "latitude"),
                  (["monitor", "add", "x", "--geojson", "FILE:{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[0,1],[1,1]]]}"], "4 positions"),
                  (["monitor", "add", "--geojson", "FILE:{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[0,1],[1,1],[0,0]]]}"], "properties.id"),
                  (["monitor", "add", "x", "--geojson", "/nonexistent/zones.geojson"], "cannot read"),
                  (["monitor", "remove", "nope"], "has no condition 'nope'"),
                  (["monitor", "add", "x", "--circle", "1,2,3", "--name", "../etc"], "invalid monitor name"),
              ])
        func badInputLeavesTheMonitorAsItWas(arguments: [String], message: String) async throws {
            let home = try StateHome()
            let setUp = try await home.loctrack(["monitor", "add", "home", "--circle", "52.5,13.4,100"])
            #expect(setUp.status == .exited(0), "\(setUp)")
            let before = try #require(bytes(home.stateFile()))
            let resolved = try arguments.map { argument in
                argument.hasPrefix("FILE:") ? try home.file("input.geojson", String(argument.dropFirst(5))) : argument
            }
            let result = try await home.loctrack(resolved)
            #expect(result.status == .exited(64), "\(result)")
            #expect(result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.contains(message), "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(bytes(home.stateFile()) == before)
        }

        @Test("given a corrupt state file when list, add, remove or run open the monitor then each exits 65 with one line and the file is untouched")
        func corruptStateFileIsReportedAndKept() async throws {
            let home = try StateHome()
            _ = try await home.loctrack(["monitor", "add", "home", "--circle", "52.5,13.4,100"])
            let corrupt = Data("{\"loctrack\":\"monitor\",\"version\":1,\"name\":\"default\",\"conditions\":[{\"id\":".utf8)
            try corrupt.write(to: URL(fileURLWithPath: home.stateFile()))
            for arguments in [
                ["monitor", "list"], ["monitor", "add", "x", "--circle", "1,2,3"], ["monitor", "remove", "home"],
                ["monitor", "run", "127.0.0.1:1"],
            ] {
                let result = try await home.loctrack(arguments)
                #expect(result.status == .exited(65), "\(arguments): \(result)")
                #expect(result.stderrLines.count == 1 && result.stderr.contains(home.stateFile()), "\(result)")
                #expect(bytes(home.stateFile()) == corrupt, "\(arguments) changed the corrupt file")
            }
        }

        @Test("given circles and a FeatureCollection added when listed then text and json show each condition in the order added")
        func listShowsConditions() async throws {
            let home = try StateHome()
            let collection = """
                {"type":"FeatureCollection","features":[
                 {"type":"Feature","properties":{"id":"park"},"geometry":{"type":"Polygon","coordinates":[[[13.0,52.0],[13.01,52.0],[13.01,52.01],[13.0,52.0]]]}},
                 {"type":"Feature","properties":{"id":"lake","radius":250},"geometry":{"type":"Point","coordinates":[13.2,52.4]}}]}
                """
            let file = try home.file("zones.geojson", collection)
            #expect(try await home.loctrack(["monitor", "add", "home", "--circle", "52.5,13.4,100", "--assume", "inside"]).status == .exited(0))
            #expect(try await home.loctrack(["monitor", "add", "--geojson", file]).status == .exited(0))
            let json = try await home.loctrack(["monitor", "list", "--format", "json"])
            let records = try json.jsonObjects()
            #expect(records.map { $0["id"] as? String } == ["home", "park", "lake"], "\(json)")
            #expect(records.map { $0["state"] as? String } == ["satisfied", "unknown", "unknown"])
            let lake = records[2]["region"] as? [String: Any]
            #expect(lake?["type"] as? String == "Point")
            #expect(lake?["radius"] as? Double == 250)
            #expect((records[1]["region"] as? [String: Any])?["type"] as? String == "Polygon")
            let text = try await home.loctrack(["monitor", "list"])
            #expect(text.stdoutLines == [
                "home  circle 52.5000000, 13.4000000 r 100 m  satisfied",
                "park  polygon of 3 points  unknown",
                "lake  circle 52.4000000, 13.2000000 r 250 m  unknown",
            ], "\(text)")
        }

        @Test("given a state file written before titles and regions added with --title and properties.name when listed and exported then titles show where given and old regions export under their ids")
        func titlesListAndExport() async throws {
            let home = try StateHome()
            // A version 1 file as loctrack wrote it before titles: one circle, no title.
            try FileManager.default.createDirectory(atPath: "\(home.path)/loctrack", withIntermediateDirectories: true)
            let old = #"{"loctrack":"monitor","version":1,"name":"default","nextSerial":2,"conditions":[{"id":"depot","serial":1,"#
                + #""region":{"type":"Point","coordinates":[13.4,52.5],"radius":60},"state":"unknown","added":"2026-11-22T04:20:00.000Z"}]}"#
            try Data((old + "\n").utf8).write(to: URL(fileURLWithPath: home.stateFile()))
            let collection = """
                {"type":"FeatureCollection","features":[
                 {"type":"Feature","properties":{"id":"park","name":"Tiergarten"},"geometry":{"type":"Polygon","coordinates":[[[13.0,52.0],[13.01,52.0],[13.01,52.01],[13.0,52.01],[13.0,52.0]]]}}]}
                """
            let file = try home.file("zones.geojson", collection)
            #expect(try await home.loctrack(["monitor", "add", "home", "--circle", "52.5,13.4,80.5", "--title", "Home"]).status == .exited(0))
            #expect(try await home.loctrack(["monitor", "add", "--geojson", file]).status == .exited(0))

            let text = try await home.loctrack(["monitor", "list"])
            #expect(text.stdoutLines == [
                "depot  circle 52.5000000, 13.4000000 r 60 m  unknown",
                "home  \"Home\"  circle 52.5000000, 13.4000000 r 80 m  unknown",
                "park  \"Tiergarten\"  polygon of 4 points  unknown",
            ], "\(text)")
            let json = try await home.loctrack(["monitor", "list", "--format", "json"])
            #expect(try json.jsonObjects().map { $0["title"] as? String } == [nil, "Home", "Tiergarten"], "\(json)")
            let state = try String(contentsOfFile: home.stateFile(), encoding: .utf8)
            #expect(state.hasPrefix(#"{"loctrack":"monitor","version":2,"#), "\(state)")

            let exported = try await home.loctrack(["monitor", "export"])
            #expect(exported.status == .exited(0), "\(exported)")
            #expect(exported.stdoutLines.count == 1, "\(exported)")
            let message = try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
            #expect(message["_type"] as? String == "waypoints")
            let waypoints = try #require(message["waypoints"] as? [[String: Any]])
            #expect(waypoints.map { $0["desc"] as? String } == ["depot", "Home", "Tiergarten"])
            #expect(waypoints.map { $0["rid"] as? String } == ["depot", "home", "park"])
            #expect(waypoints.map { $0["rad"] as? Int } == [60, 81, 653])  // the park: half the diagonal of 0.01° × 0.01° at 52° N
            #expect(waypoints.first?["tst"] as? Int == 1_795_321_200)
            #expect(waypoints.allSatisfy { $0["_type"] as? String == "waypoint" })
        }
    }
}
