import Foundation

/// Waiting for clients (loctrack processes, library sessions) to watch gpsd.
extension GPSFake {
    /// Waits until `count` clients watch and gpsd has opened and probed `devices`
    /// (all by default): what is fed from now on reaches those clients.
    ///
    /// gpsd opens the device (`SER: opening … at '/dev/pts/N'` in its log), probes it for
    /// about a second, then tells its watchers it is activated (``activatedDevices(in:)``);
    /// data written to the pty before that is thrown away. Normally a client's `?WATCH` triggers the open;
    /// a client that watched before gpsfake added the device (a reconnecting one)
    /// triggers it when the device is added.
    package func waitForWatchers(_ count: Int = 1, devices required: [String]? = nil, timeout: Duration = .seconds(20)) async throws {
        let required = Set(required ?? devices)
        try await waitUntil(timeout: timeout, "\(count) watcher(s) and \(required.sorted()) activated; gpsd log:\n\(logTail)") {
            try checkAlive()
            let log = gpsdLog
            return Self.watchingClients(in: log).count >= count && activated(required, log: log)
        }
    }

    /// The clients that sent `?WATCH={"enable":true…}`.
    package static func watchingClients(in log: [String]) -> Set<Int> {
        Set(log.compactMap { line -> Int? in
            guard let arrow = line.range(of: "<= client("), line.contains("?WATCH="), line.contains("\"enable\":true"),
                  let close = line[arrow.upperBound...].firstIndex(of: ")")
            else { return nil }
            return Int(line[arrow.upperBound..<close])
        })
    }

    /// The devices gpsd has opened and finished probing, as gpsd told its clients: a device
    /// with an `activated` time in a `DEVICES` report (gpsd's answer to `?WATCH`, sent once it
    /// has opened and probed the devices) or in a `DEVICE` report (sent to the watchers when a
    /// device added later is activated). gpsd 3.22 also logs `activated GPS` at `-D 3`, which
    /// 3.25 no longer does; the reports are the same in both.
    package static func activatedDevices(in log: [String]) -> Set<String> {
        var activated = Set<String>()
        for (_, report) in reports(in: log) {
            let devices: [[String: Any]] = switch report["class"] as? String {
            case "DEVICES": report["devices"] as? [[String: Any]] ?? []
            case "DEVICE": [report]
            default: []
            }
            for device in devices {
                if let path = device["path"] as? String, device["activated"] is String { activated.insert(path) }
            }
        }
        return activated
    }

    /// Waits until each of `processes` watches gpsd and gpsd has opened the devices, like
    /// ``waitForWatchers(_:devices:timeout:)``, but fails at once, with its stderr, when one
    /// of them ends first (a refused option, a refused login).
    package func waitForWatchers(_ processes: [ChildProcess], timeout: Duration = .seconds(20)) async throws {
        try await waitUntil(timeout: timeout, "\(processes.count) watcher(s); gpsd log:\n\(logTail)") {
            for process in processes {
                if let ended = process.pollTermination() {
                    throw HarnessError("loctrack ended (\(ended)) before watching gpsd; stderr:\n\(process.stderr?.text ?? "")")
                }
            }
            return devicesOpen(forWatchers: processes.count)
        }
    }

    /// Waits until `process` watches gpsd (and gpsd has opened the devices) and then feeds
    /// the whole log, or until `process` ended first (e.g. it gave up on the broker before
    /// it asked gpsd for anything): returns whether it fed.
    @discardableResult
    package func feedAllOnceWatched(by process: ChildProcess, timeout: Duration = .seconds(20)) async throws -> Bool {
        try await waitUntil(timeout: timeout, "loctrack to watch gpsd or end; gpsd log:\n\(logTail)") {
            process.pollTermination() != nil || devicesOpen(forWatchers: 1)
        }
        guard process.pollTermination() == nil else { return false }
        feedAll()
        return true
    }

    /// Whether at least `count` clients watch and gpsd has opened and probed every device.
    private func devicesOpen(forWatchers count: Int) -> Bool {
        let log = gpsdLog
        return Self.watchingClients(in: log).count >= count && activated(Set(devices), log: log)
    }

    /// Whether gpsd has opened and probed each of `required`: it told its watchers so
    /// (``activatedDevices(in:)``), or, for a gpsd that reads without clients (`-n`: it
    /// activates a device as it is added, and tells nobody; 3.22 logs `activated GPS`, 3.25
    /// nothing at `-D 3`), it holds the device open and then answers on its control socket.
    /// gpsd opens and probes a device in one go, serving nothing meanwhile, so an answer after
    /// the device is seen open comes after its probing.
    private func activated(_ required: Set<String>, log: [String]) -> Bool {
        let untold = required.subtracting(Self.activatedDevices(in: log))
        guard let device = untold.first else { return true }
        guard readsWithoutClients else { return false }
        let folder = "/proc/\(gpsdPID)/fd"
        let open = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)")
        })
        // `+device` again: gpsd answers that it has it (ERROR) and changes nothing.
        return untold.isSubset(of: open) && Self.controlCommand("+\(device)\r\n\0", socket: controlSocket) != nil
    }
}


extension GPSFake {
    /// Waits until gpsd has had `number` watch requests in all, failing at once with its
    /// stderr when `process` ends first. For a client restarted again and again: gpsd
    /// reuses a closed client's number, so requests are counted, not clients.
    package func waitForWatchRequests(_ number: Int, by process: ChildProcess, timeout: Duration = .seconds(20)) async throws {
        try await waitUntil(timeout: timeout, "watch request \(number); gpsd log:\n\(logTail)") {
            if let ended = process.pollTermination() {
                throw HarnessError("loctrack ended (\(ended)) before watching gpsd; stderr:\n\(process.stderr?.text ?? "")")
            }
            return gpsdLog.filter { $0.contains("<= client(") && $0.contains("?WATCH=") && $0.contains("\"enable\":true") }.count >= number
        }
    }
}

extension GPSFake {
    /// How many TPV reports gpsd has sent to its clients so far, all told.
    package var tpvReportsSent: Int {
        gpsdLog.filter { $0.contains("=> client(") && $0.contains(#""class":"TPV""#) }.count
    }
}
