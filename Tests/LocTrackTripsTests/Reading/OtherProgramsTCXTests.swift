import LocTrack
import LocTrackDistance
import LocTrackTrackFiles
import Testing

/// TCX as Garmin Connect and Strava export an activity: Garmin's default namespace, the speed
/// in an `ns3:TPX` extension (or an unprefixed `TPX` with its own default namespace), the
/// Trackpoints without a Position that a pause leaves.
@Suite("TCX from Garmin Connect and Strava", .timeLimit(.minutes(1)))
struct OtherProgramsTCXTests {
    static func time(_ text: String) -> Timestamp { Timestamp(iso8601: text)! }

    /// Strava's TCX export: no prefixes, the activity extension in its own default namespace,
    /// a Trackpoint during a pause with a time and a heart rate and no Position, and a Lap
    /// whose first Trackpoint repeats the last of the Lap before (the same time and place).
    static let strava = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
         <Activities>
          <Activity Sport="Biking">
           <Id>2026-11-23T09:00:00Z</Id>
           <Lap StartTime="2026-11-23T09:00:00Z">
            <TotalTimeSeconds>2.0</TotalTimeSeconds>
            <DistanceMeters>12.0</DistanceMeters>
            <Track>
             <Trackpoint>
              <Time>2026-11-23T09:00:00Z</Time>
              <Position><LatitudeDegrees>47.376621</LatitudeDegrees><LongitudeDegrees>8.541733</LongitudeDegrees></Position>
              <AltitudeMeters>410.2</AltitudeMeters>
              <Extensions><TPX xmlns="http://www.garmin.com/xmlschemas/ActivityExtension/v2"><Speed>6.25</Speed></TPX></Extensions>
             </Trackpoint>
             <Trackpoint>
              <Time>2026-11-23T09:00:01Z</Time>
              <HeartRateBpm><Value>121</Value></HeartRateBpm>
             </Trackpoint>
             <Trackpoint>
              <Time>2026-11-23T09:00:02Z</Time>
              <Position><LatitudeDegrees>47.3767</LatitudeDegrees><LongitudeDegrees>8.5418</LongitudeDegrees></Position>
             </Trackpoint>
            </Track>
           </Lap>
           <Lap StartTime="2026-11-23T09:00:02Z">
            <TotalTimeSeconds>1.0</TotalTimeSeconds>
            <Track>
             <Trackpoint>
              <Time>2026-11-23T09:00:02Z</Time>
              <Position><LatitudeDegrees>47.3767</LatitudeDegrees><LongitudeDegrees>8.5418</LongitudeDegrees></Position>
             </Trackpoint>
             <Trackpoint>
              <Time>2026-11-23T10:00:03+01:00</Time>
              <Position><LatitudeDegrees>47.3768</LatitudeDegrees><LongitudeDegrees>8.5419</LongitudeDegrees></Position>
             </Trackpoint>
            </Track>
           </Lap>
          </Activity>
         </Activities>
        </TrainingCenterDatabase>
        """

    @Test("given Garmin Connect's TCX of the day when read then every Trackpoint is a point with its time, position and ns3:Speed")
    func garminConnect() {
        let fixes = GeneratedDrive().fixes.prefix(30)
        let reading = TrackFileReader.read(OtherPrograms.tcx(fixes))
        #expect(reading.format == .tcx && reading.isWhole)
        #expect(reading.points == fixes.map { TrackPoint(time: $0.time, latitude: $0.latitude, longitude: $0.longitude, speed: $0.speed) })
        #expect(reading.notes(named: "a.tcx").isEmpty)
    }

    @Test("given Strava's TCX with a pause and a Lap that repeats a Trackpoint when read then the pause is no position, the repeat no note, the TPX speed read")
    func strava() {
        let reading = TrackFileReader.read(Array(Self.strava.utf8))
        #expect(reading.isWhole)
        #expect(reading.points == [
            TrackPoint(time: Self.time("2026-11-23T09:00:00.000Z"), latitude: 47.376621, longitude: 8.541733, speed: 6.25),
            TrackPoint(time: Self.time("2026-11-23T09:00:02.000Z"), latitude: 47.3767, longitude: 8.5418),
            TrackPoint(time: Self.time("2026-11-23T09:00:02.000Z"), latitude: 47.3767, longitude: 8.5418),
            TrackPoint(time: Self.time("2026-11-23T09:00:03.000Z"), latitude: 47.3768, longitude: 8.5419),
        ])
        #expect(reading.problem(named: "ride.tcx") == nil)
        #expect(reading.notes(named: "ride.tcx").isEmpty)
    }

    @Test("given Trackpoints with a bad number, a Position without its degrees and no Time when read then each is counted as it should be", arguments: [
        ("<Time>2026-11-23T09:00:00Z</Time><Position><LatitudeDegrees>x</LatitudeDegrees><LongitudeDegrees>8</LongitudeDegrees></Position>",
         "a.tcx: line 3: LatitudeDegrees \"x\" is not a number, skipped; 1 point read", [String]()),
        ("<Time>2026-11-23T09:00:00Z</Time><Position><LatitudeDegrees>47</LatitudeDegrees></Position>",
         "a.tcx: line 3: a Position without LatitudeDegrees and LongitudeDegrees, skipped; 1 point read", []),
        ("<Time>noon</Time><Position><LatitudeDegrees>47</LatitudeDegrees><LongitudeDegrees>8</LongitudeDegrees></Position>",
         "a.tcx: line 3: Time \"noon\" is not an ISO 8601 time, skipped; 1 point read", []),
        ("<Position><LatitudeDegrees>47</LatitudeDegrees><LongitudeDegrees>8</LongitudeDegrees></Position>",
         nil, ["a.tcx: 1 Trackpoint without a time skipped"]),
    ] as [(String, String?, [String])])
    func badTrackpoints(trackpoint: String, problem: String?, notes: [String]) {
        let text = """
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Activities><Activity Sport="Running"><Lap StartTime="2026-11-23T09:00:00Z"><Track>
            <Trackpoint>\(trackpoint)</Trackpoint>
            <Trackpoint><Time>2026-11-23T09:00:01Z</Time><Position><LatitudeDegrees>47</LatitudeDegrees><LongitudeDegrees>8</LongitudeDegrees></Position></Trackpoint>
            </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        let reading = TrackFileReader.read(Array(text.utf8))
        #expect(reading.points == [TrackPoint(time: Self.time("2026-11-23T09:00:01Z"), latitude: 47, longitude: 8)])
        #expect(reading.problem(named: "a.tcx") == problem)
        #expect(reading.notes(named: "a.tcx") == notes)
    }
}
