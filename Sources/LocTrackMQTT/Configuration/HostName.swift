import Glibc

/// This machine's name, for the defaults that must stay the same across restarts
/// (the client id, and with it the persistent session and the spool's folder).
public enum HostName {
    /// `gethostname(2)` up to its first dot (`pi.example.org` is `pi`); `localhost` when it fails.
    public static func current() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = buffer.withUnsafeMutableBufferPointer { buffer -> String? in
            guard gethostname(buffer.baseAddress!, buffer.count - 1) == 0 else { return nil }
            return String(cString: buffer.baseAddress!)
        }
        return short(name ?? "")
    }

    /// `name` up to its first dot; `localhost` for an empty name.
    static func short(_ name: String) -> String {
        let short = name.prefix { $0 != "." }
        return short.isEmpty ? "localhost" : String(short)
    }
}
