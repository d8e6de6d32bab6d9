import LocTrack

/// Track files as other programs export them, for fixes a test chose: TCX in the shape of
/// Garmin Connect's, KML in the shape of Google's (a `gx:Track` in a Placemark). Hand-written
/// to the shape of real exports: the namespaces, the elements around the points, the order.
enum OtherPrograms {
    /// Garmin Connect's TCX: one Activity, one Lap, every Trackpoint with its Time, Position,
    /// altitude, distance and heart rate, and the speed in the `ns3:TPX` extension.
    static func tcx(_ fixes: some Sequence<Fix>) -> [UInt8] {
        let points = fixes.map { fix in
            """
                      <Trackpoint>
                        <Time>\(fix.time.iso8601)</Time>
                        <Position>
                          <LatitudeDegrees>\(fix.latitude)</LatitudeDegrees>
                          <LongitudeDegrees>\(fix.longitude)</LongitudeDegrees>
                        </Position>
                        <AltitudeMeters>34.0</AltitudeMeters>
                        <HeartRateBpm>
                          <Value>96</Value>
                        </HeartRateBpm>
                        <Extensions>
                          <ns3:TPX>
                            <ns3:Speed>\(fix.speed ?? 0)</ns3:Speed>
                          </ns3:TPX>
                        </Extensions>
                      </Trackpoint>

            """
        }
        return Array((tcxHead + points.joined() + tcxTail).utf8)
    }

    static let tcxHead = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase
          xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd"
          xmlns:ns5="http://www.garmin.com/xmlschemas/ActivityGoals/v1"
          xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2"
          xmlns:ns2="http://www.garmin.com/xmlschemas/UserProfile/v2"
          xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
          xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ns4="http://www.garmin.com/xmlschemas/ProfileExtension/v1">
          <Activities>
            <Activity Sport="Other">
              <Id>2026-11-23T00:00:00.000Z</Id>
              <Lap StartTime="2026-11-23T00:00:00.000Z">
                <TotalTimeSeconds>1700.0</TotalTimeSeconds>
                <DistanceMeters>12000.0</DistanceMeters>
                <MaximumSpeed>15.0</MaximumSpeed>
                <Calories>120</Calories>
                <Intensity>Active</Intensity>
                <TriggerMethod>Manual</TriggerMethod>
                <Track>

        """

    static let tcxTail = """
                </Track>
                <Extensions>
                  <ns3:LX>
                    <ns3:AvgSpeed>7.06</ns3:AvgSpeed>
                  </ns3:LX>
                </Extensions>
              </Lap>
              <Creator xsi:type="Device_t">
                <Name>Edge 530</Name>
                <UnitId>3318000000</UnitId>
                <ProductID>3121</ProductID>
              </Creator>
            </Activity>
          </Activities>
          <Author xsi:type="Application_t">
            <Name>Connect Api</Name>
            <LangID>en</LangID>
            <PartNumber>006-D2449-00</PartNumber>
          </Author>
        </TrainingCenterDatabase>

        """

    /// Google's KML: a Placemark with one `gx:Track`, its `<when>` and `<gx:coord>` elements
    /// alternating (Takeout's location history), or all the times first (My Tracks, and the
    /// KML reference's own example).
    static func kml(_ fixes: some Sequence<Fix>, timesFirst: Bool = false) -> [UInt8] {
        let whens = fixes.map { "        <when>\($0.time.iso8601)</when>\n" }
        let coords = fixes.map { "        <gx:coord>\($0.longitude) \($0.latitude) 34</gx:coord>\n" }
        let track = timesFirst ? whens.joined() + coords.joined() : zip(whens, coords).map { $0 + $1 }.joined()
        return Array((kmlHead + track + kmlTail).utf8)
    }

    static let kmlHead = """
        <?xml version='1.0' encoding='UTF-8'?>
        <kml xmlns='http://www.opengis.net/kml/2.2' xmlns:gx='http://www.google.com/kml/ext/2.2'>
          <Document>
            <name>Location history from 2026-11-23 to 2026-11-23 </name>
            <open>1</open>
            <description/>
            <StyleMap id="multiTrack">
              <Pair><key>normal</key><styleUrl>#multiTrack_n</styleUrl></Pair>
            </StyleMap>
            <Placemark>
              <name>Location history</name>
              <styleUrl>#multiTrack</styleUrl>
              <gx:Track>
                <altitudeMode>clampToGround</altitudeMode>

        """

    static let kmlTail = """
              </gx:Track>
            </Placemark>
          </Document>
        </kml>

        """
}
