import LocTrack
import LocTrackSystem

/// What the options resolve with the process's environment and files.
extension PublishOptions {
    /// The variables ``spoolDirectory(environment:)`` and ``password(environment:readFile:)`` read.
    public static var processEnvironment: [String: String] {
        var environment = StateDirectory.processEnvironment
        if let value = environmentValue(passwordVariable) { environment[passwordVariable] = value }
        return environment
    }

    /// `--spool DIR` as given; else `spool/CLIENTID` in loctrack's state folder
    /// (`$XDG_STATE_HOME/loctrack`, else `~/.local/state/loctrack`: LocTrackSystem's
    /// `StateDirectory` says the order, the same for the monitors, the odometer and every
    /// uplink). One folder per client id, so two publishers with different ids never share a spool.
    /// - Throws: ``PublishConfigurationError/noSpoolDirectory`` when there is no state folder.
    public func spoolDirectory(environment: [String: String]) throws(PublishConfigurationError) -> String {
        if let spoolDirectory { return spoolDirectory }
        do throws(StateDirectory.Failure) {
            return try StateDirectory.spool(named: clientID, environment: environment)
        } catch {
            throw .noSpoolDirectory
        }
    }

    /// The broker password: `LOCTRACK_MQTT_PASSWORD` when it is set and not empty, else
    /// the first line of `--password-file` without its line end (`\n` or `\r\n`), else nil
    /// (no password). A password is sent even when the URL has no user (MQTT 5 allows it,
    /// and some brokers take a token that way).
    /// - Parameter readFile: the whole text of a file; its error is reported with the path.
    /// - Throws: ``PublishConfigurationError/unreadablePasswordFile(path:reason:)``.
    public func password(
        environment: [String: String], readFile: (String) throws -> String = PublishOptions.readTextFile
    ) throws(PublishConfigurationError) -> String? {
        if let password = environment[Self.passwordVariable], !password.isEmpty { return password }
        guard let passwordFile else { return nil }
        let text: String
        do {
            text = try readFile(passwordFile)
        } catch {
            throw .unreadablePasswordFile(path: passwordFile, reason: "\(error)")
        }
        var line = text.prefix { $0 != "\n" && $0 != "\r\n" }
        if line.last == "\r" { line = line.dropLast() }
        return String(line)
    }

    /// The file at `path` as UTF-8 text.
    /// - Throws: the `errno` of `open` or `read`, whose description is `strerror`'s.
    public static func readTextFile(_ path: String) throws -> String {
        String(decoding: try readWholeFile(path), as: UTF8.self)
    }
}
