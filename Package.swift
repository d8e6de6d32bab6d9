// swift-tools-version: 6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "loctrack",
    products: [
        .library(name: "LocTrack", targets: ["LocTrack"]),
        .library(name: "LocTrackMonitor", targets: ["LocTrackMonitor"]),
        .library(name: "LocTrackMQTT", targets: ["LocTrackMQTT"]),
        // Positions to a Traccar server over HTTP (OsmAnd), through the spool; libcurl is loaded
        // only when an uplink starts.
        .library(name: "LocTrackTraccar", targets: ["LocTrackTraccar"]),
        // Distance that is right: the odometer (nothing while parked) and trips with
        // Traccar's rules, as pure state machines over positions. No I/O but its state file.
        .library(name: "LocTrackDistance", targets: ["LocTrackDistance"]),
        // What loctrack writes: the fix formats, the monitor's event lines, track-file names.
        // Values in, bytes out; no I/O, no client library.
        .library(name: "LocTrackFormats", targets: ["LocTrackFormats"]),
        // What a loctrack program is as a process: exit codes, the version, the handoffs from
        // `loctrack` to the programs it becomes, where those programs are installed. A product
        // because `loctrack-serve` (the Serve/ package) exits with these codes.
        .library(name: "LocTrackProcess", targets: ["LocTrackProcess"]),
        // Where loctrack's events go: one `Sink` protocol, one fan-out, and the sinks (stdout,
        // track files, MQTT, Home Assistant), each with its own encoder, filter and buffer.
        .library(name: "LocTrackSinks", targets: ["LocTrackSinks"]),
        // What `loctrack serve` does, without the HTTP server: the routes, the event ring,
        // the live state, access and assets. The server itself (Hummingbird) is the package
        // in Serve/, so that `stream` and `once` never link it (docs/serve.md).
        .library(name: "LocTrackWeb", targets: ["LocTrackWeb"]),
        // Offline charts (MBTiles through SQLite) for `loctrack serve --tiles-file`.
        .library(name: "LocTrackCharts", targets: ["LocTrackCharts"]),
        // What `loctrack serve` was asked for, in the one form `loctrack` hands `loctrack-serve`.
        .library(name: "LocTrackServeOptions", targets: ["LocTrackServeOptions"]),
        .executable(name: "loctrack", targets: ["loctrack"]),
        // What `loctrack trips` runs: reads track files (GPX through libxml2) and prints their
        // trips, so that `loctrack` itself never loads libxml2.
        .executable(name: "loctrack-trips", targets: ["loctrack-trips"]),
    ],
    targets: [
        // libgps from Debian's libgps-dev, through a module map and a commented shim.
        .systemLibrary(
            name: "CGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        // libmosquitto from Debian's libmosquitto-dev, the same way.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // libxml2 from Debian's libxml2-dev, the same way, for reading GPX. Only
        // Sources/LocTrackTrackFiles/GPX imports it, and only `loctrack-trips` links it.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // libcurl from Debian's libcurl4-openssl-dev, for the Traccar uplink: headers only (no
        // `link`, no pkgConfig), as libcurl is loaded with dlopen when an uplink starts, so that a
        // `loctrack` without one pays nothing for it (docs/performance.md, "libcurl").
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // SQLite from Debian's libsqlite3-dev, for reading MBTiles charts in `loctrack serve`.
        // Only Sources/LocTrackCharts/SQLite imports it, and only `loctrack-serve` links it.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // glibc's GNU extensions (thread names, malloc arenas), through a commented shim.
        // Only LocTrackSystem imports it.
        .systemLibrary(name: "CGlibcExtras"),
        // The system layer: every libc call loctrack makes, as thin `package` wrappers
        // (descriptors that close themselves, files and folders, flock, pipes, poll,
        // threads, signals, the track writer's process, clocks, the environment and the one
        // resolution of loctrack's state folder, math),
        // with EINTR retried in one helper and failures thrown as `Errno`. No other
        // folder imports Glibc or CGlibcExtras.
        .target(name: "LocTrackSystem", dependencies: ["CGlibcExtras"], swiftSettings: strictSettings),
        // The process layer, just above the system one: exit codes (sysexits.h), the version,
        // the handoffs `loctrack` gives `loctrack-trips` and `loctrack-serve` when it becomes them
        // (exec), and the install layout where it finds them. Small on purpose: every target
        // that names an exit code depends on it, so it depends on LocTrackSystem alone.
        .target(name: "LocTrackProcess", dependencies: ["LocTrackSystem"], swiftSettings: strictSettings),
        // The library: reader thread, epochs, serial processor, AsyncSequence of events.
        // Only Sources/LocTrack/GPSD imports CGPS.
        .target(name: "LocTrack", dependencies: ["CGPS", "LocTrackSystem"], swiftSettings: strictSettings),
        // Persistent geofences decided from a session's fixes (CoreLocation's CLMonitor, for
        // gpsd): the engine, the state file with its outbox, GeoJSON regions, and the exit code
        // each of its errors means (LocTrackProcess's codes).
        .target(
            name: "LocTrackMonitor", dependencies: ["LocTrack", "LocTrackSystem", "LocTrackProcess"], swiftSettings: strictSettings
        ),
        // The odometer and trips: pure state machines over fixes or track-file points, and the
        // odometer's state file (written atomically, like the monitor's).
        .target(name: "LocTrackDistance", dependencies: ["LocTrack", "LocTrackSystem"], swiftSettings: strictSettings),
        // The crash-safe spool on disk in front of every uplink (MQTT, Traccar): a durable FIFO
        // of messages that leave only once the server has them (docs/spool.md). A target of its
        // own, so that the Traccar uplink uses it without linking libmosquitto's target.
        .target(name: "LocTrackSpool", dependencies: ["LocTrackSystem"], swiftSettings: strictSettings),
        // Publishing to an MQTT broker: the publisher thread over the spool, OwnTracks payloads.
        // A library of its own, so that programs that only read fixes need no libmosquitto.
        // Only Sources/LocTrackMQTT/Broker imports CMosquitto. Errno, threads, files and poll
        // come from LocTrackSystem, not through the GPS core.
        .target(
            name: "LocTrackMQTT", dependencies: ["LocTrack", "LocTrackSystem", "LocTrackSpool", "CMosquitto"],
            swiftSettings: strictSettings
        ),
        // Sending positions to a Traccar server (its OsmAnd protocol, over HTTP): the URL, the
        // query a fix becomes, which fixes are sent, and the uplink thread that drains the spool
        // oldest first through libcurl. Only Sources/LocTrackTraccar/Curl imports CCurl.
        .target(
            name: "LocTrackTraccar",
            dependencies: ["LocTrack", "LocTrackSystem", "LocTrackSpool", "LocTrackDistance", "LocTrackFormats", "CCurl"],
            swiftSettings: strictSettings
        ),
        // The formats: JSON lines, text, CSV, GPX, GeoJSON, OwnTracks, NMEA 0183, the monitor's
        // event lines, which statuses break a track, track-file names, trips' lines. Values in,
        // bytes out. LocTrackMonitor only for the type of its events, LocTrackProcess only for
        // `TripsFormat` (which the trips handoff carries).
        .target(
            name: "LocTrackFormats", dependencies: ["LocTrack", "LocTrackMonitor", "LocTrackDistance", "LocTrackSystem", "LocTrackProcess"],
            swiftSettings: strictSettings
        ),
        // The sinks: the `Sink` protocol and its fan-out (`SinkFanOut`), stdout, the track
        // writer (a process of loctrack's own), MQTT and Home Assistant through the spool.
        .target(
            name: "LocTrackSinks",
            dependencies: [
                "LocTrack", "LocTrackSystem", "LocTrackProcess", "LocTrackFormats", "LocTrackMonitor", "LocTrackDistance",
                "LocTrackMQTT", "LocTrackTraccar",
            ],
            swiftSettings: strictSettings
        ),
        // The command line: argument parsing, help and completions, and the commands, each
        // wiring a source (a GPSDSession, a monitor) to a set of sinks.
        .target(
            name: "LocTrackCLI",
            dependencies: [
                "LocTrack", "LocTrackSystem", "LocTrackProcess", "LocTrackMonitor", "LocTrackDistance", "LocTrackMQTT",
                "LocTrackTraccar", "LocTrackFormats", "LocTrackSinks", "LocTrackServeOptions",
            ],
            swiftSettings: strictSettings
        ),
        // `loctrack serve`'s options (ServeOptions, ListenAddress, TileSource) and their handoff:
        // a target of their own, so that `loctrack`, which parses them, links neither the web
        // routes nor what they link (the regex engine), and `loctrack-serve` no command line.
        .target(
            name: "LocTrackServeOptions",
            dependencies: ["LocTrack", "LocTrackFormats", "LocTrackSystem", "LocTrackProcess"],
            swiftSettings: strictSettings
        ),
        // `loctrack serve` without its server: pure request -> response routes, server-sent
        // events with a replay ring, the live fix/sky/status/distance/regions/track, the token
        // check and the fixed list of assets. Serve/ wraps it in Hummingbird. No NIO here.
        // Offline charts for `loctrack serve --tiles-file`: MBTiles files checked when opened,
        // tile paths, and tiles read on reader threads of their own (off the event loop) with
        // a bounded cache of hot ones. SQLite through CSQLite; no NIO, no web.
        .target(name: "LocTrackCharts", dependencies: ["LocTrackSystem", "CSQLite"], swiftSettings: strictSettings),
        .target(
            name: "LocTrackWeb",
            dependencies: [
                "LocTrack", "LocTrackSystem", "LocTrackProcess", "LocTrackMonitor", "LocTrackDistance", "LocTrackFormats",
                "LocTrackServeOptions", "LocTrackCharts", "LocTrackRecordedLines",
            ],
            swiftSettings: strictSettings
        ),
        // The one reader of recorded JSON lines (TPV, GeoJSON and OwnTracks lines) into
        // LocTrackDistance's TrackPoint, by one rule: what `loctrack trips` and `serve --track`
        // both read them with. A target of its own, without libxml2, so that LocTrackWeb links it.
        .target(
            name: "LocTrackRecordedLines", dependencies: ["LocTrack", "LocTrackSystem", "LocTrackDistance"],
            swiftSettings: strictSettings
        ),
        // Reading track files back (loctrack's JSON lines, CSV and GPX, and GPX from other
        // programs) into one timeline, and the trips in it through LocTrackDistance's engines:
        // what `loctrack-trips` does, as a library its tests call. GPX through libxml2.
        .target(
            name: "LocTrackTrackFiles",
            dependencies: [
                "LocTrack", "LocTrackSystem", "LocTrackProcess", "LocTrackDistance", "LocTrackFormats", "LocTrackRecordedLines",
                "CLibXML2",
            ],
            swiftSettings: strictSettings
        ),
        // `loctrack trips`, which `loctrack` becomes (exec) once it has parsed the words: a
        // program of its own so that `stream` never loads libxml2 (docs/trips.md).
        .executableTarget(
            name: "loctrack-trips",
            dependencies: ["LocTrackTrackFiles", "LocTrackProcess", "LocTrackSystem"],
            swiftSettings: strictSettings
        ),
        // main.swift: prepare the process, run, exit (exitProcess is LocTrackSystem's, the code LocTrackProcess's).
        .executableTarget(name: "loctrack", dependencies: ["LocTrackCLI", "LocTrackProcess", "LocTrackSystem"], swiftSettings: strictSettings),
        // The process harness the test targets share: gpsfake and gpsd, mosquitto, the built
        // loctrack, TCP relays, /proc readers. Test support, not a product.
        .target(
            name: "LocTrackTestSupport",
            dependencies: ["LocTrack", "LocTrackSystem"],
            path: "Tests/LocTrackTestSupport",
            swiftSettings: strictSettings
        ),
        // The tests of that harness itself (mosquitto with its own clients, the TCP relay).
        .testTarget(
            name: "LocTrackHarnessTests",
            dependencies: ["LocTrack", "LocTrackSystem", "LocTrackTestSupport"],
            path: "Tests/LocTrackHarnessTests",
            swiftSettings: strictSettings
        ),
        // The track-file readers and `loctrack trips`, end to end through the built programs.
        .testTarget(
            name: "LocTrackTripsTests",
            dependencies: [
                "LocTrack", "LocTrackSystem", "LocTrackProcess", "LocTrackDistance", "LocTrackFormats", "LocTrackRecordedLines",
                "LocTrackTrackFiles",
                "LocTrackTestSupport",
            ],
            // Real track files with their sources and licences (Fixtures/corpus/SOURCES.md), read from the source tree.
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // The Traccar uplink's pure parts (URL, query, gate, thinning, state machine) and its
        // loop over an in-memory transport; one loopback request through libcurl.
        .testTarget(
            name: "LocTrackTraccarTests",
            dependencies: ["LocTrack", "LocTrackSystem", "LocTrackSpool", "LocTrackDistance", "LocTrackTraccar", "LocTrackTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocTrackWebTests",
            dependencies: [
                "LocTrack", "LocTrackSystem", "LocTrackProcess", "LocTrackMonitor", "LocTrackDistance", "LocTrackFormats",
                "LocTrackServeOptions", "LocTrackWeb", "LocTrackCharts", "LocTrackRecordedLines", "LocTrackTestSupport",
                // Only for the test that the page reads a file into the trips' points.
                "LocTrackTrackFiles",
            ],
            swiftSettings: strictSettings
        ),
        // The charts: tile paths, bounds, attributions, the cache, and MBTiles files made by
        // the sqlite3 tool (good and bad ones) read through the pool.
        .testTarget(
            name: "LocTrackChartsTests",
            dependencies: ["LocTrackCharts", "LocTrackSystem", "LocTrackTestSupport"],
            swiftSettings: strictSettings
        ),
        // The odometer and trips over generated drives and the shared stationary recordings
        // (Fixtures, copied with their licence), and the odometer's state file. Small on
        // purpose: it needs no client library (no libmosquitto, libcurl or libxml2).
        .testTarget(
            name: "LocTrackDistanceTests",
            dependencies: ["LocTrackDistance", "LocTrack", "LocTrackSystem", "LocTrackTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocTrackTests",
            dependencies: [
                "LocTrack", "LocTrackSystem", "LocTrackProcess", "LocTrackMonitor", "LocTrackDistance", "LocTrackSpool", "LocTrackMQTT",
                "LocTrackFormats", "LocTrackSinks", "LocTrackServeOptions", "LocTrackCLI", "LocTrackTestSupport",
            ],
            // gpsd captures the conformance replay reads from the source tree (Fixtures/gpsd-logs/README.md).
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
    ]
)
