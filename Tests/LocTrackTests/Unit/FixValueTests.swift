import Foundation
@testable import LocTrack
import Testing

/// `Fix` keeps its values in one box (a copy is a retain); its `Codable` and `Hashable`
/// are written out to forward to the values. These pin what they were when Swift
/// synthesized them from `Fix`'s own stored properties.
@Suite("Fix: a value with its values in one box", .timeLimit(.minutes(1)))
struct FixValueTests {
    static let full = Fix(
        time: Timestamp(seconds: 1_800_000_000, nanoseconds: 250_000_000), mode: .threeD, status: .dgps,
        device: "/dev/ttyACM0", latitude: 47.5, longitude: 8.25, altitudeHAE: 512.5, altitudeMSL: 464.25,
        horizontalError: 3.5, longitudeError: 2.25, latitudeError: 2.5, verticalError: 6.5, timeError: 0.005,
        sphericalError: 7.25, speed: 1.5, track: 90.5, magneticTrack: 88.25, magneticVariation: 2.5, climb: -0.25,
        speedError: 0.5, trackError: 12.5, climbError: 1.25, geoidSeparation: 48.25, leapSeconds: 18,
        ecef: Fix.ECEF(x: 4_300_000.5, y: 620_000.25, z: 4_680_000.75, vx: 0.5, vy: -0.25, vz: 0.125,
                       positionAccuracy: 3.5, velocityAccuracy: 0.25),
        velocityNED: Fix.VelocityNED(north: 1.25, east: -0.5, down: 0.25), isStationary: true)
    static let sparse = Fix(time: Timestamp(seconds: 1_800_000_001, nanoseconds: 0), mode: .twoD, latitude: -33.5, longitude: 151.25)

    static func json(_ fix: Fix) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(fix), as: UTF8.self)
    }

    @Test("given a fix with every field and one with none of the optional ones when encoded as JSON then the keys and values are the synthesized ones, and decoding gives the same fix")
    func codable() throws {
        #expect(try Self.json(Self.full) == #"{"altitudeHAE":512.5,"altitudeMSL":464.25,"climb":-0.25,"climbError":1.25,"device":"\/dev\/ttyACM0","ecef":{"positionAccuracy":3.5,"velocityAccuracy":0.25,"vx":0.5,"vy":-0.25,"vz":0.125,"x":4300000.5,"y":620000.25,"z":4680000.75},"geoidSeparation":48.25,"horizontalError":3.5,"isStationary":true,"latitude":47.5,"latitudeError":2.5,"leapSeconds":18,"longitude":8.25,"longitudeError":2.25,"magneticTrack":88.25,"magneticVariation":2.5,"mode":3,"speed":1.5,"speedError":0.5,"sphericalError":7.25,"status":2,"time":{"nanoseconds":250000000,"seconds":1800000000},"timeError":0.005,"track":90.5,"trackError":12.5,"velocityNED":{"down":0.25,"east":-0.5,"north":1.25},"verticalError":6.5}"#)
        #expect(try Self.json(Self.sparse) == #"{"isStationary":false,"latitude":-33.5,"longitude":151.25,"mode":2,"status":1,"time":{"nanoseconds":0,"seconds":1800000001}}"#)
        for fix in [Self.full, Self.sparse] {
            let decoded = try JSONDecoder().decode(Fix.self, from: Data(try Self.json(fix).utf8))
            #expect(decoded == fix)
            #expect(try Self.json(decoded) == Self.json(fix))
        }
    }

    @Test("given fixes equal field by field but built apart, and fixes that differ in one field when compared and hashed then equality and hashes follow the values")
    func hashable() {
        let copy = Self.full.marked(stationary: false).marked(stationary: true)  // a new box, the same values
        #expect(copy == Self.full)
        #expect(copy.hashValue == Self.full.hashValue)
        #expect(Self.full.marked(stationary: false) != Self.full)
        #expect(Set([Self.full, copy, Self.sparse]).count == 2)
        #expect(Self.full.marked(stationary: true).isStationary)
        #expect(!Self.full.marked(stationary: false).isStationary)
    }
}
