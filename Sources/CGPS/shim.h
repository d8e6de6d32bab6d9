// The C side of loctrack's libgps boundary (Debian libgps-dev, gpsd 3.22, API 11).
//
// Swift imports <gps.h> directly; this header only adds what Swift cannot call
// or should not reach into. Everything here is `static inline` so the module
// needs no compiled C target of its own.
#ifndef LOCTRACK_CGPS_SHIM_H
#define LOCTRACK_CGPS_SHIM_H

#include <gps.h>

// gps_send is variadic (printf-style), and Swift cannot call C variadic
// functions. loctrack builds every command itself (gps_stream's 80-byte
// buffer truncates long /dev/serial/by-id paths into invalid JSON), so the
// only format it ever needs is "%s".
static inline int loctrack_gps_send_command(struct gps_data_t *gpsdata, const char *command) {
    return gps_send(gpsdata, "%s", command);
}

// The socket libgps opened. On Linux socket_t is an int; going through a
// function keeps the field's platform-dependent type out of Swift.
static inline int loctrack_gps_socket(const struct gps_data_t *gpsdata) {
    return (int)gpsdata->gps_fd;
}

// The API major version this header declares: libgps 3.22 is 11. Field
// mix-ups that loctrack corrects (see GPSD/TPVDecoding.swift) are specific
// to it.
static inline int loctrack_gps_api_major(void) {
    return GPSD_API_MAJOR_VERSION;
}

#endif
