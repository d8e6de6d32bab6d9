package import LocTrack

/// `--format nmea` and the UDP sink's datagrams: each fix as NMEA 0183 `RMC` and `GGA`
/// (``NMEASentences``), with what only gpsd's SKY report knows: the satellites used, the
/// HDOP, and whether they were GPS alone (talker `GP`) or several constellations (`GN`).
///
/// SKY is kept per device, so that two receivers on one gpsd each get their own count;
/// before a device's first SKY (or when the session does not read SKY) GGA leaves the
/// count and HDOP empty and the talker is `GP`, which every listener reads.
package struct NMEAEncoder: FixEncoder {
    /// What a device's latest SKY says about the satellites used.
    private struct UsedSatellites {
        var count: Int?
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
        used[sky.device ?? ""] = UsedSatellites(
            count: sky.satellites.isEmpty && sky.used == 0 ? nil : sky.used,
            hdop: sky.dilution.horizontal, talker: gpsAlone ? .gps : .gnss)
    }

    package mutating func encode(_ fix: Fix) -> String {
        var output = OutputBytes()
        encode(fix, into: &output)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    package mutating func encode(_ fix: Fix, into output: inout OutputBytes) {
        let satellites = used[fix.device ?? ""]
        NMEASentences.append(
            fix, talker: satellites?.talker ?? .gps, satellitesUsed: satellites?.count, hdop: satellites?.hdop,
            to: &output)
    }
}
