// swift-tools-version: 6.0
// The Swift port of Benchmarks/c-client/gpsclient.c: libgps called from Swift the way a
// Swift user writes it by hand. A package of its own, so that it is no product of loctrack's
// and `swift build` / `make test` never build it; `make bench-build` does.
import PackageDescription

let package = Package(
    name: "gpsclient-swift",
    targets: [
        // libgps (Debian's libgps-dev) as a Swift module: Sources/CLibGPS/module.modulemap.
        .systemLibrary(name: "CLibGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .executableTarget(
            name: "gpsclient-swift", dependencies: ["CLibGPS"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
