internal import CSQLite

/// What SQLite said when it refused: its primary result code and its message.
package struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_NOTADB`, `SQLITE_ERROR`, …), without extended bits.
    package let code: Int32
    package let message: String

    package var description: String { message }

    /// The file is not an SQLite database (`SQLITE_NOTADB`), or so damaged it cannot be read
    /// as one (`SQLITE_CORRUPT`).
    package var isNotADatabase: Bool { code == SQLITE_NOTADB || code == SQLITE_CORRUPT }

    init(code: Int32, message: String) {
        self.code = code & 0xFF
        self.message = message
    }

    /// The error of the last call on `connection` (its message from `sqlite3_errmsg(3)`).
    init(code: Int32, connection: OpaquePointer?) {
        let text = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        self.init(code: code, message: text ?? String(cString: sqlite3_errstr(code)))
    }
}
