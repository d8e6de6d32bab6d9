import LocTrack

/// Fixes for the tests: a 3D GPS fix in Berlin at 2025-11-24T16:00:00.240Z unless told otherwise.
enum Fixes {
    /// 2025-11-24T16:00:00Z.
    static let seconds: Int64 = 1_764_000_000

    static func fix(
        at time: Timestamp = Timestamp(seconds: seconds, nanoseconds: 240_000_000), mode: Fix.Mode = .threeD,
        status: Fix.Status = .gps, device: String? = "/dev/ttyACM0", latitude: Double = 52.520008123,
        longitude: Double = 13.404954321, altitudeHAE: Double? = nil, altitudeMSL: Double? = nil,
        horizontalError: Double? = nil, speed: Double? = nil, track: Double? = nil
    ) -> Fix {
        Fix(
            time: time, mode: mode, status: status, device: device, latitude: latitude, longitude: longitude,
            altitudeHAE: altitudeHAE, altitudeMSL: altitudeMSL, horizontalError: horizontalError, speed: speed, track: track)
    }

    /// A fix `seconds` after ``seconds``, `north` metres north of the default position.
    static func fix(after seconds: Double, north metres: Double = 0) -> Fix {
        let whole = Int64(seconds.rounded(.down))
        let nanoseconds = Int32(((seconds - Double(whole)) * 1e9).rounded())
        return fix(
            at: Timestamp(seconds: Self.seconds + whole, nanoseconds: nanoseconds),
            latitude: 52.520008123 + metres / 111_194.93)
    }
}
