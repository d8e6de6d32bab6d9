// SQLite (Debian's libsqlite3-dev for these headers, libsqlite3-0 at run time), for reading
// MBTiles charts in `loctrack serve`. Only Sources/LocTrackCharts/SQLite imports this module;
// the rest of loctrack calls the wrappers there, and only `loctrack-serve` links the library
// (`loctrack` itself does not: `make serve` and `make build` check with ldd).
//
// Everything loctrack calls is a plain C function Swift imports as it is; what follows is
// what Swift cannot import by itself.
#ifndef LOCTRACK_SQLITE_SHIM_H
#define LOCTRACK_SQLITE_SHIM_H

#include <sqlite3.h>

// How every chart connection is opened: read-only, the path given as a `file:` URI (so that
// `immutable=1` can be asked for: no locks, no -shm or -wal files made or read, which the
// service's read-only sandbox would refuse), and without SQLite's own mutexes, as each
// connection is used by one thread only (the read pool's). The flags are macros of macros
// over an int, which Swift imports as Int32 only one by one; combined here once.
static const int loctrack_sqlite_open_flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;

#endif
