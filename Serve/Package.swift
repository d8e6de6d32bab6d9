// swift-tools-version: 6.1
// loctrack-serve: the HTTP server of `loctrack serve` (docs/serve.md), a package of its own so
// that the root package, and with it `loctrack stream` and `loctrack once`, never link
// SwiftNIO. Everything the server decides (routes, events, access, assets) is the root's
// LocTrackWeb, and its options (handed over by `loctrack serve`) are LocTrackServeOptions;
// this package is the glue between them and Hummingbird.
import Foundation
import PackageDescription

// The root package, by path. SwiftPM names a path dependency after the last component of
// its path, lowercased (its identity), and `.product(name:package:)` must use that name.
// The repository can be cloned into a folder of any name (CI's clone, a user's `git clone
// … my-tracker`), so the name is read off where this manifest is instead of written here.
let rootFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootPackage = rootFolder.lastPathComponent.lowercased()

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "loctrack-serve",
    products: [
        .executable(name: "loctrack-serve", targets: ["loctrack-serve"]),
    ],
    dependencies: [
        .package(path: ".."),
        // No traits: neither swift-configuration nor the parts that need all of Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        // Hummingbird's own dependencies, named because the glue imports their modules.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0", traits: []),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.14.0"),
    ],
    targets: [
        // The glue: Hummingbird's requests to LocTrackWeb's and back, the connection limits
        // and handlers, the server's start and stop. HummingbirdCore, not Hummingbird:
        // LocTrackWeb routes every request itself, so the router, request contexts and
        // middleware of Hummingbird's Application are not needed.
        .target(
            name: "LocTrackServe",
            dependencies: [
                .product(name: "LocTrackWeb", package: rootPackage),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // main.swift: the options, the live side and the server put together.
        .executableTarget(
            name: "loctrack-serve",
            dependencies: [
                "LocTrackServe",
                .product(name: "LocTrackWeb", package: rootPackage),
                .product(name: "LocTrackFormats", package: rootPackage),
                .product(name: "LocTrackProcess", package: rootPackage),
                .product(name: "LocTrackServeOptions", package: rootPackage),
                .product(name: "LocTrackCharts", package: rootPackage),
                .product(name: "LocTrack", package: rootPackage),
            ],
            swiftSettings: strictSettings
        ),
        // The glue's own tests, without sockets: the adapters and the channel handlers on
        // NIO's EmbeddedChannel (`swift test --package-path Serve`).
        .testTarget(
            name: "LocTrackServeTests",
            dependencies: [
                "LocTrackServe",
                .product(name: "LocTrackWeb", package: rootPackage),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
