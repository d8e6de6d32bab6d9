/*
 * flood_gpsd: a gpsd 3.22 stand-in on loopback TCP for loctrack's benchmark
 * (Benchmarks/run.py) and fault-injection suite (scripts/faults; without a C
 * compiler it uses a Python stand-in, the scripted gpsd with a generated script).
 *
 * It speaks the part of gpsd's protocol a watching client sees, with reports
 * formatted byte for byte as gpsd 3.22 formats them (compact JSON, gpsd's field
 * order and printf precisions, "\r\n" line ends; libgps matches the class by
 * its exact text):
 *
 *   on accept           {"class":"VERSION",...}
 *   on the client's ?WATCH
 *                       {"class":"DEVICES","devices":[{"class":"DEVICE",...}]}
 *                       {"class":"WATCH","enable":true,"json":true,...}
 *                       {"class":"DEVICE","path":...,"driver":"u-blox",...}
 *   then N epochs       one TPV (mode 3, DGPS, moving) + one SKY (-k satellites,
 *                       ~1.35 KB for 16), each epoch with a distinct time,
 *                       -s milliseconds after the previous one; with -t, the
 *                       TPV alone (what a client that reads only fixes costs);
 *                       with -o N, track N: the walk starts N x 0.001 degrees
 *                       (~111 m of latitude) north and east of track 0, so
 *                       that emulators feeding a fleet each have a track of
 *                       their own
 *   then                FIN (after -l seconds of silence, if given); it waits
 *                       for the client to close its end before the next accept.
 *
 * Modes:
 *   flood (-r 0, default)  epochs are written as fast as the socket accepts them:
 *                          blocking writes of 256 KB batches, big send buffer.
 *   paced (-r HZ)          epoch k is written at G + k/HZ on CLOCK_MONOTONIC, G
 *                          on a grid of 1/HZ plus -P milliseconds (so several
 *                          emulators can be kept out of phase); each epoch is
 *                          one write(2) holding its reports, and CLOCK_MONOTONIC
 *                          is read just before that write. With -T FILE, one line
 *                          per epoch "TIME MONO_NS" goes to FILE at the end.
 *
 * Usage: flood_gpsd [-p PORT] [-n EPOCHS] [-r HZ] [-P PHASE_MS] [-s STEP_MS]
 *                   [-k SATELLITES | -t] [-l LINGER_S] [-C CLIENTS] [-T STAMPFILE]
 *                   [-W WATCH_TIMEOUT_S] [-o TRACK]
 * Prints the port it listens on (127.0.0.1) as one line on stdout when ready.
 * -C 0 serves clients forever; default 1. Exit 0 when done, 1 on errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEVICE_PATH "/dev/ttyACM0"
#define BATCH_BYTES (256 * 1024)
#define SKY_VARIANTS 8

static const char *version_line =
    "{\"class\":\"VERSION\",\"release\":\"3.22\",\"rev\":\"3.22\",\"proto_major\":3,\"proto_minor\":14}\r\n";
static const char *devices_line =
    "{\"class\":\"DEVICES\",\"devices\":[{\"class\":\"DEVICE\",\"path\":\"" DEVICE_PATH "\",\"driver\":\"u-blox\","
    "\"subtype\":\"SW EXT CORE 4.04 (7f89f7),HW 00190000\",\"subtype1\":\"ROM BASE 0x118B2060,FWVER=SPG 4.04,PROTVER=32.01,"
    "GPS;GLO;GAL;BDS,SBAS;QZSS\",\"activated\":\"2025-01-01T00:00:00.000Z\",\"flags\":1,\"native\":1,\"bps\":9600,"
    "\"parity\":\"N\",\"stopbits\":1,\"cycle\":1.00,\"mincycle\":0.02}]}\r\n";
static const char *watch_line =
    "{\"class\":\"WATCH\",\"enable\":true,\"json\":true,\"nmea\":false,\"raw\":0,\"scaled\":false,\"timing\":false,"
    "\"split24\":false,\"pps\":false}\r\n";
static const char *device_line =
    "{\"class\":\"DEVICE\",\"path\":\"" DEVICE_PATH "\",\"driver\":\"u-blox\",\"subtype\":\"SW EXT CORE 4.04 (7f89f7),"
    "HW 00190000\",\"subtype1\":\"ROM BASE 0x118B2060,FWVER=SPG 4.04,PROTVER=32.01,GPS;GLO;GAL;BDS,SBAS;QZSS\","
    "\"activated\":\"2025-01-01T00:00:00.000Z\",\"flags\":1,\"native\":1,\"bps\":9600,\"parity\":\"N\",\"stopbits\":1,"
    "\"cycle\":1.00,\"mincycle\":0.02}\r\n";

/* The 26 satellites of a u-blox NEO-M9N SKY report (gpsd-logs/ublox-neo-m9n-nmea). */
static const struct { int prn, el, az, ss, used, gnssid, svid; } sats[] = {
    {5, 1, 47, 0, 0, 0, 5},       {10, 29, 224, 0, 0, 0, 10},   {13, 22, 62, 23, 1, 0, 13},
    {15, 40, 94, 0, 0, 0, 15},    {16, 25, 306, 30, 1, 0, 16},  {18, 68, 358, 39, 1, 0, 18},
    {20, 63, 235, 37, 1, 0, 20},  {21, 35, 292, 0, 0, 0, 21},   {23, 58, 225, 0, 0, 0, 23},
    {25, 0, 179, 0, 0, 0, 25},    {26, 33, 265, 35, 1, 0, 26},  {27, 7, 316, 0, 0, 0, 27},
    {29, 46, 133, 43, 1, 0, 29},  {44, 45, 171, 45, 1, 1, 131}, {46, 45, 191, 43, 0, 1, 133},
    {51, 43, 156, 43, 1, 1, 138}, {66, 9, 27, 0, 0, 6, 2},      {67, 56, 54, 40, 1, 6, 3},
    {68, 55, 168, 44, 1, 6, 4},   {69, 8, 194, 21, 0, 6, 5},    {73, 13, 282, 27, 1, 6, 9},
    {74, 10, 318, 13, 1, 6, 10},  {81, 9, 110, 16, 1, 6, 17},   {82, 51, 77, 39, 1, 6, 18},
    {83, 52, 346, 29, 1, 6, 19},  {84, 5, 307, 0, 0, 6, 20},
};
#define MAX_SATS ((int)(sizeof sats / sizeof sats[0]))

static char *sky[SKY_VARIANTS];
static size_t sky_len[SKY_VARIANTS];
static int tpv_only;  /* -t: no SKY after the TPV */
static double track_offset;  /* -o N: N x 0.001 degrees north and east */

static void die(const char *what) {
    fprintf(stderr, "flood_gpsd: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* SKY variants: the first k satellites, signal strengths jittered per variant. */
static void build_sky(int k) {
    for (int v = 0; v < SKY_VARIANTS; v++) {
        char *buf = malloc(8192);
        if (!buf) die("malloc");
        int used = 0;
        for (int i = 0; i < k; i++) used += sats[i].used;
        static const char *xdop[] = {"0.66", "0.64", "0.67", "0.65"};
        static const char *hdop[] = {"0.54", "0.53", "0.55", "0.54"};
        size_t n = (size_t)snprintf(buf, 8192,
            "{\"class\":\"SKY\",\"device\":\"" DEVICE_PATH "\",\"xdop\":%s,\"ydop\":0.84,\"vdop\":0.83,\"tdop\":1.37,"
            "\"hdop\":%s,\"gdop\":2.70,\"pdop\":0.99,\"nSat\":%d,\"uSat\":%d,\"satellites\":[",
            xdop[v % 4], hdop[v % 4], k, used);
        for (int i = 0; i < k; i++) {
            int ss = sats[i].ss ? sats[i].ss + ((v + i) % 3) - 1 : 0;
            n += (size_t)snprintf(buf + n, 8192 - n,
                "%s{\"PRN\":%d,\"el\":%d.0,\"az\":%d.0,\"ss\":%d.0,\"used\":%s,\"gnssid\":%d,\"svid\":%d}",
                i ? "," : "", sats[i].prn, sats[i].el, sats[i].az, ss, sats[i].used ? "true" : "false",
                sats[i].gnssid, sats[i].svid);
        }
        n += (size_t)snprintf(buf + n, 8192 - n, "]}\r\n");
        sky[v] = buf;
        sky_len[v] = n;
    }
}

/* ISO 8601 with milliseconds, as gpsd prints TPV.time; the date part is cached per second. */
static size_t format_time(char *out, int64_t ms_since_epoch) {
    static int64_t cached_sec = -1;
    static char cached[32];
    int64_t sec = ms_since_epoch / 1000;
    if (sec != cached_sec) {
        time_t t = (time_t)sec;
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm);
        cached_sec = sec;
    }
    return (size_t)sprintf(out, "%s.%03dZ", cached, (int)(ms_since_epoch % 1000));
}

/* One epoch (TPV, then SKY unless -t) appended at out; returns its length. `stamp` gets the time text. */
static size_t format_epoch(char *out, long k, int64_t time_ms, char *stamp) {
    char when[40];
    format_time(when, time_ms);
    if (stamp) strcpy(stamp, when);
    /* A receiver walking north-east at ~1.4 m/s, with gpsd's own precisions. */
    double lat = 38.110494000 + track_offset + (double)k * 1.2e-6;
    double lon = -122.626897000 + track_offset + (double)k * 1.5e-6;
    double alt_msl = 83.1 + (double)(k % 50) * 0.1;
    double speed = 1.400 + (double)(k % 7) * 0.011;
    double track = 44.1234 + (double)(k % 11) * 0.1;
    size_t n = (size_t)sprintf(out,
        "{\"class\":\"TPV\",\"device\":\"" DEVICE_PATH "\",\"status\":2,\"mode\":3,\"time\":\"%s\",\"ept\":0.005,"
        "\"lat\":%.9f,\"lon\":%.9f,\"altHAE\":%.4f,\"altMSL\":%.4f,\"alt\":%.4f,\"epx\":1.000,\"epy\":1.000,"
        "\"epv\":3.000,\"track\":%.4f,\"magtrack\":%.4f,\"magvar\":13.4,\"speed\":%.3f,\"climb\":%.3f,"
        "\"eps\":2.00,\"epc\":6.00,\"geoidSep\":-29.500,\"eph\":2.707,\"sep\":5.083}\r\n",
        when, lat, lon, alt_msl - 29.5, alt_msl, alt_msl, track, track + 13.4, speed, (k % 3 - 1) * 0.1);
    if (tpv_only) return n;
    int v = (int)(k % SKY_VARIANTS);
    memcpy(out + n, sky[v], sky_len[v]);
    return n + sky_len[v];
}

/* Blocking write of everything; false when the client went away. */
static int write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 1;
}

/* Reads the client's requests until one contains a whole ?WATCH (enable not false). */
static int wait_for_watch(int fd, int timeout_s) {
    char req[4096];
    size_t have = 0;
    int64_t deadline = mono_ns() + (int64_t)timeout_s * 1000000000LL;
    for (;;) {
        int64_t left = (deadline - mono_ns()) / 1000000;
        if (left <= 0) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        ssize_t got = read(fd, req + have, sizeof req - 1 - have);
        if (got <= 0) return 0;
        have += (size_t)got;
        req[have] = 0;
        char *w = strstr(req, "?WATCH");
        /* gpsd ends a command at ";" or at the end of the line (python-gps sends no ";"). */
        if (w && strpbrk(w, ";\n")) return !strstr(w, "\"enable\":false");
        if (have > sizeof req / 2) {  /* keep the tail only */
            memmove(req, req + have - 64, 64);
            have = 64;
        }
    }
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int main(int argc, char **argv) {
    int port = 0, sats_count = 16, clients = 1, watch_timeout = 20;
    long epochs = 1000;
    double rate = 0, phase_ms = 0, linger = 0;
    int64_t step_ms = -1;
    const char *stamp_path = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "p:n:r:P:s:k:tl:C:T:W:o:")) != -1) {
        switch (opt) {
        case 'p': port = atoi(optarg); break;
        case 'n': epochs = atol(optarg); break;
        case 'r': rate = atof(optarg); break;
        case 'P': phase_ms = atof(optarg); break;
        case 's': step_ms = atoll(optarg); break;
        case 'k': sats_count = atoi(optarg); break;
        case 't': tpv_only = 1; break;
        case 'l': linger = atof(optarg); break;
        case 'C': clients = atoi(optarg); break;
        case 'T': stamp_path = optarg; break;
        case 'W': watch_timeout = atoi(optarg); break;
        case 'o': track_offset = atoi(optarg) * 0.001; break;
        default:
            fprintf(stderr, "usage: flood_gpsd [-p PORT] [-n EPOCHS] [-r HZ] [-P PHASE_MS] [-s STEP_MS] "
                            "[-k SATS | -t] [-l LINGER_S] [-C CLIENTS] [-T STAMPFILE] [-W WATCH_TIMEOUT_S] [-o TRACK]\n");
            return 2;
        }
    }
    if (sats_count < 1) sats_count = 1;
    if (sats_count > MAX_SATS) sats_count = MAX_SATS;
    if (step_ms <= 0) step_ms = rate > 0 ? (int64_t)(1000.0 / rate + 0.5) : 100;
    if (step_ms <= 0) step_ms = 1;
    signal(SIGPIPE, SIG_IGN);
    build_sky(sats_count);

    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0) die("socket");
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons((uint16_t)port);
    if (bind(ls, (struct sockaddr *)&addr, sizeof addr) < 0) die("bind");
    if (listen(ls, 16) < 0) die("listen");
    socklen_t alen = sizeof addr;
    getsockname(ls, (struct sockaddr *)&addr, &alen);
    printf("%d\n", ntohs(addr.sin_port));
    fflush(stdout);

    char *batch = malloc(BATCH_BYTES + 16384);
    if (!batch) die("malloc");
    /* Epoch times start at 2025-01-01T00:00:00.000Z and advance by step_ms. */
    const int64_t base_ms = 1735689600000LL;
    int64_t *stamps = NULL;
    char (*stamp_times)[32] = NULL;
    if (stamp_path && rate > 0) {
        stamps = calloc((size_t)epochs + 1, sizeof *stamps);
        stamp_times = calloc((size_t)epochs + 1, sizeof *stamp_times);
        if (!stamps || !stamp_times) die("calloc");
    }

    for (int served = 0; clients == 0 || served < clients; served++) {
        int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR) { served--; continue; }
            die("accept");
        }
        int sndbuf = 4 * 1024 * 1024;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        long sent = 0;
        if (!write_all(fd, version_line, strlen(version_line))) goto done;
        if (!wait_for_watch(fd, watch_timeout)) {
            fprintf(stderr, "flood_gpsd: no ?WATCH from the client\n");
            goto done;
        }
        {
            size_t n = 0;
            n += (size_t)sprintf(batch + n, "%s", devices_line);
            n += (size_t)sprintf(batch + n, "%s", watch_line);
            n += (size_t)sprintf(batch + n, "%s", device_line);
            if (!write_all(fd, batch, n)) goto done;
        }
        if (rate <= 0) {
            size_t n = 0;
            for (long k = 0; k < epochs; k++) {
                n += format_epoch(batch + n, k, base_ms + k * step_ms, NULL);
                if (n >= BATCH_BYTES) {
                    if (!write_all(fd, batch, n)) goto done;
                    n = 0;
                    sent = k + 1;
                }
            }
            if (n && !write_all(fd, batch, n)) goto done;
            sent = epochs;
        } else {
            int64_t period = (int64_t)(1e9 / rate);
            int64_t phase = (int64_t)(phase_ms * 1e6);
            /* First epoch on the grid, at least 100 ms after the watch. */
            int64_t first = ceil_div(mono_ns() + 100000000LL - phase, period) * period + phase;
            for (long k = 0; k < epochs; k++) {
                int64_t due = first + k * period;
                struct timespec ts = {(time_t)(due / 1000000000LL), (long)(due % 1000000000LL)};
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
                char when[32];
                size_t n = format_epoch(batch, k, base_ms + k * step_ms, when);
                int64_t now = mono_ns();
                if (!write_all(fd, batch, n)) goto done;
                if (stamps) {
                    stamps[k] = now;
                    memcpy(stamp_times[k], when, sizeof when);
                }
                sent = k + 1;
            }
        }
        if (linger > 0) {
            struct timespec ts = {(time_t)linger, (long)((linger - (double)(time_t)linger) * 1e9)};
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
        }
    done:
        /* FIN, then wait (bounded) for the client to close, so that unread
         * requests do not turn our close into a reset. */
        shutdown(fd, SHUT_WR);
        {
            char sink[4096];
            int64_t deadline = mono_ns() + 30000000000LL;
            for (;;) {
                int64_t left = (deadline - mono_ns()) / 1000000;
                if (left <= 0) break;
                struct pollfd p = {fd, POLLIN, 0};
                int r = poll(&p, 1, (int)left);
                if (r < 0 && errno == EINTR) continue;
                if (r <= 0) break;
                if (read(fd, sink, sizeof sink) <= 0) break;
            }
        }
        close(fd);
        if (stamps) {
            FILE *f = fopen(stamp_path, "w");
            if (!f) die(stamp_path);
            for (long k = 0; k < sent; k++) fprintf(f, "%s %lld\n", stamp_times[k], (long long)stamps[k]);
            fclose(f);
        }
        if (sent < epochs) fprintf(stderr, "flood_gpsd: client left after %ld of %ld epochs\n", sent, epochs);
    }
    return 0;
}
