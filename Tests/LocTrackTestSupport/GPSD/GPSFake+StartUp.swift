import Foundation
import Glibc

/// Getting gpsfake's devices into gpsd, and waiting for gpsd to listen.
///
/// gpsfake adds each pty it makes through gpsd's control socket (`-F`) as soon as the socket
/// file exists (`DaemonInstance.wait_ready` in gps/fake.py). gpsd binds that socket before it
/// listens on it, and gpsfake's `add_device` gives up silently when its connect is refused:
/// a gpsd descheduled between its `bind` and `listen` (two cores, tests in parallel: about one
/// start in twenty on an idle machine) got no device, and gpsfake then waited on its stdin for
/// ever. So the harness adds the devices itself, once the control socket accepts connections:
/// gpsd answers `OK` (3.25: `{"class":"ACK"}`) for a new device and `ERROR` (3.25:
/// `{"class":"ERROR"}`) for one gpsfake already added ("already active" in its log), so
/// whichever add comes first, each device is added exactly once.
extension GPSFake {
    /// Adds gpsfake's pty for each of `logs` to gpsd, in the logs' order, and returns them once
    /// gpsd's log shows each one stashed.
    package static func addDevices(logs: [String], process: ChildProcess, controlSocket: String, logFile: String?) async throws -> [String] {
        var devices: [String?] = []
        try await waitUntil(timeout: .seconds(30), "gpsfake to make a pty for each of \(logs); \(diagnostics(process))") {
            try ensureRunning(process, logFile)
            devices = ptys(of: process.pid, for: logs)
            return !devices.contains(nil)
        }
        let made = devices.compactMap { $0 }
        for device in made {
            try await add(device, controlSocket: controlSocket, process: process)
        }
        try await waitUntil(timeout: .seconds(30), "gpsd to stash \(made); stderr:\n\(logText(process, logFile))") {
            try ensureRunning(process, logFile)
            let log = logText(process, logFile)
            return made.allSatisfy { log.contains("adding \($0)") }
        }
        return made
    }

    /// For each log, the pty gpsfake feeds it through (nil until it is made): gpsfake opens a
    /// log (and keeps it open), then makes its pty (`FakePTY`: a /dev/ptmx master and the
    /// /dev/pts slave it keeps open), so in descriptor order each log's pty is the first /dev/pts
    /// after the log. gpsfake holds another pty of its own before the logs, which is no device.
    static func ptys(of pid: pid_t, for logs: [String]) -> [String?] {
        let folder = "/proc/\(pid)/fd"
        let descriptors = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap(Int.init).sorted()
        let targets = descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)") }
        return logs.map { log in
            let resolved = URL(fileURLWithPath: log).resolvingSymlinksInPath().path
            guard let opened = targets.firstIndex(where: { $0 == log || $0 == resolved }) else { return nil }
            // Where /dev/ptmx is a link to pts/ptmx (containers, the trixie root), the master reads /dev/pts/ptmx.
            return targets[opened...].first { $0.hasPrefix("/dev/pts/") && $0 != "/dev/pts/ptmx" }
        }
    }

    /// `+DEVICE` on gpsd's control socket, retried while the socket is not there or refuses.
    private static func add(_ device: String, controlSocket: String, process: ChildProcess) async throws {
        var reply = ""
        try await waitUntil(timeout: .seconds(30), "gpsd's control socket \(controlSocket) to take \(device) (last reply: \(reply)); \(diagnostics(process))") {
            try ensureRunning(process, nil)
            guard let answer = controlCommand("+\(device)\r\n\0", socket: controlSocket) else { return false }
            reply = answer
            return true
        }
        // gpsd 3.22 answers `OK` or `ERROR`, 3.25 `{"class":"ACK"}` or `{"class":"ERROR"}`.
        guard ["OK", "ERROR", #"{"class":"ACK"}"#, #"{"class":"ERROR""#].contains(where: reply.hasPrefix) else {
            throw HarnessError("gpsd's control socket answered \(reply.debugDescription) to +\(device)")
        }
    }

    /// One command on a Unix socket and the first reply; nil when the socket refuses or is not there yet.
    static func controlCommand(_ command: String, socket path: String) -> String? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8)
            bytes[path.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        guard connected else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(command.utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "(no reply)"
    }

    private static func ensureRunning(_ process: ChildProcess, _ logFile: String?) throws {
        if let ended = process.pollTermination() {
            throw HarnessError("gpsfake ended (\(ended)) while starting; stderr:\n\(logText(process, logFile))")
        }
    }

    /// The processes of gpsfake's group and where they wait, for failure messages.
    package static func diagnostics(_ process: ChildProcess) -> String {
        let members = ProcessGroup.members(process.pid).map { member in
            let channel = (try? String(contentsOfFile: "/proc/\(member.pid)/wchan", encoding: .utf8)) ?? "?"
            return "\(member.pid) \(member.command) \(member.state) wchan=\(channel)"
        }
        return "process group \(process.pid): [\(members.joined(separator: "; "))], stderr pipe ended: \(process.stderr?.ended ?? true)"
    }

    /// Waits until gpsd listens on `port`, read from /proc (state LISTEN), not by connecting:
    /// a probe would be a client gpsd holds until it reads the probe's end, and tests count them.
    static func waitForListener(port: Int, gpsd: pid_t, process: ChildProcess) async throws {
        try await waitUntil(timeout: .seconds(30), "gpsd to listen on \(port); \(diagnostics(process))") {
            try ensureRunning(process, nil)
            return ProcessResources.tcpConnections(of: String(gpsd), port: port, side: .local, states: ["0A"]) > 0
        }
    }
}
