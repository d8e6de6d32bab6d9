/// gpsd commands, built by loctrack itself.
///
/// libgps's `gps_stream` formats `?WATCH` in an 80-byte buffer, which cuts a
/// long `/dev/serial/by-id/…` path into invalid JSON and still returns 0.
package enum GPSDCommand {
    /// `?WATCH={"enable":true,"json":true[,"device":"…"]};`
    static func watch(device: String?) -> String {
        guard let device else { return "?WATCH={\"enable\":true,\"json\":true};\n" }
        return "?WATCH={\"enable\":true,\"json\":true,\"device\":\"\(JSONText.escaped(device))\"};\n"
    }

    /// Stops the watch before closing, so gpsd can release the device promptly.
    static let unwatch = "?WATCH={\"enable\":false};\n"

    /// Asks gpsd for the latest fix of every watched device.
    static let poll = "?POLL;\n"
}
