import Foundation

/// A fresh folder under the system's temporary folder, removed when the test is done.
struct TemporaryFolder: ~Copyable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("loctrack-web-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `contents` to `name` (folders made as needed) with `permissions`; returns its path.
    @discardableResult
    func write(_ name: String, _ contents: String, permissions: Int = 0o600) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: file)
        return file
    }
}

func removeFile(_ path: String) throws {
    try FileManager.default.removeItem(atPath: path)
}
