import LocTrackSystem

/// Why the spool failed, on one line naming the file: the system call and its errno,
/// damage found on disk, a message it cannot store, or a spool already in use. Public:
/// the uplinks (LocTrackMQTT's `Publisher`, LocTrackTraccar's `TraccarUplink`) throw it
/// as it is, not as a string.
public struct SpoolError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A system call failed: `operation` in words ("sync", "read"), and its errno.
        case io(operation: String, errorNumber: Int32)
        /// The file holds something the spool never writes: messages would be lost if it
        /// went on, so it stops. `offset` is where in the file, when one place is to blame.
        case corrupt(offset: Int64?, reason: String)
        /// A message that cannot be stored (a QoS above 2, a topic over 65,535 bytes, a
        /// message over MQTT's 268,435,455 bytes); nothing of its batch was written.
        case invalidMessage(reason: String)
        /// Another process (or another `Spool` in this one) has the spool open.
        case inUse
    }

    /// The file or folder concerned.
    public var path: String
    public var kind: Kind

    package init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    package static func io(_ path: String, _ operation: String, _ errorNumber: Int32) -> SpoolError {
        SpoolError(path: path, kind: .io(operation: operation, errorNumber: errorNumber))
    }

    package static func corrupt(_ path: String, at offset: Int64?, _ reason: String) -> SpoolError {
        SpoolError(path: path, kind: .corrupt(offset: offset, reason: reason))
    }

    public var description: String {
        switch kind {
        case let .io(operation, errorNumber):
            return "spool: cannot \(operation) \(path): \(Errno(code: errorNumber))"
        case let .corrupt(offset?, reason):
            return "spool: \(path) is damaged at byte \(offset): \(reason)"
        case let .corrupt(nil, reason):
            return "spool: \(path) is damaged: \(reason)"
        case let .invalidMessage(reason):
            return "spool: cannot store a message in \(path): \(reason)"
        case .inUse:
            return "spool: \(path) is in use by another loctrack"
        }
    }
}

/// Runs a system call wrapper, turning its `Errno` into ``SpoolError/Kind/io(operation:errorNumber:)`` for `path`.
func io<Value: ~Copyable>(_ path: String, _ operation: String, _ body: () throws(Errno) -> Value) throws(SpoolError) -> Value {
    do {
        return try body()
    } catch {
        throw .io(path, operation, error.code)
    }
}
