internal import CMosquitto

/// libmosquitto's process-wide set-up (`mosquitto_lib_init`), done once before the first client.
enum MosquittoLibrary {
    /// Runs `mosquitto_lib_init` the first time it is read (a static is initialised once, thread-safely).
    static let initialized: Bool = mosquitto_lib_init() == loctrack_mosquitto_success
}
