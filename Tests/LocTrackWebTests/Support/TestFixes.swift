import LocTrack

/// Fixes with round values, so that the expected JSON is easy to write down.
enum TestFixes {
    /// 2026-11-24T08:00:00Z.
    static let start: Int64 = 1_795_507_200

    /// A 3D fix `second` seconds after ``start``, `north` metres-ish (1e-5 degrees) north of 47°N 8°E.
    static func fix(second: Int64, north: Double = 0, eph: Double? = 5, device: String? = "/dev/ttyACM0") -> Fix {
        Fix(
            time: Timestamp(seconds: start + second), mode: .threeD, device: device, latitude: 47 + north * 1e-5,
            longitude: 8, altitudeHAE: 500, altitudeMSL: 452.5, horizontalError: eph, speed: 1.25)
    }

    static func time(_ second: Int64) -> String {
        Timestamp(seconds: start + second).iso8601
    }
}
