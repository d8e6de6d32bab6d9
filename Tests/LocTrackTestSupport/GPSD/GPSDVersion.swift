import Foundation

/// The installed gpsd's version (`gpsd -V`: `gpsd: 3.25 (revision 3.25)`), for what the
/// harness must do differently for 3.22 (Debian 12) and 3.25 (Debian 13).
package struct GPSDVersion: Comparable, Sendable, CustomStringConvertible {
    package let major: Int
    package let minor: Int

    package init(_ major: Int, _ minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// From `gpsd: 3.25 (revision 3.25)` or `gpsd: 3.22 (revision 3.22)`.
    package init?(versionOutput text: String) {
        guard let colon = text.range(of: "gpsd: ") else { return nil }
        let numbers = text[colon.upperBound...].prefix { $0.isNumber || $0 == "." }.split(separator: ".").compactMap { Int($0) }
        guard numbers.count >= 2 else { return nil }
        self.init(numbers[0], numbers[1])
    }

    /// `/usr/sbin/gpsd -V`, read once; 3.22 (what the harness was measured with first) when
    /// gpsd is missing or says something else.
    package static let installed: GPSDVersion = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/gpsd")
        process.arguments = ["-V"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return GPSDVersion(3, 22) }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return GPSDVersion(versionOutput: String(decoding: data, as: UTF8.self)) ?? GPSDVersion(3, 22)
    }()

    package static func < (left: GPSDVersion, right: GPSDVersion) -> Bool {
        (left.major, left.minor) < (right.major, right.minor)
    }

    package var description: String { "\(major).\(minor)" }
}
