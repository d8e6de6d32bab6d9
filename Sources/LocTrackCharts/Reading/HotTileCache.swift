import Synchronization

/// The tiles asked for lately, at most ``budget`` bytes of them, so that the tiles around
/// the boat (asked for again at every pan, by every phone) are served without a read.
///
/// Two generations instead of a least-recently-used list: new tiles go into the current one;
/// when it holds half the budget it becomes the previous one and the old previous one is
/// dropped; a hit in the previous one is copied into the current one. What is used stays,
/// what is not goes within two generations, and every step is O(1).
final class HotTileCache: Sendable {
    private struct Generations {
        var current: [TileAddress: TileData] = [:]
        var currentBytes = 0
        var previous: [TileAddress: TileData] = [:]
    }

    /// Bytes of tiles kept at most (both generations together).
    let budget: Int
    private let generations = Mutex(Generations())

    init(budget: Int) {
        self.budget = budget
    }

    /// A tile bigger than this is never kept: one huge tile must not push out dozens.
    var largestKept: Int { budget / 16 }

    func tile(at address: TileAddress) -> TileData? {
        var dropped: [TileAddress: TileData] = [:]
        let found = generations.withLock { generations -> TileData? in
            if let data = generations.current[address] { return data }
            guard let data = generations.previous[address] else { return nil }
            dropped = Self.keep(data, at: address, in: &generations, half: budget / 2)
            return data
        }
        dropped.removeAll()  // freed here, after the lock
        return found
    }

    func keep(_ data: TileData, at address: TileAddress) {
        guard budget > 0, data.bytes.count <= largestKept else { return }
        var dropped = generations.withLock { generations in
            Self.keep(data, at: address, in: &generations, half: budget / 2)
        }
        dropped.removeAll()  // freed here, after the lock
    }

    /// Adds to the current generation; returns the generation dropped, if one was.
    private static func keep(
        _ data: TileData, at address: TileAddress, in generations: inout Generations, half: Int
    ) -> [TileAddress: TileData] {
        guard generations.current.updateValue(data, forKey: address) == nil else { return [:] }
        generations.currentBytes += data.bytes.count
        guard generations.currentBytes > half else { return [:] }
        let dropped = generations.previous
        generations.previous = generations.current
        generations.current = [:]
        generations.currentBytes = 0
        return dropped
    }

    /// Bytes held now (both generations), for the tests.
    var bytesHeld: Int {
        generations.withLock { generations in
            generations.currentBytes + generations.previous.values.reduce(0) { $0 + $1.bytes.count }
        }
    }
}
