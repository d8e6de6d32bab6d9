import Foundation
import FoundationXML
import LocTrackTestSupport
@testable import LocTrackFormats
@testable import LocTrackSinks

/// What a recorded track file holds, checked the way a reader of it would.
enum TrackFiles {
    /// The file's text, or nil when it does not exist.
    static func text(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The names of the files in `folder`, sorted (empty when there is none).
    static func list(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// Whether `text` is a well-formed XML document (libxml2 through XMLParser).
    static func isWellFormedXML(_ text: String) -> Bool {
        XMLParser(data: Data(text.utf8)).parse()
    }

    /// How often `needle` occurs in `text`.
    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// The `<trkpt …>…</trkpt>` lines of a GPX text, in order.
    static func points(_ gpx: String) -> [String] {
        gpx.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("<trkpt ") }
    }

    /// A folder of its own under the system's temporary folder.
    static func temporaryFolder(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "loctrack-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs `/bin/mount` or `/bin/umount` with `arguments`; true when it exited 0 within
    /// 10 s (past that it is killed: a hung mount must not hang the tests).
    @discardableResult
    static func mountCommand(_ tool: String, _ arguments: [String]) -> Bool {
        guard let process = try? ChildProcess(
            executable: "/bin/\(tool)", arguments: [tool] + arguments, stdin: .null, stdout: .null, stderr: .null)
        else { return false }
        return process.waitForExit(within: .seconds(10)) == .exited(0)
    }

    /// Whether this process can mount a small tmpfs (a full disk, a read-only folder): it
    /// needs root with CAP_SYS_ADMIN, which a container's root may lack. Tried once.
    static let canMount: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount"),
              let folder = try? temporaryFolder("probe") else { return false }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard mountCommand("mount", ["-t", "tmpfs", "-o", "size=4k", "tmpfs", folder]) else { return false }
        mountCommand("umount", [folder])
        return true
    }()
}
