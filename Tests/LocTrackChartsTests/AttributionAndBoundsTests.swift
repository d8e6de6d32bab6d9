import LocTrackCharts
import Testing

/// The metadata's text and areas as the page is given them.
@Suite struct AttributionAndBoundsTests {
    @Test("given an HTML attribution when made plain then it is its text", arguments: [
        (#"<a href="https://www.openstreetmap.org/copyright">&copy; OpenStreetMap</a> contributors"#, "© OpenStreetMap contributors"),
        ("Map data &#169; &#xA9; x&lt;y&gt;z &quot;q&quot; &#39;s", "Map data © © x<y>z \"q\" 's"),
        ("a\n\tb   c", "a b c"),
        ("&bogus; & alone", "&bogus; & alone"),
        ("<img src=x onerror=alert(1)>", ""),
    ])
    func plain(html: String, text: String) {
        #expect(AttributionText.plain(html) == text)
    }

    @Test func givenAVeryLongAttributionWhenMadePlainThenItIsCutAtACharacter() {
        let text = AttributionText.plain(String(repeating: "é", count: 400))
        #expect(text.utf8.count == 500)
        #expect(text.count == 250)
    }

    @Test("given bounds metadata when read then it is the area, or nil when it is not one", arguments: [
        ("-4.6,48.3,-4.4,48.4", ChartBounds(west: -4.6, south: 48.3, east: -4.4, north: 48.4)),
        (" -180 , -90 , 180 , 90 ", ChartBounds(west: -180, south: -85.051129, east: 180, north: 85.051129)),
        ("170,-20,-170,20", ChartBounds(west: 170, south: -20, east: -170, north: 20)),
        ("1,2,3", nil), ("1,2,3,4,5", nil), ("0,50,10,40", nil), ("0,0,190,10", nil), ("a,b,c,d", nil), ("", nil),
    ])
    func bounds(text: String, expected: ChartBounds?) {
        #expect(ChartBounds(metadata: text) == expected)
    }

    @Test func givenAnAreaWhenTilesAreCheckedThenOnlyTheTouchingOnesAre() {
        // Zoom 1: four tiles, each a quadrant. An area in the north-east quadrant only.
        let northEast = ChartBounds(west: 10, south: 10, east: 20, north: 20)
        #expect(northEast.touches(zoom: 1, column: 1, row: 0))
        #expect(!northEast.touches(zoom: 1, column: 0, row: 0))
        #expect(!northEast.touches(zoom: 1, column: 1, row: 1))
        // Across the antimeridian: the east- and westernmost columns, not the middle.
        let pacific = ChartBounds(west: 170, south: -10, east: -170, north: 10)
        #expect(pacific.touches(zoom: 3, column: 0, row: 3))
        #expect(pacific.touches(zoom: 3, column: 7, row: 4))
        #expect(!pacific.touches(zoom: 3, column: 3, row: 3))
        // An edge shared exactly counts (a tool's own bounds of its tiles).
        #expect(ChartBounds(west: 0, south: 0, east: 180, north: 85.051129).touches(zoom: 1, column: 1, row: 0))
    }
}
