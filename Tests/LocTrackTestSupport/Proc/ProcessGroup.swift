import Foundation
package import Glibc

/// The processes of a process group, from /proc.
package enum ProcessGroup {
    /// The processes whose process group is `pgid`, from `/proc/PID/stat`.
    package static func members(_ pgid: pid_t) -> [(pid: pid_t, command: String, state: Character)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            let command = String(stat[stat.index(after: open)..<close])
            // After "comm": state ppid pgrp …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let group = pid_t(fields[2]), group == pgid, let state = fields[0].first else { return nil }
            return (pid, command, state)
        }
    }
}
