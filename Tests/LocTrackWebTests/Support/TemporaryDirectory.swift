import Glibc
import LocTrackSystem
import Testing

/// A fresh directory under /tmp for one test, removed with everything in it afterwards.
struct TemporaryDirectory: ~Copyable {
    let path: String

    init() throws {
        var template = Array("/tmp/loctrack-web-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: try #require(made))
    }

    deinit {
        Self.remove(path)
    }

    /// Writes `text` as the file `name` in the directory (its folders created), with the
    /// permissions `mode` (set after the umask had its say).
    /// - Returns: the file's path.
    @discardableResult
    func write(_ text: String, to name: String, mode: UInt32 = 0o644) throws -> String {
        let file = path + "/" + name
        if let slash = file.utf8.lastIndex(of: UInt8(ascii: "/")) {
            try makeDirectories(String(file[..<slash]), mode: 0o755)
        }
        let opened = try openFile(file, [.writeOnly, .create], mode: 0o644)
        try writeAll(opened.rawValue, Array(text.utf8), at: 0)
        try #require(chmod(file, mode_t(mode)) == 0)
        return file
    }

    private static func remove(_ path: String) {
        if let names = try? listDirectory(path) {
            for name in names { remove(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
