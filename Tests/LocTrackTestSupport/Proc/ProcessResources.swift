import Foundation
import Glibc

/// What this process holds, from /proc/self: threads, descriptors, anonymous memory,
/// and TCP connections. For lifetime tests: take one before, one after, compare.
///
/// The counts are process-wide: they mean something only while no other test runs in
/// the process, so the tests that take them run in a process of their own (``OwnProcess``).
///
/// libdispatch's worker threads (Swift's cooperative pool and its overcommit
/// threads) are counted apart: its pool starts and retires them on its own
/// schedule (an idle worker exits after a few seconds, measured here mid-test), so
/// ``matches(_:)`` compares every other thread.
package struct ProcessResources: CustomStringConvertible {
    /// Entries of /proc/self/task.
    package let threads: Int
    /// Of those, libdispatch's workers (named after their queues: `…-qos`, `…-qos.overcommit`).
    package let dispatchWorkers: Int
    /// Threads that loctrack started: its readers (`loctrack-gpsd`) and connectors (`loctrack-connect`).
    package let loctrackThreads: Int
    /// Entries of /proc/self/fd (the directory's own descriptor included, every time).
    package let descriptors: Int

    package static var now: ProcessResources {
        let names = threadNames
        return ProcessResources(
            threads: names.count,
            dispatchWorkers: names.filter(isDispatchWorker).count,
            loctrackThreads: names.filter { $0.hasPrefix("loctrack-") }.count,
            descriptors: (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1)
    }

    /// How many reader threads (`loctrack-gpsd`) run now.
    package static var readerThreads: Int { threadNames.filter { $0 == "loctrack-gpsd" }.count }

    /// Threads other than libdispatch's workers.
    package var otherThreads: Int { threads - dispatchWorkers }

    /// The same threads (apart from libdispatch's workers), loctrack threads and descriptors.
    package func matches(_ other: ProcessResources) -> Bool {
        otherThreads == other.otherThreads && loctrackThreads == other.loctrackThreads && descriptors == other.descriptors
    }

    package var description: String {
        "\(threads) threads (\(dispatchWorkers) libdispatch workers, \(loctrackThreads) loctrack-*), \(descriptors) descriptors"
    }

    package static func isDispatchWorker(_ name: String) -> Bool {
        name.contains("qos") || name.hasPrefix("com.apple") || name.hasPrefix("dispatch")
    }

    /// Waits up to `timeout` for the counts to match `baseline` (readers and connectors
    /// end asynchronously, within milliseconds of their last consumer), and returns the
    /// last reading: one that matches `baseline` unless they did not come back in time.
    package static func waitToReturn(to baseline: ProcessResources, timeout: Duration = .seconds(2)) async -> ProcessResources {
        let deadline = ContinuousClock.now + timeout
        var current = now
        while !current.matches(baseline) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            current = now
        }
        return current
    }

    /// The reading once no loctrack thread runs (waiting up to `timeout`): a baseline.
    package static func settled(timeout: Duration = .seconds(2)) async -> ProcessResources {
        let deadline = ContinuousClock.now + timeout
        while now.loctrackThreads > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return now
    }

    /// The name (`comm`) of every thread of this process.
    package static var threadNames: [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.map { task in
            ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// What each descriptor of this process refers to (`socket:[…]`, `pipe:[…]`, paths).
    package static var descriptorTargets: [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
    }

    /// `RssAnon` from /proc/self/status, in kB: the anonymous memory resident (heap, stacks).
    ///
    /// - Parameter trimmingFirst: `malloc_trim(0)` first, which hands the free memory
    ///   of every malloc arena back to the kernel: what remains is what is allocated
    ///   (and the pages it fragments), not what malloc keeps for later.
    package static func anonymousMemoryKB(trimmingFirst: Bool = false) -> Int {
        if trimmingFirst { _ = mallocTrim(0) }
        let status = procText("/proc/self/status")
        for line in status.split(separator: "\n") where line.hasPrefix("RssAnon:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    /// TCP connections on `port` held by process `pid` (this one by default), from
    /// /proc/net/tcp and tcp6: the entries whose local (`side: .local`) or remote port
    /// is `port`, in one of `states` (hex, as the kernel writes them: 01 ESTABLISHED,
    /// 08 CLOSE_WAIT, 0A LISTEN), whose socket inode is one of the process's descriptors.
    package static func tcpConnections(of pid: String = "self", port: Int, side: Side, states: Set<String>) -> Int {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let sockets = Set(entries.compactMap { entry -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)"),
                  target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst("socket:[".count).dropLast())
        })
        var count = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let text = procText(table)
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9 else { continue }
                let address = fields[side == .local ? 1 : 2]
                guard let colon = address.lastIndex(of: ":"), Int(address[address.index(after: colon)...], radix: 16) == port,
                      states.contains(String(fields[3])), sockets.contains(String(fields[9]))
                else { continue }
                count += 1
            }
        }
        return count
    }

    package enum Side { case local, remote }

    /// A /proc file, read to its end. Foundation's `String(contentsOfFile:)` reads such a
    /// file (whose size /proc reports as 0) only as far as its first 4 KiB: /proc/net/tcp
    /// with many sockets (as after the broker tests, their TIME_WAITs) lost its later lines.
    package static func procText(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// This process's ESTABLISHED connections to `port`.
    package static func establishedConnections(toPort port: Int) -> Int {
        tcpConnections(port: port, side: .remote, states: ["01"])
    }
}

// glibc's malloc_trim is not in Swift's Glibc module.
private typealias MallocTrim = @convention(c) (Int) -> Int32
private let mallocTrim: MallocTrim = unsafeBitCast(dlsym(nil, "malloc_trim")!, to: MallocTrim.self)
