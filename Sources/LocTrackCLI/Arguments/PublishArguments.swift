import LocTrackMQTT

/// `--publish URL` and its companions, collected while `stream` or `monitor run` scans its
/// arguments, then checked together: one place for both commands.
struct PublishArguments {
    private var broker: BrokerURL?
    private var qos = PublishOptions.defaultQoS
    private var retain = false
    private var clientID: String?
    private var caFile: String?
    private var passwordFile: String?
    private var spoolDirectory: String?
    private var spoolLimitBytes = PublishOptions.defaultSpoolLimitBytes
    /// `--tid`: also the tracker id of `stream --format owntracks` without `--publish`.
    private(set) var tid: String?
    /// The first companion option given other than `--tid`, for "--qos needs --publish".
    private var firstCompanion: String?

    /// Takes `option` and its value when it is a publishing option.
    /// - Returns: false when `option` is not one (the caller reports it as unknown).
    mutating func take(_ option: String, from scanner: inout ArgumentScanner) throws(UsageError) -> Bool {
        switch option {
        case "--publish":
            let text = try scanner.value(for: option)
            do {
                broker = try BrokerURL(parsing: text)
            } catch {
                throw .invalidBrokerURL(reason: error.description)
            }
            return true
        case "--qos":
            let text = try scanner.value(for: option)
            guard let number = Int(text), PublishOptions.isValidQoS(number) else {
                throw .invalidValue(text, option: option, expected: "0, 1 or 2")
            }
            qos = number
        case "--retain":
            retain = true
        case "--client-id":
            let text = try scanner.value(for: option)
            guard PublishOptions.isValidClientID(text) else {
                throw .invalidValue(text, option: option, expected: "1 to 65535 bytes without '/', not '.' or '..'")
            }
            clientID = text
        case "--cafile":
            caFile = try scanner.path(for: option, expected: "a file name")
        case "--password-file":
            passwordFile = try scanner.path(for: option, expected: "a file name")
        case "--spool":
            spoolDirectory = try scanner.path(for: option, expected: "a directory")
        case "--spool-limit":
            let text = try scanner.value(for: option)
            guard let bytes = PublishOptions.byteCount(parsing: text) else {
                throw .invalidValue(text, option: option, expected: "a size of 1 byte or more, e.g. 500000, 500K, 100M, 2G")
            }
            spoolLimitBytes = bytes
        case "--tid":
            tid = try scanner.trackerID()
            return true
        default:
            return false
        }
        if firstCompanion == nil { firstCompanion = option }
        return true
    }

    /// The options, or nil without `--publish`.
    /// - Parameter trackerIDAlone: `--tid` is allowed without `--publish` (the caller checks
    ///   what else it needs: stream's `--format owntracks`).
    /// - Throws: a companion without `--publish`; `--cafile` with an `mqtt://` URL.
    func options(trackerIDAlone: Bool = false) throws(UsageError) -> PublishOptions? {
        guard let broker else {
            if let firstCompanion { throw .needs(firstCompanion, what: "--publish") }
            if tid != nil && !trackerIDAlone { throw .needs("--tid", what: "--publish") }
            return nil
        }
        if caFile != nil && !broker.usesTLS {
            throw .needs("--cafile", what: "an mqtts:// URL in --publish (it is the CA for TLS)")
        }
        return PublishOptions(
            broker: broker, qos: qos, retain: retain, clientID: clientID, caFile: caFile, passwordFile: passwordFile,
            spoolDirectory: spoolDirectory, spoolLimitBytes: spoolLimitBytes, tid: tid)
    }
}
