import Foundation

/// Whether a test that needs a tool (gpsd and gpsfake, mosquitto, zsh, fish) runs.
///
/// `make test` installs every such tool and sets `LOCTRACK_TESTS_REQUIRE_TOOLS=1`: then the test
/// runs whether or not the tool is there, and a tool that went missing (a package dropped from
/// scripts/install-deps.sh, a renamed binary) fails its tests with the harness's message
/// instead of skipping them silently. A bare `swift test` on a machine without the tools
/// still skips them, each with its reason.
package enum RequiredTools {
    package static let areRequired = ProcessInfo.processInfo.environment["LOCTRACK_TESTS_REQUIRE_TOOLS"] == "1"

    /// `installed`, or true when the tools are required.
    package static func run(ifInstalled installed: Bool) -> Bool { installed || areRequired }
}
