import LocTrack
import LocTrackFormats

/// gpsd's and the receiver's state as `/api/status` shows it (docs/http.md), from a
/// session's statuses and fixes.
struct ReceiverStatus: Sendable, Equatable {
    enum Connection: String, Sendable {
        case connecting, connected, unreachable
    }

    enum Receiver: String, Sendable {
        case waiting, fix
        case noFix = "no fix"
        case lost
    }

    var gpsd = Connection.connecting
    /// gpsd's version while connected.
    var release: String?
    /// The device of the latest fix, or of the device gpsd lost.
    var device: String?
    var receiver = Receiver.waiting
    /// The latest status in words, as `stream --verbose` says it.
    var message = "connecting to gpsd"

    /// Takes a status; skipped reports change nothing (they are no state).
    mutating func apply(_ status: GPSDStatus) {
        switch status {
        case .connected(_, let release):
            gpsd = .connected
            self.release = release
        case .waiting:
            gpsd = .unreachable
            release = nil
        case .deviceLost(let path):
            receiver = .lost
            device = path
        case .fixLost(let device):
            receiver = .noFix
            if let device { self.device = device }
        case .noFixes:
            receiver = .noFix
        case .fixesResumed:
            receiver = .fix
        case .skippedReport:
            return
        }
        message = status.description
    }

    /// Takes a fix: the receiver has one, from `device`.
    mutating func applyFix(device: String?) {
        receiver = .fix
        if let device { self.device = device }
    }

    /// `{"gpsd":…,"release":…,"device":…,"receiver":…,"message":…,"lastFix":…,"lastFixAge":…}`;
    /// absent values are left out. `lastFixAge` only in answers to a request: an event
    /// that carried it would be stale on arrival.
    func json(lastFix: Timestamp?, lastFixAge: Double? = nil) -> String {
        var bytes = OutputBytes(reservingCapacity: 256)
        bytes.append("{\"gpsd\":\"")
        bytes.append(gpsd.rawValue)
        bytes.append(byte: 0x22)
        if let release {
            bytes.append(",\"release\":\"")
            bytes.appendJSONEscaped(release)
            bytes.append(byte: 0x22)
        }
        if let device {
            bytes.append(",\"device\":\"")
            bytes.appendJSONEscaped(device)
            bytes.append(byte: 0x22)
        }
        bytes.append(",\"receiver\":\"")
        bytes.append(receiver.rawValue)
        bytes.append("\",\"message\":\"")
        bytes.appendJSONEscaped(message)
        bytes.append(byte: 0x22)
        if let lastFix {
            bytes.append(",\"lastFix\":\"")
            bytes.append(lastFix)
            bytes.append(byte: 0x22)
        }
        if let lastFixAge {
            bytes.append(",\"lastFixAge\":")
            bytes.appendFixed(max(0, lastFixAge), decimals: 3)
        }
        bytes.append(byte: 0x7D)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }
}
