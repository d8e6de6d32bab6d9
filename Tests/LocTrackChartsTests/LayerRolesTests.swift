@testable import LocTrackCharts
import Testing

/// Which charts are overlays: position first, then what a file says of itself.
@Suite struct LayerRolesTests {
    @Test("given files and their types when their roles are decided then the first is the base unless another can be",
          arguments: [
            // A chart from QGIS or GDAL (type overlay, their default), alone: the base map.
            (["overlay"] as [String?], false, [false]),
            // The same with seamarks after it: base, overlay.
            (["overlay", "overlay"], false, [false, true]),
            // Seamarks (overlay) over the online map of --tiles: an overlay.
            (["overlay"], true, [true]),
            // Seamarks first, then a chart that says baselayer: the seamarks lie over it.
            (["overlay", "baselayer"], false, [true, false]),
            // No types: the first a base, the rest overlays.
            ([nil, nil, nil], false, [false, true, true]),
            // A later baselayer is another base to pick; a first baselayer stays one.
            (["baselayer", "baselayer", nil], true, [false, false, true]),
            // A first file without a type is the base even beside --tiles.
            ([nil, "overlay"], true, [false, true]),
          ])
    func roles(declared: [String?], onlineBase: Bool, overlays: [Bool]) {
        #expect(LayerRoles.overlays(declared: declared, onlineBase: onlineBase) == overlays)
    }
}
