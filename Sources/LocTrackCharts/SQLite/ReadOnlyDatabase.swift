internal import CSQLite

/// One read-only connection to one SQLite file (`sqlite3_open_v2(3)`), opened `immutable=1`:
/// SQLite then takes no locks and neither reads nor makes a `-wal` or `-shm` file, so a
/// chart opens in a folder the service may only read, and the connection never writes.
/// The price: a change another program makes while it is open is not seen, and neither
/// is what a `-wal` file holds (``ChartFileInspection`` warns about that one).
///
/// Not Sendable: opened without SQLite's mutexes (`SQLITE_OPEN_NOMUTEX`), it is used by the
/// thread that made it and no other (the read pool opens one per thread).
package final class ReadOnlyDatabase {
    private let connection: OpaquePointer

    /// Opens `path`. SQLite reads nothing yet: a file that is not a database is found by
    /// the first statement.
    package init(path: String) throws(SQLiteError) {
        var connection: OpaquePointer?
        let status = sqlite3_open_v2(Self.immutableURI(path), &connection, loctrack_sqlite_open_flags, nil)
        guard status == SQLITE_OK, let connection else {
            let error = SQLiteError(code: status, connection: connection)
            sqlite3_close_v2(connection)
            throw error
        }
        self.connection = connection
        // Each connection's page cache at most 1 MiB (the default is 2 MiB), and no memory
        // map: a chart of several GB must cost the server a few MB, whatever is read.
        try? execute("PRAGMA cache_size = -1024")
        try? execute("PRAGMA mmap_size = 0")
    }

    deinit {
        // _v2: closes once the last statement is finalized, whichever goes first.
        sqlite3_close_v2(connection)
    }

    /// A statement to run, any number of times.
    package func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw SQLiteError(code: status, connection: connection) }
        return Statement(statement, connection: connection)
    }

    /// Runs `sql`, reading no rows.
    package func execute(_ sql: String) throws(SQLiteError) {
        let statement = try prepare(sql)
        while try statement.step() {}
    }

    /// `file:` and the path, `%`, `?` and `#` (which end or escape a URI's path) and every
    /// byte that is not printable ASCII percent-encoded, then `?immutable=1`.
    static func immutableURI(_ path: String) -> String {
        var uri = "file:"
        for byte in path.utf8 {
            if (0x21...0x7E).contains(byte) && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "?")
                && byte != UInt8(ascii: "#") {
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                uri.unicodeScalars.append("%")
                uri.unicodeScalars.append(digits[Int(byte >> 4)])
                uri.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return uri + "?immutable=1"
    }
}

/// A prepared statement (`sqlite3_prepare_v3(3)`), reset and bound again for each use.
/// Used on its connection's thread only.
package final class Statement {
    private let statement: OpaquePointer
    private let connection: OpaquePointer

    init(_ statement: OpaquePointer, connection: OpaquePointer) {
        self.statement = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(statement) }

    /// Resets the statement and binds `values` to `?1`, `?2`, … in order.
    package func start(_ values: Int64...) throws(SQLiteError) {
        sqlite3_reset(statement)
        for (index, value) in values.enumerated() {
            let status = sqlite3_bind_int64(statement, Int32(index + 1), value)
            guard status == SQLITE_OK else { throw SQLiteError(code: status, connection: connection) }
        }
    }

    /// The next row: true when there is one, false when there are no more.
    package func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw SQLiteError(code: status, connection: connection)
        }
    }

    /// Whether the current row's `column` (from 0) is NULL.
    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    package func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    /// The current row's `column` as text (SQLite converts numbers), nil for NULL.
    package func text(_ column: Int32) -> String? {
        guard !isNull(column), let text = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The current row's `column` as bytes, copied (SQLite's are valid only until the next
    /// step); nil for NULL.
    package func bytes(_ column: Int32) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        // The pointer first, then its length (sqlite3_column_blob(3): in that order).
        let blob = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let blob else { return [] }
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }
}
