import LocTrack
import LocTrackFormats

/// A SKY report as `/api/sky` and the `sky` event carry it: gpsd's names (`man gpsd_json`),
/// DOPs with gpsd's 2 decimals, angles and signal with 1; absent values left out.
enum SkyJSON {
    static func encode(_ sky: SkyView) -> String {
        var bytes = OutputBytes(reservingCapacity: 160 + 90 * sky.satellites.count)
        bytes.append("{\"class\":\"SKY\"")
        if let device = sky.device {
            bytes.append(",\"device\":\"")
            bytes.appendJSONEscaped(device)
            bytes.append(byte: 0x22)
        }
        if let time = sky.time {
            bytes.append(",\"time\":\"")
            bytes.append(time)
            bytes.append(byte: 0x22)
        }
        bytes.append(",\"nSat\":")
        bytes.append(sky.seen)
        bytes.append(",\"uSat\":")
        bytes.append(sky.used)
        let dop = sky.dilution
        append("hdop", dop.horizontal, 2, to: &bytes)
        append("vdop", dop.vertical, 2, to: &bytes)
        append("pdop", dop.position, 2, to: &bytes)
        append("tdop", dop.time, 2, to: &bytes)
        append("gdop", dop.geometric, 2, to: &bytes)
        append("xdop", dop.longitude, 2, to: &bytes)
        append("ydop", dop.latitude, 2, to: &bytes)
        bytes.append(",\"satellites\":[")
        for (index, satellite) in sky.satellites.enumerated() {
            if index > 0 { bytes.append(byte: 0x2C) }
            bytes.append("{\"PRN\":")
            bytes.append(satellite.prn)
            if let constellation = satellite.constellation {
                bytes.append(",\"gnssid\":")
                bytes.append(constellation.rawValue)
            }
            if let svid = satellite.satelliteID {
                bytes.append(",\"svid\":")
                bytes.append(svid)
            }
            append("el", satellite.elevation, 1, to: &bytes)
            append("az", satellite.azimuth, 1, to: &bytes)
            append("ss", satellite.signalStrength, 1, to: &bytes)
            bytes.append(satellite.used ? ",\"used\":true" : ",\"used\":false")
            if let healthy = satellite.healthy {
                bytes.append(healthy ? ",\"health\":1" : ",\"health\":2")
            }
            bytes.append(byte: 0x7D)
        }
        bytes.append("]}")
        return String(decoding: bytes.bytes, as: UTF8.self)
    }

    private static func append(_ name: StaticString, _ value: Double?, _ decimals: Int, to bytes: inout OutputBytes) {
        guard let value, value.isFinite else { return }
        bytes.append(",\"")
        bytes.append(name)
        bytes.append("\":")
        bytes.appendFixed(value, decimals: decimals)
    }
}
