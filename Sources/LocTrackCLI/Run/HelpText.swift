import LocTrackFormats
import LocTrackProcess
import LocTrackSinks
enum HelpText {
    static var versionNumber: String { LocTrackVersion.number }
    static let version = "loctrack " + versionNumber

    static func text(for topic: HelpTopic) -> String {
        switch topic {
        case .overview, .help: overview
        case .stream: stream
        case .once: once
        case .monitor: monitor
        case .serve: serve
        case .trips: trips
        case .odometer: odometer
        case .completions: completions
        }
    }

    static let overview = """
        loctrack — GPS fixes from gpsd, one per epoch

        Usage:
          loctrack stream [--min-accuracy METERS] [--min-distance METERS] [--interval SECONDS]
                          [--count N] [--duration SECONDS] [--format FORMAT] [--tid XX] [--no-reconnect] [--verbose]
                          [--publish mqtt[s]://[USER@]HOST[:PORT]/TOPIC [PUBLISH OPTIONS]]...
                          [--publish http[s]://HOST:PORT/?id=DEVICE [TRACCAR OPTIONS]]...
                          [--publish udp://HOST[:PORT]]...
                          [--output PATH]... [--sync SECONDS] [--odometer] [--trips] [SOURCE]
          loctrack once   [--min-accuracy METERS] [--timeout SECONDS] [--max-age SECONDS] [--format FORMAT] [--tid XX]
                          [--verbose] [SOURCE]
          loctrack monitor add|remove|list|run|export …   (see 'loctrack help monitor')
          loctrack serve  [--listen ADDR:PORT] [--token-file FILE] [--monitor NAME [--dwell SECONDS]]
                          [--track PATTERN] [--tiles URL-TEMPLATE [--tiles-attribution TEXT]]
                          [--tiles-file FILE]... [--stale SECONDS] [--max-streams N] [--verbose] [SOURCE]
          loctrack trips  [--format json|text|csv] FILE...
          loctrack odometer [--set METERS] [--odometer-file FILE]
          loctrack help [COMMAND]
          loctrack completions bash|zsh|fish
          loctrack --version | -V

        Commands:
          stream       print every fix as it arrives, until interrupted
          once         wait for one good fix, print it, exit
          monitor      named, persistent geofences: enter/leave events that do not flap
          serve        a live map and the receiver's status in the browser
          trips        the trips in recorded track files (JSON lines, CSV, GPX, TCX, KML)
          odometer     print the kept odometer, or set it to the vehicle's reading
          completions  print a completion script for bash, zsh or fish

        SOURCE is [host][:port[:device]] as for gpsd's own clients
        (default localhost:2947; [::1] for IPv6; empty parts mean the defaults).

        FORMAT is json (JSON lines, gpsd's TPV field names), text (one readable line
        per fix), csv, gpx (a GPX 1.1 track), geojson (a GeoJSON Feature per line),
        owntracks (an OwnTracks location message per line) or nmea (NMEA 0183 RMC and
        GGA sentences per fix). The default is json when stdout is a pipe or file, text
        on a terminal.

        'stream' and 'monitor run' also publish each line to an MQTT broker, Home
        Assistant, a Traccar server or a chart plotter over UDP with --publish (see
        'loctrack help stream').

        Exit codes: 0 ok, 64 usage, 65 corrupt monitor state (trips: a track file not
        wholly readable), 66 trips: a track file missing, 69 gpsd unavailable or refused
        the request (serve: cannot listen; serve, trips: not installed), 72 a file of
        serve's page missing, 74 output or state file failed, 75 no fix before --timeout
        or the monitor already running, 78 serve's token file unusable, 130/143 'once'
        interrupted by SIGINT/SIGTERM (or a second signal while 'stream' finishes).
        See 'man loctrack' and docs/.

        """

    static let stream = """
        Usage: loctrack stream [--min-accuracy METERS] [--min-distance METERS] [--interval SECONDS]
                               [--count N] [--duration SECONDS] [--format FORMAT] [--tid XX] [--no-reconnect]
                               [--verbose] [--publish URL [PUBLISH OPTIONS]]...
                               [--output PATH]... [--sync SECONDS]
                               [--odometer] [--trips] [--odometer-file FILE] [SOURCE]

        Prints one line per GPS epoch as gpsd reports it, until SIGINT/SIGTERM
        (every fix already accepted is written first, then exit 0) or until stdout
        is closed (exit 0). When gpsd is not running or goes away, it says so once
        on stderr and keeps retrying (0.5 s, 1 s, 2 s, … up to 30 s). When gpsd
        refuses the watch (an unknown device), it exits 69.

        Options:
          --min-accuracy METERS  only fixes whose horizontal error estimate (gpsd's
                                 eph) is at most METERS; fixes without one are dropped;
                                 off: no limit at all. Without it, --publish with
                                 --format owntracks sends no fix with an eph over 100 m
                                 (or none) to the brokers (Home Assistant would put
                                 the device in any zone that error circle reaches);
                                 given, it replaces that limit
          --min-distance METERS  drop a fix closer than METERS to the last one printed
          --interval SECONDS     at most one fix per SECONDS of receiver time (the first)
                                 (filters apply in this order: accuracy, distance, interval)
          --count N              exit 0 after printing N fixes
          --duration SECONDS     exit 0 after SECONDS
          --format FORMAT        json, text, csv, gpx, geojson, owntracks or nmea
                                 (default: text on a terminal, else json)
          --no-reconnect         exit 69 when gpsd is unavailable or goes away
          -v, --verbose          report every connection event and skipped report on stderr
          -o, --output PATH      write track files; strftime fields in PATH from the
                                 fix's UTC time (tracks/%Y-%m-%d.gpx); the format from
                                 the name (.gpx .csv .geojson .txt .nmea), else --format, else
                                 json; valid after every fix, also after a SIGKILL; an
                                 existing file is continued; repeatable (a GPX and a CSV)
          --sync SECONDS         with --output: fdatasync at most every SECONDS (default 10)
          -h, --help             this help

        Sinks: with --publish or --output nothing goes to stdout; each sink gets every
        accepted fix. Both may be given, and each more than once: every sink has its
        own buffer (a broker its spool), so a broker that is down or a slow disk delays
        no other sink; a sink that fails for good (a full disk, a refused login) ends
        the command with its exit code once the others have written what they had.

        \(publishing(topic: "TOPIC", trackerIDNote: "; also\n                         for --format owntracks without --publish)"))

        \(distance(lines: "each fix line (json, geojson, text; MQTT JSON) carries"))

        Examples:
          loctrack stream --min-accuracy 20 | jq .lat
          loctrack stream --format gpx --min-distance 5 > track.gpx
          loctrack stream --output 'tracks/%Y-%m-%d.gpx'
          loctrack stream --format owntracks --publish mqtts://alice@broker.example.org/owntracks/alice/car
          loctrack stream --output 'tracks/%F.gpx' --publish mqtt://pi.local/van \\
                          --publish mqtts://fleet.example.org/vans/7 --client-id van-7

        """

    static let once = """
        Usage: loctrack once [--min-accuracy METERS] [--timeout SECONDS] [--max-age SECONDS] [--format FORMAT]
                             [--tid XX] [--verbose] [SOURCE]

        Prints the first fix that meets the accuracy bar and exits 0. A fix gpsd
        already has counts if it is no older than --max-age by gpsd's clock, so a
        gpsd that is already tracking answers at once. Exits 75 when no acceptable
        fix arrives within the timeout, 69 when gpsd is unavailable.

        Options:
          --min-accuracy METERS  accept only a fix whose eph is at most METERS
          --timeout SECONDS      give up after SECONDS (default 30)
          --max-age SECONDS      accept gpsd's latest fix if at most this old
                                 (default 2; 0 waits for a new fix)
          -v, --verbose          report connection events and skipped reports
          --format FORMAT        json, text, csv, gpx, geojson, owntracks or nmea
                                 (default: text on a terminal, else json)
          --tid XX               tracker id of --format owntracks, 1 or 2 letters or
                                 digits (default: the host name's first two)
          -h, --help             this help

        Example:
          fix=$(loctrack once --min-accuracy 50 --timeout 60) || echo "no fix"

        """

    static let monitor = """
        Usage:
          loctrack monitor add ID --circle LAT,LON,RADIUS [--title TEXT] [--name NAME] [--assume inside|outside]
          loctrack monitor add [ID] --geojson FILE [--title TEXT] [--name NAME] [--assume inside|outside]
          loctrack monitor remove ID [--name NAME]
          loctrack monitor list [--name NAME] [--format json|text]
          loctrack monitor run [--name NAME] [--format json|text|owntracks] [--dwell SECONDS] [--tid XX]
                               [--no-reconnect] [--verbose] [--publish URL [PUBLISH OPTIONS]]...
                               [--output PATH]... [--sync SECONDS]
                               [--odometer] [--trips] [--odometer-file FILE] [SOURCE]
          loctrack monitor export [--name NAME] [--format owntracks]

        A monitor is a named set of regions (circles, GeoJSON polygons) kept in
        $XDG_STATE_HOME/loctrack/NAME.monitor.json (~/.local/state/loctrack/). 'run'
        prints one line per event until SIGINT/SIGTERM (exit 0): a region becomes
        satisfied when a fix's whole error circle (gpsd's eph) is inside it, and
        unsatisfied when the error circle is outside it by a margin (the larger of
        10 m and 10% of its size), so a receiver standing on the boundary does not
        flap. Fixes without eph, or with an error circle larger than the region,
        decide nothing ("accuracyLimited", reported once). States survive restarts;
        'add' and 'remove' from another terminal reach a running monitor within 2 s.

        Options:
          --name NAME            the monitor (default: default)
          --circle LAT,LON,R     a circle of R metres around LAT,LON (degrees)
          --geojson FILE         a Feature or FeatureCollection of Polygons and
                                 MultiPolygons (ids from properties.id); - is stdin
          --assume inside|outside  the state until a fix decides (default unknown:
                                 the first decision is then an event)
          --title TEXT           add: the region's display name, the desc of its
                                 OwnTracks transitions and waypoint (default: a GeoJSON
                                 feature's properties.name, else the id)
          --format FORMAT        run: json (one EVENT object per line), text, or
                                 owntracks (transition messages); list: json or text
                                 (default: text on a terminal, else json); export:
                                 owntracks (one waypoints message, the default)
          --dwell SECONDS        report a new state only after it held SECONDS of
                                 receiver time
          --no-reconnect         exit 69 when gpsd is unavailable or goes away
          -v, --verbose          report every connection event on stderr
          -o, --output PATH      run: write the events to files (as stream --output;
                                 with --publish too, and each repeatable: see stream)
          --sync SECONDS         with --output: fdatasync at most every SECONDS (default 0:
                                 each batch of events, so each is confirmed
                                 delivered once its file is on disk)
          -h, --help             this help

        \(publishing(topic: "TOPIC/event", trackerIDNote: "; also\n                         for --format owntracks without --publish)"))

        \(distance(lines: "Home Assistant (--ha-discovery) shows"))

        Home Assistant's OwnTracks integration ignores a device's locations between an
        enter and its leave, and knows the region only if it has a zone for it: export
        the regions as waypoints ('export', published on owntracks/USER/DEVICE/waypoints;
        a polygon becomes the circle around it) or name HA zones like the titles.

        Examples:
          loctrack monitor add home --circle 52.5163,13.3777,80 --title Home
          loctrack monitor add --geojson zones.geojson
          loctrack monitor run --format json | jq -c 'select(.state == "satisfied")'
          loctrack monitor export > waypoints.json
          mosquitto_pub -r -t owntracks/alice/car/waypoints -f waypoints.json

        """

    static let serve = """
        Usage: loctrack serve [--listen ADDR:PORT] [--token-file FILE] [--monitor NAME [--dwell SECONDS]]
                              [--track PATTERN] [--tiles URL-TEMPLATE [--tiles-attribution TEXT]]
                              [--tiles-file FILE]... [--stale SECONDS] [--max-streams N] [--verbose]
                              [SOURCE]

        Serves a page that shows the position, its accuracy and track, the receiver's
        status, its satellites and the regions of a monitor, live, and an HTTP API of
        the same (server-sent events at /events, JSON at /api/...), until SIGINT or
        SIGTERM (exit 0). The page needs no internet: its map library is Debian's
        libjs-leaflet, its charts are files on this computer (--tiles-file). Nothing
        served changes anything. It is run by the program
        loctrack-serve, found through $LOCTRACK_SERVE, else beside loctrack, else in
        ../lib/loctrack/ from there (exit 69 when there is none).

        Options:
          --listen ADDR:PORT     the address to answer on: 1.2.3.4:PORT, [IPv6]:PORT,
                                 localhost:PORT, or a PORT alone on 127.0.0.1
                                 (default 127.0.0.1:8947); any address but loopback
                                 (127.0.0.0/8, ::1) needs --token-file
          --token-file FILE      every request needs the token, FILE's first line
                                 (Authorization: Bearer, the cookie, or ?token= once);
                                 FILE must be readable by its owner only (chmod 600)
          --monitor NAME         show this monitor's regions, their states decided from
                                 serve's own fixes (the monitor's file is only read)
          --dwell SECONDS        with --monitor: as 'monitor run --dwell'
          --track PATTERN        also show the fixes 'stream --output PATTERN' recorded
                                 today (UTC; JSON, GeoJSON or OwnTracks lines), so a
                                 reload shows the day so far
          --tiles URL-TEMPLATE   a base map from this tile server, as
                                 https://tile.example.org/{z}/{x}/{y}.png ({s}. may start
                                 the host); without it, no base map and nothing fetched
          --tiles-attribution TEXT  the tiles' attribution, shown on the map
          --tiles-file FILE      a chart: a raster MBTiles file (PNG, JPEG or WebP
                                 tiles) served by loctrack, no internet needed; the
                                 first is the base map, later ones overlays (a file's
                                 type metadata may decide); up to 16, with --tiles too
          --stale SECONDS        grey the fix when none came for SECONDS (default 3)
          --max-streams N        at most N event streams at once (default 64)
          -v, --verbose          report connection events on stderr
          -h, --help             this help

        Exit codes: 64 usage (a malformed --listen, a non-loopback --listen without
        --token-file), 65 the monitor's state file is not a monitor's, or a --tiles-file
        is not a raster MBTiles file (not SQLite, no tiles table, vector tiles, no
        tile), 66 a --tiles-file is missing, unreadable or a folder, 69 the address
        cannot be listened on or loctrack-serve is missing, 72 a file of the page is
        missing (Leaflet: apt install libjs-leaflet), 78 the token file is missing,
        unreadable, empty or readable by others. The API: docs/http.md; charts:
        docs/serve.md.

        Examples:
          loctrack serve                          (http://127.0.0.1:8947/, this computer only)
          loctrack serve --monitor home --track '/var/lib/loctrack/tracks/%F.json'
          loctrack serve --listen 0.0.0.0:8947 --token-file /etc/loctrack/serve.token
          loctrack serve --tiles-file harbour.mbtiles --tiles-file seamarks.mbtiles

        """

    static let odometer = """
        Usage: loctrack odometer [--set METERS] [--odometer-file FILE]

        Prints the odometer that stream and monitor run keep (--odometer, --trips, or a
        Traccar --publish), in metres, or sets it: to the vehicle's own reading, say,
        so that the distance Traccar and Home Assistant show matches the dashboard.
        Set it while loctrack is stopped (systemctl stop loctrack): a running loctrack
        keeps its own count and would write over it. Exits 65 when the file is not an
        odometer file, 74 when it cannot be read or written.

        Options:
          --set METERS           set the odometer to METERS (0 or more)
          --odometer-file FILE   the odometer kept in FILE (default
                                 $XDG_STATE_HOME/loctrack/odometer)
          -h, --help             this help

        Examples:
          loctrack odometer                       # 1083.588
          loctrack odometer --set 123456700       # 123,456.7 km

        """

    static let trips = """
        Usage: loctrack trips [--format json|text|csv] FILE...

        Reads track files loctrack recorded (JSON lines, CSV or GPX, as 'stream --output'
        writes them) and other programs' GPX, TCX (Garmin Connect, Strava) and KML with
        a gx:Track (Google Takeout), merges their points by time (the files in any
        order; a time that overlapping files share, once), and prints one line per
        trip: its start and end, distance, duration, time moving, maximum and average
        speed and where it began and ended. On a terminal the lines are text and the
        totals end them; in a pipe, JSON lines. The trips are Traccar's: one starts
        once the position has moved 200 m, and ends when it has not moved 200 m in
        180 s, at a gap of over an hour, or at a logger's auto-pause (3 minutes without
        fixes that end within 200 m); its distance is loctrack's odometer, which does
        not grow while parked, counts fixes a minute apart as well as at 1 Hz, and
        uses the receiver's speeds only where they agree with the positions (a line on
        stderr says when they do not) (docs/distance.md). FILE - is stdin.

        A file that is corrupt, cut short (a power cut), not a track or without a point
        that has a time gets one line on stderr naming it and the line; what it holds
        is used all the same, the other files are read, and the exit code is 65. Points
        without a time, or that share their time, are left out and said, with exit 0.
        A missing or unreadable file gets one line too, and exit 66. It is run by the
        program loctrack-trips, found through $LOCTRACK_TRIPS, else beside loctrack,
        else in ../lib/loctrack/ from there
        (exit 69 when there is none).

        Options:
          --format FORMAT        json (one TRIP object per line), text (one line per
                                 trip, then the totals) or csv (a header, then one row
                                 per trip) (default: text on a terminal, else json)
          -h, --help             this help

        Exit codes: 0 every file read whole, 64 usage, 65 a file not wholly readable,
        66 a file missing or unreadable, 69 loctrack-trips missing, 74 stdout failed.

        Examples:
          loctrack trips /var/lib/loctrack/2026-11-*.gpx
          loctrack trips --format csv tracks/*.json > trips.csv
          loctrack trips tracks/*.json | jq -r 'select(.distance > 10000) | .start'

        """

    static let completions = """
        Usage: loctrack completions bash|zsh|fish

        Prints a script that completes loctrack's commands, options and their values
        (formats, file and directory names) in that shell. It is generated from the
        table loctrack's own parser uses. 'make install' and the Debian package put
        them where the shells look; to try one in the running shell:

          source <(loctrack completions bash)
          source <(loctrack completions zsh)      (after compinit)
          loctrack completions fish | source

        Options:
          -h, --help             this help

        """

    /// The distance options, the same for `stream` and `monitor run` but for where the
    /// odometer shows.
    private static func distance(lines: String) -> String {
        """
        Distance (docs/distance.md): the odometer counts only while the tracker is
        confirmed moving (a parked receiver's wandering fix adds nothing) and is kept
        across restarts; a Traccar --publish always sends it with each position:
          --odometer             \(lines) the odometer
                                 (metres) and whether the tracker is moving
          --trips                a TRIP line (json or text) when a trip starts and
                                 ends: Traccar's rules (200 m from the last stop, a
                                 stop after 180 s within 200 m, a gap over an hour,
                                 3 min without fixes within 200 m)
          --odometer-file FILE   keep the odometer in FILE (default
                                 $XDG_STATE_HOME/loctrack/odometer); one process each
        """
    }

    /// The publishing options, the same for `stream` and `monitor run` but for the topic.
    private static func publishing(topic: String, trackerIDNote: String) -> String {
        """
        Publishing (each line goes to the broker as one message instead of stdout, JSON
        by default; the password is never an option: LOCTRACK_MQTT_PASSWORD, else the
        first line of --password-file). --publish may be repeated: the options below
        belong to the --publish before them (those before the first, to the first),
        and two brokers need their own --client-id or --spool:
          --publish URL          mqtt://[USER@]HOST[:PORT]/TOPIC, or mqtts:// for TLS
                                 (ports 1883 and 8883); messages go to \(topic)
          --qos N                0, 1 or 2 (default 1)
          --retain               the broker keeps the last message for new subscribers
          --client-id ID         MQTT client id (default loctrack-HOSTNAME, the same
                                 across restarts)
          --cafile FILE          CA certificates for mqtts:// (default: the system's)
          --password-file FILE   its first line is the broker password
          --spool DIR            messages wait here until the broker has them (default
                                 $XDG_STATE_HOME/loctrack/spool/CLIENTID/)
          --spool-limit SIZE     at most SIZE bytes spooled, then the oldest go;
                                 500K, 100M, 2G are SI (1000s) (default 100M)
          --tid XX               OwnTracks tracker id, 1 or 2 letters or digits
                                 (default: the host name's first two\(trackerIDNote)
          With --publish, --format must be a line format (json, geojson, owntracks,
          text); owntracks also sets a last will {"_type":"lwt","tst":…} on TOPIC.

        Home Assistant (per --publish: that broker gets Home Assistant's MQTT discovery
        and states under TOPIC instead of lines; docs/home-assistant.md):
          --ha-discovery         a device tracker, sensors (fix, satellites, DOPs, error,
                                 spool), gpsd and receiver connectivity, and with monitor
                                 run a presence sensor per region; retained, with an
                                 online/offline availability (the last will)
          --ha-prefix PREFIX     the discovery prefix (default homeassistant)
          --ha-name NAME         the device's name (default the host name)
          --ha-node ID           the node id in topics (default the client id, other
                                 characters than letters, digits, _ and - as _)
          --ha-interval SECONDS  update at most every SECONDS (default 10; a change of
                                 fix mode or status at once)
          --ha-max-error METERS  fixes with a larger eph do not move the tracker
                                 (default 100; 0: no limit)

        Traccar (--publish http://HOST:PORT/?id=DEVICE, or https://, the server URL and
        device identifier of Traccar's phone client; docs/traccar.md): each accepted fix is
        an OsmAnd position (its time, speed in knots, the odometer and motion), kept
        in a spool (default $XDG_STATE_HOME/loctrack/spool/traccar-DEVICE/) and sent
        oldest first on one connection; an outage or an unknown device (HTTP 400)
        loses nothing. --cafile, --spool and --spool-limit apply as above, and:
          --traccar-interval SECONDS  a position at most every SECONDS of receiver time
          --traccar-distance METERS   or once METERS from the last one sent
                                 (either given: always at a change of motion; the
                                 odometer counts every fix)

        UDP (--publish udp://HOST[:PORT], default port 10110, what gpsd's gps2udp does):
        each accepted fix as NMEA 0183 RMC and GGA, one sentence per datagram, for
        OpenCPN, Signal K or a plotter (HOST may be a broadcast address); with
        --format json, one TPV per datagram instead. UDP keeps nothing: no spool, no
        retry, so a fix sent while nothing listens is gone, and a listener that is not
        there costs the other sinks nothing. It takes no companion option.
        """
    }
}
