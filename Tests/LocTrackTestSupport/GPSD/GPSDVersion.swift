import Foundation
import Glibc

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
        // A ChildProcess, not Foundation's Process: its pipes are close-on-exec, so no child
        // another suite spawns meanwhile holds their write end and keeps the read from ending.
        guard let child = try? ChildProcess(
            executable: "/usr/sbin/gpsd", arguments: ["gpsd", "-V"], stdin: .null, stdout: .pipe, stderr: .pipe,
            newProcessGroup: false)
        else { return GPSDVersion(3, 22) }
        _ = child.waitForExit(within: .seconds(10))
        let deadline = ContinuousClock.now + .seconds(10)
        while !((child.stdout?.ended ?? true) && (child.stderr?.ended ?? true)) && ContinuousClock.now < deadline { usleep(1_000) }
        let output = (child.stdout?.text ?? "") + (child.stderr?.text ?? "")
        return GPSDVersion(versionOutput: output) ?? GPSDVersion(3, 22)
    }()

    package static func < (left: GPSDVersion, right: GPSDVersion) -> Bool {
        (left.major, left.minor) < (right.major, right.minor)
    }

    package var description: String { "\(major).\(minor)" }
}
