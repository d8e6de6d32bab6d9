import LocTrack
import LocTrackDistance
import LocTrackTrackFiles
import Testing

/// KML tracks as Google writes them: `gx:Track` with `<when>` and `<gx:coord>` elements,
/// alternating (Takeout's location history) or all the times first (My Tracks), alone or in a
/// `gx:MultiTrack`.
@Suite("KML gx:Track from Google", .timeLimit(.minutes(1)))
struct OtherProgramsKMLTests {
    static let fixes = Array(GeneratedDrive().fixes.prefix(30))
    static let points = fixes.map { TrackPoint(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) }

    static func time(_ text: String) -> Timestamp { Timestamp(iso8601: text)! }

    @Test("given Google's KML with the times and positions alternating or the times first when read then each time is paired with its position", arguments: [false, true])
    func googleTrack(timesFirst: Bool) {
        let reading = TrackFileReader.read(OtherPrograms.kml(Self.fixes, timesFirst: timesFirst))
        #expect(reading.format == .kml && reading.isWhole)
        #expect(reading.points == Self.points)
    }

    @Test("given a gx:MultiTrack of two gx:Tracks (My Tracks, a pause between) with local times when read then both tracks' points are read, in UTC")
    func multiTrack() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2" xmlns:atom="http://www.w3.org/2005/Atom">
            <Document><name>Commute</name>
            <Placemark><name>Commute</name><styleUrl>#track</styleUrl>
            <gx:MultiTrack><altitudeMode>absolute</altitudeMode><gx:interpolate>1</gx:interpolate>
            <gx:Track>
            <when>2026-11-23T09:00:00.000+01:00</when>
            <when>2026-11-23T09:00:01.000+01:00</when>
            <gx:coord>13.4 52.5 34.0</gx:coord>
            <gx:coord>13.4001 52.5 34.0</gx:coord>
            <ExtendedData><SchemaData schemaUrl="#schema"><gx:SimpleArrayData name="speed"><gx:value>7.0</gx:value><gx:value>7.1</gx:value></gx:SimpleArrayData></SchemaData></ExtendedData>
            </gx:Track>
            <gx:Track>
            <when>2026-11-23T08:10:00Z</when>
            <gx:coord>13.41 52.5 34.0</gx:coord>
            </gx:Track>
            </gx:MultiTrack></Placemark>
            <Placemark><name>Start</name><Point><coordinates>13.4,52.5,0</coordinates></Point></Placemark>
            </Document></kml>
            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == [
            TrackPoint(time: Self.time("2026-11-23T08:00:00Z"), latitude: 52.5, longitude: 13.4),
            TrackPoint(time: Self.time("2026-11-23T08:00:01Z"), latitude: 52.5, longitude: 13.4001),
            TrackPoint(time: Self.time("2026-11-23T08:10:00Z"), latitude: 52.5, longitude: 13.41),
        ])
    }

    @Test("given OpenTracks' KML, whose empty <gx:coord/> mark where a segment starts and ends, when read then those are no position and the file is whole")
    func openTracksSegmentMarks() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"
            xmlns:gx="http://www.google.com/kml/ext/2.2">
            <Document>
            <name><![CDATA[Wurmlinger Kapelle]]></name>
            <Placemark>
            <gx:MultiTrack>
            <altitudeMode>absolute</altitudeMode>
            <gx:interpolate>1</gx:interpolate>
            <gx:Track>
            <when>2021-03-02T09:30:40.993Z</when>
            <when>2021-03-02T09:30:41.890Z</when>
            <when>2021-03-02T12:34:53.912Z</when>
            <when>2021-03-02T12:34:54.693Z</when>
            <gx:coord/>
            <gx:coord>8.970803 48.503537 405.01373291015625</gx:coord>
            <gx:coord>8.970829 48.503623 401.119873046875</gx:coord>
            <gx:coord/>
            </gx:Track>
            </gx:MultiTrack>
            </Placemark>
            </Document>
            </kml>
            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == [
            TrackPoint(time: Self.time("2021-03-02T09:30:41.890Z"), latitude: 48.503537, longitude: 8.970803),
            TrackPoint(time: Self.time("2021-03-02T12:34:53.912Z"), latitude: 48.503623, longitude: 8.970829),
        ])
        #expect(reading.notes(named: "a.kml").isEmpty)
    }

    @Test("given a gx:Track with a position more than times, a bad coord and a bad time when read then each is counted as it should be")
    func unpairedAndBad() {
        let text = """
            <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Placemark><gx:Track>
            <when>2026-11-23T08:00:00Z</when><gx:coord>13.4 52.5 0</gx:coord>
            <when>2026-11-23T08:00:01Z</when><gx:coord>here</gx:coord>
            <when>soon</when><gx:coord>13.4 52.5 0</gx:coord>
            <when>2026-11-23T08:00:03Z</when><gx:coord>13.4 52.5 0</gx:coord>
            <gx:coord>13.4 52.6 0</gx:coord>
            </gx:Track></Placemark></kml>
            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.points.map(\.time) == [Self.time("2026-11-23T08:00:00Z"), Self.time("2026-11-23T08:00:03Z")])
        #expect(reading.problem(named: "a.kml")
                == "a.kml: line 3: gx:coord \"here\" is not a longitude and latitude (2 gx:Track points unreadable, skipped); 2 points read")
        #expect(reading.notes(named: "a.kml") == ["a.kml: 1 gx:Track point without a time skipped"])
    }
}
