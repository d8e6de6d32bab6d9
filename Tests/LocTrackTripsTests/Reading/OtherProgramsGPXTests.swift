import LocTrack
import LocTrackDistance
import LocTrackTrackFiles
import Testing

/// GPX as other programs write it: the shapes of GPSLogger's GPX 1.0, OsmAnd's and Garmin's
/// GPX 1.1 with their extensions, waypoints and routes beside the track.
@Suite("GPX from other programs", .timeLimit(.minutes(1)))
struct OtherProgramsGPXTests {
    static func time(_ text: String) -> Timestamp { Timestamp(iso8601: text)! }

    /// GPSLogger for Android: GPX 1.0, everything on few lines, `<speed>` in the point (m/s),
    /// a document `<time>` before the track, DOPs (no error in metres).
    static let gpsLogger = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes" ?><gpx version="1.0" creator="GPSLogger 131 - http://gpslogger.mendhak.com/" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://www.topografix.com/GPX/1/0" \
        xsi:schemaLocation="http://www.topografix.com/GPX/1/0 http://www.topografix.com/GPX/1/0/gpx.xsd"><time>2026-11-23T07:59:58.000Z</time><trk><trkseg>\
        <trkpt lat="52.51629" lon="13.37765"><ele>34.0</ele><time>2026-11-23T08:00:00.000Z</time><course>87.4</course><speed>12.5</speed><geoidheight>39.0</geoidheight><src>gps</src><sat>9</sat><hdop>0.9</hdop><vdop>1.2</vdop><pdop>1.5</pdop></trkpt>
        <trkpt lat="52.51630" lon="13.37783"><ele>34.5</ele><time>2026-11-23T08:00:01.000Z</time><course>87.9</course><speed>12.75</speed><src>gps</src><sat>9</sat><hdop>0.9</hdop></trkpt>
        </trkseg></trk></gpx>
        """

    /// OsmAnd: GPX 1.1, indented, metadata with its own `<time>`, the speed in
    /// `<extensions><osmand:speed>`, a waypoint and a planned route that are no track.
    static let osmAnd = """
        <?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
        <gpx version="1.1" creator="OsmAnd~ 4.6.10" xmlns="http://www.topografix.com/GPX/1/1" xmlns:osmand="https://osmand.net" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
          <metadata>
            <name>2026-11-23_09-00_Mon</name>
            <time>2026-11-23T09:30:00Z</time>
          </metadata>
          <wpt lat="52.5200000" lon="13.4000000">
            <time>2026-11-23T09:10:00Z</time>
            <name>Parking</name>
          </wpt>
          <rte>
            <rtept lat="52.5300000" lon="13.4100000"><time>2026-11-23T09:11:00Z</time></rtept>
          </rte>
          <trk>
            <name>2026-11-23_09-00_Mon</name>
            <trkseg>
              <trkpt lat="52.5162900" lon="13.3776500">
                <ele>34.2</ele>
                <time>2026-11-23T09:00:00Z</time>
                <hdop>4.5</hdop>
                <extensions>
                  <osmand:speed>8.3</osmand:speed>
                  <osmand:heading>87</osmand:heading>
                </extensions>
              </trkpt>
              <trkpt lat="52.5163000" lon="13.3777700">
                <ele>34.4</ele>
                <time>2026-11-23T09:00:01Z</time>
                <hdop>4.2</hdop>
              </trkpt>
            </trkseg>
          </trk>
        </gpx>
        """

    /// Garmin (Connect exports, Basecamp): the speed in a TrackPointExtension, and a program
    /// that writes local times with their offset and CDATA.
    static let garmin = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx creator="Garmin Connect" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <trk><name><![CDATA[Morning Ride]]></name><type>cycling</type><trkseg>
            <trkpt lat="47.376621" lon="8.541733"><ele>410.2</ele><time>2026-11-23T10:00:00+01:00</time>
              <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>121</gpxtpx:hr><gpxtpx:speed>6.25</gpxtpx:speed></gpxtpx:TrackPointExtension></extensions>
            </trkpt>
            <trkpt lat="47.376700" lon="8.541800"><time><![CDATA[2026-11-23T09:00:01.5Z]]></time></trkpt>
          </trkseg></trk>
        </gpx>
        """

    @Test("given GPSLogger's GPX 1.0 when read then each trkpt is a point with its <speed>, the document's own <time> is not")
    func gpsLoggerTrack() {
        let reading = TrackFileReader.read(Array(Self.gpsLogger.utf8))
        #expect(reading.format == .gpx && reading.isWhole)
        #expect(reading.points == [
            TrackPoint(time: Self.time("2026-11-23T08:00:00.000Z"), latitude: 52.51629, longitude: 13.37765, speed: 12.5),
            TrackPoint(time: Self.time("2026-11-23T08:00:01.000Z"), latitude: 52.5163, longitude: 13.37783, speed: 12.75),
        ])
    }

    @Test("given OsmAnd's GPX 1.1 when read then the track points are read (osmand:speed as the speed, hdop not an error), the waypoint, route and metadata are not")
    func osmAndTrack() {
        let reading = TrackFileReader.read(Array(Self.osmAnd.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == [
            TrackPoint(time: Self.time("2026-11-23T09:00:00.000Z"), latitude: 52.51629, longitude: 13.37765, speed: 8.3),
            TrackPoint(time: Self.time("2026-11-23T09:00:01.000Z"), latitude: 52.51630, longitude: 13.37777),
        ])
    }

    @Test("given Garmin's GPX with a TrackPointExtension, a time with an offset and a time in CDATA when read then both are UTC and the extension's speed is used")
    func garminTrack() {
        let reading = TrackFileReader.read(Array(Self.garmin.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == [
            TrackPoint(time: Self.time("2026-11-23T09:00:00.000Z"), latitude: 47.376621, longitude: 8.541733, speed: 6.25),
            TrackPoint(time: Self.time("2026-11-23T09:00:01.500Z"), latitude: 47.3767, longitude: 8.5418),
        ])
    }

    @Test("given an extension with a namespace prefix the file never declares when read then libxml2 goes on, the speed is read, and the file is whole")
    func undeclaredPrefix() {
        let text = """
            <?xml version="1.0"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><time>2026-11-23T09:00:00Z</time><extensions><osmand:speed>3.5</osmand:speed></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == [TrackPoint(time: Self.time("2026-11-23T09:00:00.000Z"), latitude: 1, longitude: 2, speed: 3.5)])
    }

    @Test("given a trkpt with <fix>none</fix> when read then it is no position and no problem")
    func noFix() {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><time>2026-11-23T09:00:00Z</time><fix>none</fix></trkpt>
            <trkpt lat="1" lon="2"><time>2026-11-23T09:00:01Z</time><fix>3d</fix></trkpt>
            </trkseg></trk></gpx>
            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == [TrackPoint(time: Self.time("2026-11-23T09:00:01.000Z"), latitude: 1, longitude: 2)])
    }
}
