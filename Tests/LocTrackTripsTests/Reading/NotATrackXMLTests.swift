import LocTrackTrackFiles
import Testing

/// XML that holds no track loctrack can read: another kind of document, or a GPX, TCX or KML
/// with no recorded track in it. One line says what the file is.
@Suite("XML that is no track", .timeLimit(.minutes(1)))
struct NotATrackXMLTests {
    @Test("given XML with no track when read then one line says what it is and nothing is read", arguments: [
        ("""
         <?xml version="1.0" encoding="UTF-8"?>
         <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><path d="M0 0L10 10"/></svg>
         """, "x: not GPX, TCX or KML (root element <svg>); nothing read"),
        ("""
         <!DOCTYPE html>
         <html><head><title>Map</title></head><body><p>a map</body></html>
         """, "x: not GPX, TCX or KML (root element <html>); nothing read"),
        ("""
         <?xml version="1.0" encoding="UTF-8"?>
         <gpx version="1.1" creator="Komoot" xmlns="http://www.topografix.com/GPX/1/1">
           <metadata><name>Tour</name></metadata>
           <wpt lat="52.5" lon="13.4"><name>Start</name></wpt>
           <wpt lat="52.6" lon="13.5"><name>Cafe</name></wpt>
           <wpt lat="52.7" lon="13.6"><name>End</name></wpt>
           <rte><name>Tour</name><rtept lat="52.5" lon="13.4"/><rtept lat="52.7" lon="13.6"/></rte>
           <rte><name>Back</name><rtept lat="52.7" lon="13.6"/></rte>
           <trk><name>Planned</name></trk>
         </gpx>
         """, "x: GPX with no track points (2 routes, 3 waypoints); nothing read"),
        ("""
         <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="52.5" lon="13.4"/></gpx>
         """, "x: GPX with no track points (1 waypoint); nothing read"),
        ("""
         <?xml version="1.0" encoding="UTF-8"?>
         <kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Route</name>
         <Placemark><name>Drive</name><LineString><tessellate>1</tessellate>
         <coordinates>13.4,52.5,0 13.41,52.5,0 13.42,52.51,0</coordinates></LineString></Placemark>
         </Document></kml>
         """, "x: KML without a gx:Track (a LineString has no times); nothing read"),
        ("""
         <kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>Home</name>
         <Point><coordinates>13.4,52.5,0</coordinates></Point></Placemark></Document></kml>
         """, "x: KML without a gx:Track; nothing read"),
        ("""
         <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
         <Courses><Course><Name>Loop</Name><Track>
         <Trackpoint><Time>2026-11-23T09:00:00Z</Time><Position><LatitudeDegrees>47</LatitudeDegrees><LongitudeDegrees>8</LongitudeDegrees></Position></Trackpoint>
         </Track></Course></Courses></TrainingCenterDatabase>
         """, "x: TCX with no activity, only a course (a route, not a recording); nothing read"),
    ])
    func notATrack(text: String, line: String) {
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.format == nil && reading.points.isEmpty && !reading.isWhole)
        #expect(reading.problem(named: "x") == line)
    }

    @Test("given XML that breaks before its first element when read then it is no track file of any kind")
    func brokenBeforeTheRoot() {
        let reading = TrackFileReader.read(Array("<<< not xml >>>\n".utf8))
        #expect(reading.format == nil)
        #expect(reading.problem(named: "x")
                == "x: not a track file (not JSON lines, CSV with time, lat and lon columns, GPX, TCX or KML); nothing read")
    }

    @Test("given a GPX, a TCX and a KML with a track but no point in it (a recording that had no fix) when read then each is whole and empty", arguments: [
        "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg></trkseg></trk></gpx>",
        "<TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\"><Activities/></TrainingCenterDatabase>",
        "<kml xmlns=\"http://www.opengis.net/kml/2.2\" xmlns:gx=\"http://www.google.com/kml/ext/2.2\"><Placemark><gx:Track/></Placemark></kml>",
    ])
    func emptyTrack(text: String) {
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.isWhole && reading.points.isEmpty)
        #expect(reading.problem(named: "x") == nil)
    }
}
