import LocTrackCharts
import Testing

/// `/tiles/N/Z/X/Y.EXT`: what is a tile path (the rest is 400) and where MBTiles keeps it.
@Suite struct TileAddressTests {
    @Test func givenAPlainPathWhenParsedThenItIsThatTileWithItsTMSRow() throws {
        guard case .tile(let address) = TileAddress.parse("/tiles/2/14/8514/5816.png") else {
            Issue.record("not parsed")
            return
        }
        #expect(address == TileAddress(layer: 2, zoom: 14, column: 8514, row: 5816, fileExtension: "png"))
        #expect(address.storedRow == (1 << 14) - 1 - 5816)
        #expect(address.isOnTheGrid)
    }

    @Test("given the zero tile and the extremes of a zoom when parsed then they are tiles", arguments: [
        ("/tiles/1/0/0/0.png", 0, 0, 0, 0),
        ("/tiles/1/1/1/1.jpg", 1, 1, 1, 0),
        ("/tiles/999/30/1073741823/0.webp", 30, 1_073_741_823, 0, 1_073_741_823),
    ])
    func extremes(path: String, zoom: Int, column: Int, row: Int, storedRow: Int) {
        guard case .tile(let address) = TileAddress.parse(path) else {
            Issue.record("\(path) not parsed")
            return
        }
        #expect(address.zoom == zoom && address.column == column && address.row == row)
        #expect(address.storedRow == storedRow)
    }

    @Test func givenJpegWhenParsedThenItIsReadAsJpg() {
        #expect(TileAddress.parse("/tiles/1/3/2/1.jpeg") == .tile(TileAddress(layer: 1, zoom: 3, column: 2, row: 1, fileExtension: "jpg")))
    }

    @Test func givenAColumnBeyondTheGridWhenParsedThenItIsWellFormedButOffTheGrid() {
        guard case .tile(let address) = TileAddress.parse("/tiles/1/3/8/0.png") else {
            Issue.record("not parsed")
            return
        }
        #expect(!address.isOnTheGrid)
    }

    @Test("given a path that is not plain numbers in range when parsed then it is malformed", arguments: [
        "/tiles/1/2/3", "/tiles/1/2/3/4", "/tiles/1/2/3/4.", "/tiles/1/2/3/4.gif", "/tiles/1/2/3/4.PNG",
        "/tiles/01/2/3/4.png", "/tiles/1/02/3/4.png", "/tiles/1/2/03/4.png", "/tiles/1/2/3/04.png",
        "/tiles/0/2/3/4.png", "/tiles/1000/2/3/4.png", "/tiles/1/31/3/4.png", "/tiles/1/100/3/4.png",
        "/tiles/1/2/12345678901/4.png", "/tiles/1/2/3/12345678901.png", "/tiles/1/2/-3/4.png",
        "/tiles/1/2/+3/4.png", "/tiles/1/2/3/4.png/5", "/tiles/1/2/3/4.png.png", "/tiles/1//3/4.png",
        "/tiles/1/2/3%2F4.png", "/tiles/1/2/3/4%2Epng", "/tiles/a/2/3/4.png", "/tiles/1/2/3/4 .png",
        "/tiles/1/2/3/x.png", "/tiles/1/2/3/.png", "/tile/1/2/3/4.png",
    ])
    func malformed(path: String) {
        #expect(TileAddress.parse(path) == .malformed, "\(path)")
    }
}
