@testable import LocTrackCharts
import Testing

/// The hot tiles: kept within the budget, what is used stays, one huge tile never.
@Suite struct HotTileCacheTests {
    private func address(_ n: Int) -> TileAddress { TileAddress(layer: 1, zoom: 20, column: n, row: 0, fileExtension: "png") }
    private func tile(_ size: Int) -> TileData { TileData(bytes: [UInt8](repeating: 7, count: size), contentType: "image/png") }

    @Test func givenMoreTilesThanTheBudgetWhenKeptThenAtMostTheBudgetIsHeld() {
        let cache = HotTileCache(budget: 64 * 1024)
        for n in 0..<1_000 {
            cache.keep(tile(1_000), at: address(n))
            #expect(cache.bytesHeld <= 64 * 1024)
        }
        #expect(cache.tile(at: address(999)) != nil)
        #expect(cache.tile(at: address(0)) == nil)
    }

    @Test func givenATileAskedForAgainAndAgainWhenManyOthersComeThenItStays() {
        let cache = HotTileCache(budget: 64 * 1024)
        cache.keep(tile(1_000), at: address(-1))
        for n in 0..<1_000 {
            cache.keep(tile(1_000), at: address(n))
            #expect(cache.tile(at: address(-1)) != nil, "after \(n)")
        }
    }

    @Test func givenATileBiggerThanASixteenthOfTheBudgetWhenKeptThenItIsNot() {
        let cache = HotTileCache(budget: 64 * 1024)
        cache.keep(tile(4 * 1024 + 1), at: address(1))
        #expect(cache.tile(at: address(1)) == nil)
        cache.keep(tile(4 * 1024), at: address(2))
        #expect(cache.tile(at: address(2))?.bytes.count == 4 * 1024)
    }
}
