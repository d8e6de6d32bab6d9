package import LocTrack

/// `--format nmea` and the UDP sink's datagrams: each fix as NMEA 0183 `RMC` and `GGA`
/// (``NMEASentences``), with what only gpsd's SKY report knows: the satellites used, the
/// HDOP, and whether they were GPS alone (talker `GP`) or several constellations (`GN`).
///
/// SKY is kept per device, so that two receivers on one gpsd each get their own count.
/// Before a device's first SKY (gpsd sends none for a receiver without GSV, or the session
/// does not read SKY) the talker is `GP`, which every listener reads, HDOP is empty, and
/// the count is the least the fix's mode needs (3 for 2D, 4 for 3D): gpsd, reading GGA,
/// takes an empty or zero count for a lost fix (the Trimble Placer rule in its NMEA
/// driver), so an empty count would turn every fix into none at the listener.
package struct NMEAEncoder: FixEncoder {
    /// What a device's latest SKY says about the satellites used.
    private struct UsedSatellites {
        /// SKY's count; 0 when it says none (then GGA carries the least the mode needs).
        var count: Int
        var hdop: Double?
        var talker: NMEASentences.Talker
    }

    private var used: [String: UsedSatellites] = [:]

    package init() {}

    package mutating func note(_ sky: SkyView) {
        // QZSS transmits GPS-compatible signals and SBAS only augments: neither makes a fix
        // multi-constellation (receivers keep `GP` with them too).
        let gpsAlone = sky.satellites.allSatisfy { satellite in
            !satellite.used || [.gps, .sbas, .qzss].contains(satellite.constellation ?? .gps)
        }
        used[sky.device ?? ""] = UsedSatellites(count: sky.used, hdop: sky.dilution.horizontal, talker: gpsAlone ? .gps : .gnss)
    }

    package mutating func encode(_ fix: Fix) -> String {
        var output = OutputBytes()
        encode(fix, into: &output)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    package mutating func encode(_ fix: Fix, into output: inout OutputBytes) {
        let satellites = used[fix.device ?? ""]
        let leastForMode = fix.mode == .threeD ? 4 : 3
        NMEASentences.append(
            fix, talker: satellites?.talker ?? .gps,
            satellitesUsed: satellites.map { $0.count > 0 ? $0.count : leastForMode } ?? leastForMode, hdop: satellites?.hdop,
            to: &output)
    }
}
