/// Which charts are overlays (docs/serve.md, "Layers"): by position first, then by what a
/// file says of itself, as the order of `--tiles-file` is the user's own word and QGIS's
/// and GDAL's `type` `overlay` is only their default.
///
/// - The first file is the base map, even when it says `overlay` (QGIS and GDAL write that
///   unless told otherwise), unless another base layer is there to take its place: the
///   online map of `--tiles`, or a later file that says `baselayer`. Then an `overlay` first
///   file is an overlay (OpenSeaMap's seamarks over the online map).
/// - A later file is an overlay, unless it says `baselayer`: another base map to pick.
enum LayerRoles {
    /// - Parameters:
    ///   - declared: each file's `type` metadata, lowercased (nil: none), in order.
    ///   - onlineBase: `--tiles` was given.
    /// - Returns: for each file, whether it is an overlay.
    static func overlays(declared: [String?], onlineBase: Bool) -> [Bool] {
        var overlays = declared.indices.map { index in index > 0 && declared[index] != "baselayer" }
        let anotherBase = onlineBase || declared.dropFirst().contains("baselayer")
        if declared.first == "overlay", anotherBase { overlays[0] = true }
        return overlays
    }
}
