/*
 * gpsclient: the C reference client for loctrack's benchmarks.
 *
 * The practical limit of a libgps client, written the way libgps is meant to
 * be used: gps_open, gps_stream(WATCH_ENABLE | WATCH_JSON), then block in
 * poll() on the socket and, on each wake-up, drain gps_read() until it returns
 * 0 (every complete line is parsed by libgps, SKY included), printing one JSON
 * line per TPV with mode >= 2: gpsd's field names, order and precisions, unknown
 * values left out (what `loctrack stream --format json` prints). stdout is fully
 * buffered and flushed once per wake-up, so a burst costs one write(2) and a
 * lone epoch is out as soon as it is parsed.
 *
 * Usage: gpsclient [--once] [HOST:PORT]      (default 127.0.0.1:2947)
 *   --once   exit 0 after the first TPV with mode >= 2 (WATCH, wait, print).
 * Exit: 0 when gpsd closes the connection (or after --once's fix); 1 on errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gps.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void field(const char *name, double value, int decimals) {
    if (isfinite(value)) printf(",\"%s\":%.*f", name, decimals, value);
}

static void print_fix(const struct gps_data_t *gps) {
    const struct gps_fix_t *f = &gps->fix;
    printf("{\"class\":\"TPV\"");
    if (gps->dev.path[0]) printf(",\"device\":\"%s\"", gps->dev.path);
    if (f->status >= 2) printf(",\"status\":%d", f->status);
    printf(",\"mode\":%d", f->mode);
    if (f->time.tv_sec || f->time.tv_nsec) {
        time_t sec = f->time.tv_sec;
        long ms = (f->time.tv_nsec + 500000) / 1000000;
        if (ms >= 1000) { sec += 1; ms -= 1000; }
        struct tm tm;
        char when[32];
        gmtime_r(&sec, &tm);
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
        printf(",\"time\":\"%s.%03ldZ\"", when, ms);
    }
    field("ept", f->ept, 3);
    field("lat", f->latitude, 9);
    field("lon", f->longitude, 9);
    field("altHAE", f->altHAE, 4);
    field("altMSL", f->altMSL, 4);
    field("epx", f->epx, 3);
    field("epy", f->epy, 3);
    field("epv", f->epv, 3);
    field("track", f->track, 4);
    field("magtrack", f->magnetic_track, 4);
    field("magvar", f->magnetic_var, 1);
    field("speed", f->speed, 3);
    field("climb", f->climb, 3);
    field("epd", f->epd, 4);
    field("eps", f->eps, 2);
    field("epc", f->epc, 2);
    field("geoidSep", f->geoid_sep, 3);
    field("eph", f->eph, 3);
    field("sep", f->sep, 3);
    fputs("}\n", stdout);
}

int main(int argc, char **argv) {
    int once = 0;
    const char *source = "127.0.0.1:2947";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--once")) once = 1;
        else source = argv[i];
    }
    char host[256] = "127.0.0.1", port[32] = "2947";
    const char *colon = strrchr(source, ':');
    if (colon) {
        snprintf(host, sizeof host, "%.*s", (int)(colon - source), source);
        snprintf(port, sizeof port, "%s", colon + 1);
    } else {
        snprintf(host, sizeof host, "%s", source);
    }

    signal(SIGPIPE, SIG_IGN);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

    struct gps_data_t *gps = calloc(1, sizeof *gps);  /* 24 KB: not on the stack */
    if (!gps) return 1;
    if (gps_open(host, port, gps) != 0) {
        fprintf(stderr, "gpsclient: %s:%s: %s\n", host, port, gps_errstr(errno));
        return 1;
    }
    gps_stream(gps, WATCH_ENABLE | WATCH_JSON, NULL);

    char message[32];  /* enough to tell the class from the line's start */
    struct pollfd pfd = {gps->gps_fd, POLLIN, 0};
    for (;;) {
        if (poll(&pfd, 1, -1) < 0) {
            if (errno == EINTR) continue;
            perror("gpsclient: poll");
            return 1;
        }
        for (;;) {
            gps->set = 0;  /* libgps only clears PACKET_SET itself */
            int r = gps_read(gps, message, sizeof message);
            if (r == 0) break;  /* no complete line left: sleep in poll() again */
            if (r < 0) {        /* EOF or error: gpsd is gone */
                fflush(stdout);
                gps_close(gps);
                return 0;
            }
            if (strncmp(message, "{\"class\":\"TPV\"", 14) == 0 && gps->fix.mode >= MODE_2D) {
                print_fix(gps);
                if (once) {
                    fflush(stdout);
                    gps_close(gps);
                    return 0;
                }
            }
        }
        if (fflush(stdout) != 0) return errno == EPIPE ? 0 : 1;
    }
}
