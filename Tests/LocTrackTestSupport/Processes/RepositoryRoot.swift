package import Foundation

/// The repository's root directory (this file is Tests/LocTrackTestSupport/Processes/…).
package let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
