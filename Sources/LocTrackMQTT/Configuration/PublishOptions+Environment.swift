import LocTrack
import LocTrackSystem

/// What the options resolve with the process's environment and files.
extension PublishOptions {
    /// The variables ``spoolDirectory(environment:)`` and ``password(environment:readFile:)`` read.
    public static var processEnvironment: [String: String] {
        var environment: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "HOME", passwordVariable] {
            if let value = environmentValue(name) { environment[name] = value }
        }
        return environment
    }

    /// `--spool DIR` as given; else `$XDG_STATE_HOME/loctrack/spool/CLIENTID` when
    /// `XDG_STATE_HOME` is an absolute path (the XDG spec ignores relative ones), else
    /// `$HOME/.local/state/loctrack/spool/CLIENTID`. One folder per client id, so two
    /// publishers with different ids never share a spool.
    /// - Throws: ``PublishConfigurationError/noSpoolDirectory`` when neither is usable.
    public func spoolDirectory(environment: [String: String]) throws(PublishConfigurationError) -> String {
        if let spoolDirectory { return spoolDirectory }
        guard let folder = Self.defaultSpoolFolder(named: clientID, environment: environment) else {
            throw .noSpoolDirectory
        }
        return folder
    }

    /// `$XDG_STATE_HOME/loctrack/spool/NAME` when `XDG_STATE_HOME` is an absolute path (the
    /// XDG spec ignores relative ones), else `$HOME/.local/state/loctrack/spool/NAME`: where
    /// every uplink's spool goes without `--spool` (a broker's by client id, a Traccar
    /// server's by device). nil when neither variable is usable.
    public static func defaultSpoolFolder(named name: String, environment: [String: String]) -> String? {
        if let stateHome = environment["XDG_STATE_HOME"], stateHome.hasPrefix("/") {
            return joined(stateHome, "loctrack/spool/" + name)
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return joined(home, ".local/state/loctrack/spool/" + name)
        }
        return nil
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

    private static func joined(_ directory: String, _ child: String) -> String {
        directory.hasSuffix("/") ? directory + child : directory + "/" + child
    }
}
