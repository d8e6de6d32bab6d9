import LocTrackSystem

/// This machine's name, for the defaults that must stay the same across restarts
/// (the client id, and with it the persistent session and the spool's folder).
public enum HostName {
    /// `gethostname(2)` up to its first dot (`pi.example.org` is `pi`); `localhost` when it
    /// fails (a default name, so a failure has a fallback rather than a message).
    public static func current() -> String {
        do throws(Errno) {
            return short(try hostName())
        } catch {
            return short("")
        }
    }

    /// `name` up to its first dot; `localhost` for an empty name.
    public static func short(_ name: String) -> String {
        let short = name.prefix { $0 != "." }
        return short.isEmpty ? "localhost" : String(short)
    }
}
