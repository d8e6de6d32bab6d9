internal import CMosquitto

/// libmosquitto's process-wide set-up (`mosquitto_lib_init`), done once before the first client.
enum MosquittoLibrary {
    /// The library's version, e.g. "2.0.11".
    static let version: String = {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }()

    /// Runs `mosquitto_lib_init` the first time it is read (a static is initialised once, thread-safely).
    static let initialized: Bool = mosquitto_lib_init() == loctrack_mosquitto_success
}
