public import HummingbirdCore
public import Logging
public import NIOCore

/// Hummingbird's HTTP/1 channel with ``TileFastPath`` added after its connection state
/// handler (`additionalChannelHandlers` would put it before, where that handler would not
/// see the tile requests it answers and would close a connection busy with them as idle).
public struct TileChannel: ServerChildChannel {
    public typealias Value = HTTP1Channel.Value

    let http: HTTP1Channel
    let respondToTile: TileFastPath.Respond

    public init(_ http: HTTP1Channel, respondToTile: @escaping TileFastPath.Respond) {
        self.http = http
        self.respondToTile = respondToTile
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(TileFastPath(respond: respondToTile), position: .after(state))
            return value
        }
    }

    public func handle(value: Value, logger: Logger) async {
        await http.handle(value: value, logger: logger)
    }
}
