# loctrack: build, test, demo and install.
#
#   make / make build     release build: .build/release/loctrack
#   make deps             install what is missing (apt, sudo when not root): libgps-dev, gpsd,
#                         gpsd-clients; mosquitto, mosquitto-clients, libmosquitto-dev (MQTT)
#   make test             debug build + swift test (swift-testing): unit, reader (socketpair
#                         gpsd), fuzz, and end-to-end tests against a real gpsd via gpsfake
#   make demo             replay demo/track.nmea through gpsfake + gpsd into `loctrack stream`
#                         (variables: CYCLE=0.02 seconds between NMEA sentences, 0.2 is about
#                         real time; FORMAT=text|json)
#   make demo-monitor     the same drive through `loctrack monitor run` with three geofences
#   make install          $(DESTDIR)$(PREFIX)/bin/loctrack and man page (PREFIX=/usr/local)
#   make uninstall        removes what install put there
#   make clean            swift package clean + remove .build
#   make fuzz             the fuzz test over gpsd's real captures (../shared/gpsd-logs)
#   make conformance      every real receiver recording: loctrack's fixes must be gpsd's epochs
#   make faults           fault injection (make faults-long: plus a 1,000,000-fix run)
#   make bench            loctrack against the C libgps client, gpspipe, gpspipe | jq and
#                         python's gps client (make bench-smoke: toy sizes, for CI)
#   Each is described with its variables further down.
#
# Longer shell logic lives in scripts/, not here.

SHELL := /bin/bash

# Swift: the one on PATH, else the toolchain at /opt/swift.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SWIFT_BIN_DIR := $(patsubst %/,%,$(dir $(SWIFT)))
ifneq ($(SWIFT_BIN_DIR),.)
export PATH := $(SWIFT_BIN_DIR):$(PATH)
endif
# Extra flags for the release build, e.g. SWIFT_BUILD_FLAGS=--static-swift-stdlib for a
# binary that does not need the Swift runtime libraries of this toolchain at run time.
SWIFT_BUILD_FLAGS ?= --static-swift-stdlib
SWIFT_TEST_FLAGS ?=

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man
INSTALL ?= install

BIN := .build/release/loctrack
MANPAGE := docs/loctrack.1

CYCLE ?= 0.02
FORMAT ?= text

.DEFAULT_GOAL := build

.PHONY: all build deps test demo demo-monitor install uninstall clean help

all: build

help:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS)
	@echo "built $(BIN)"

# Debug build first: the tests run the `loctrack` executable that sits next to
# the test bundle in .build/debug.
test: deps
	$(SWIFT) build
	$(SWIFT) test $(SWIFT_TEST_FLAGS)

demo: build
	@CYCLE='$(CYCLE)' FORMAT='$(FORMAT)' LOCTRACK='$(BIN)' bash scripts/demo.sh

# The same drive through `loctrack monitor run` with three geofences (docs/monitor.md).
demo-monitor: build
	@MODE=monitor CYCLE='$(CYCLE)' FORMAT='$(FORMAT)' LOCTRACK='$(BIN)' bash scripts/demo.sh

# Installs what is already built; builds only when the binary is missing, so
# `make && sudo make install` does not compile as root.
$(BIN):
	$(MAKE) build

install: $(BIN)
	$(INSTALL) -d '$(DESTDIR)$(BINDIR)'
	$(INSTALL) -m 0755 $(BIN) '$(DESTDIR)$(BINDIR)/loctrack'
	@if [ -f $(MANPAGE) ]; then \
		echo "$(INSTALL) -m 0644 $(MANPAGE) '$(DESTDIR)$(MANDIR)/man1/loctrack.1'"; \
		$(INSTALL) -d '$(DESTDIR)$(MANDIR)/man1' && \
		$(INSTALL) -m 0644 $(MANPAGE) '$(DESTDIR)$(MANDIR)/man1/loctrack.1'; \
	else \
		echo "note: $(MANPAGE) not found, man page not installed"; \
	fi

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/loctrack' '$(DESTDIR)$(MANDIR)/man1/loctrack.1'

clean:
	-$(SWIFT) package clean
	rm -rf .build

# Further targets (benchmarks, conformance runs against the gpsd logs, fault
# injection) go below this line, each as a .PHONY target that depends on
# `build` or `deps` and keeps its shell logic in scripts/.

# ---------------------------------------------------------------------------
# fuzz: the fuzz test over gpsd's real captures (make test runs 100,000 mutations
# of a built-in corpus; this runs FUZZ_ITERATIONS mutations of ../shared/gpsd-logs).
# ---------------------------------------------------------------------------
FUZZ_ITERATIONS ?= 300000
FUZZ_SEED ?= 1

.PHONY: fuzz
fuzz: deps
	$(SWIFT) build --build-tests
	LOCTRACK_FUZZ_CORPUS='$(or $(GPSD_LOGS),../shared/gpsd-logs)' LOCTRACK_FUZZ_ITERATIONS=$(FUZZ_ITERATIONS) \
		LOCTRACK_FUZZ_SEED=$(FUZZ_SEED) $(SWIFT) test --skip-build --filter ReportFuzzTests

# ---------------------------------------------------------------------------
# conformance: loctrack's fixes must be exactly gpsd's epochs (scripts/conformance.py)
#
#   make conformance     release build, then every NAME.log in ../shared/gpsd-logs
#                        (GPSD_LOGS=... to override) replayed three ways: the JSON capture
#                        through the library's reader in the Swift suite (a socketpair plays
#                        gpsd: ConformanceReplayTests, which make test runs on three committed
#                        captures), the JSON capture
#                        through a scripted gpsd (scripts/fake_gpsd.py), and the raw log
#                        through gpsfake into a real gpsd; prints a table per way and
#                        fails on any difference. Artifacts: out/conformance/.
#                        Variables: LOCTRACK=path to another binary (default $(BIN)),
#                        CONFORMANCE_FLAGS='--jobs 4 --only sirf2 --way scripted ...'
#                        (see python3 scripts/conformance.py --help).
# ---------------------------------------------------------------------------
LOCTRACK ?= $(BIN)
PYTHON ?= python3
CONFORMANCE_FLAGS ?=

.PHONY: conformance
conformance: build
	$(SWIFT) build --build-tests
	LOCTRACK_GPSD_LOGS='$(or $(GPSD_LOGS),../shared/gpsd-logs)' $(SWIFT) test --skip-build --filter ConformanceReplay
	LOCTRACK='$(LOCTRACK)' $(if $(GPSD_LOGS),GPSD_LOGS='$(GPSD_LOGS)') $(PYTHON) scripts/conformance.py $(CONFORMANCE_FLAGS)
	LOCTRACK='$(LOCTRACK)' $(if $(GPSD_LOGS),GPSD_LOGS='$(GPSD_LOGS)') $(PYTHON) scripts/quirks.py

# ---------------------------------------------------------------------------
# bench: loctrack against a C libgps client, `gpspipe -w`, `gpspipe -w | jq -c .` and
# gpsd's Python client (Benchmarks/run.py, docs/performance.md)
#
#   make bench           release build of loctrack (the one in .build), the C reference
#                        client and the flood gpsd emulator (in Benchmarks/bin), GNU time, jq
#                        and python3-gps when missing (apt-get), then the full benchmark
#                        (about 13 minutes on 2 cores): flood-tpv and flood-sky, steady
#                        1 Hz / 10 Hz, latency, idle, `once` on a warm and on a cold gpsd,
#                        long flood, monitor (`monitor run` with 10,000 polygons against
#                        `stream` on both floods, target CPU per fix ≤ 2 × stream; about
#                        80 s for its 5 rounds), publish (`stream --publish` into a local
#                        mosquitto against `stream | mosquitto_pub -l`, both floods, target
#                        at least as fast) and fleet (50 publishing loctracks at 10 Hz for
#                        30 s into one mosquitto); these two need mosquitto and
#                        mosquitto-clients (`make deps`), else they are left out with a note.
#                        Prints the table and writes Benchmarks/results/latest.md.
#                        BENCH_FLAGS='--rounds 7 --only flood,once,monitor ...' (run.py --help).
#   make bench-smoke     the same at toy sizes (about 40 s, monitor: 200 polygons, ~1 s; publish:
#                        500 messages, fleet: 5 trackers for 2 s, ~4 s together; table in
#                        Benchmarks/bin/smoke.md):
#                        fails only if something does not build, run or print the right fixes.
#                        Clients whose tools cannot be installed are left out with a note.
# ---------------------------------------------------------------------------
BENCH_BIN := Benchmarks/bin
BENCH_SCRATCH := .build
BENCH_LOCTRACK := $(BENCH_SCRATCH)/release/loctrack
# Any C compiler: cc, else gcc, else the clang that ships with the Swift toolchain.
BENCH_CC ?= $(shell command -v cc 2>/dev/null || command -v gcc 2>/dev/null || echo $(patsubst %/,%,$(dir $(SWIFT)))/clang)
BENCH_CFLAGS ?= -O2 -Wall -Wextra
BENCH_FLAGS ?=

.PHONY: bench bench-smoke bench-build bench-tools
bench-build: deps
	$(SWIFT) build -c release --scratch-path $(BENCH_SCRATCH) $(SWIFT_BUILD_FLAGS)
	@mkdir -p $(BENCH_BIN)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $(BENCH_BIN)/flood_gpsd Benchmarks/emulator/flood_gpsd.c
	$(BENCH_CC) $(BENCH_CFLAGS) -o $(BENCH_BIN)/gpsclient Benchmarks/c-client/gpsclient.c \
		$$(pkg-config --cflags --libs libgps 2>/dev/null || echo -lgps) -lm

# GNU time (exact peak RSS), jq and python3-gps (two of the clients), only when missing.
bench-tools:
	@missing=""; \
	test -x /usr/bin/time || missing="$$missing time"; \
	command -v jq >/dev/null 2>&1 || missing="$$missing jq"; \
	/usr/bin/python3 -c 'import gps' 2>/dev/null || missing="$$missing python3-gps"; \
	if [ -n "$$missing" ]; then \
		echo "bench: installing$$missing"; \
		sudo=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$sudo apt-get install -y $$missing >/dev/null 2>&1 || \
		{ $$sudo apt-get update >/dev/null 2>&1 && $$sudo apt-get install -y $$missing >/dev/null 2>&1; } || \
		echo "bench: could not install$$missing; the benchmark leaves out what needs it"; \
	fi

bench: bench-build bench-tools
	$(or $(PYTHON),python3) Benchmarks/run.py --loctrack $(BENCH_LOCTRACK) $(BENCH_FLAGS)

bench-smoke: bench-build bench-tools
	$(or $(PYTHON),python3) Benchmarks/run.py --smoke --loctrack $(BENCH_LOCTRACK) $(BENCH_FLAGS)

# ---------------------------------------------------------------------------
# faults: fault injection (the package scripts/faults/; the behaviour it checks: docs/faults.md)
#
#   make faults          release build of loctrack in .build (FAULTS_SCRATCH: the one release
#                        build), the flood emulator compiled to .build/flood_gpsd, then
#                        faults 1-10 against scripted gpsds, gpsfake + a real gpsd and the flood
#                        emulator (about 70 s on 2 cores): gpsd missing, killed and
#                        restarted, not gpsd, half lines, bursts, overlong and malformed lines,
#                        device lost, stdout closed or stalled, SIGINT/SIGTERM. Prints PASS or
#                        FAIL with a measured figure per fault, then a table; fails on any FAIL.
#                        Artifacts and results.md: out/faults/.
#   make faults-long     the same plus fault 12: 1,000,000 fixes from the flood emulator,
#                        peak RSS at 100k and at 1M (about 50 s more).
#                        Variables: FAULTS_FLAGS='--only 2,9 --jobs 2 --stall 60'
#                        (python3 scripts/faults --help), FAULTS_LOCTRACK=another binary.
# ---------------------------------------------------------------------------
FAULTS_SCRATCH := .build
FAULTS_LOCTRACK ?= $(FAULTS_SCRATCH)/release/loctrack
FAULTS_CC ?= $(or $(BENCH_CC),cc)
FAULTS_FLAGS ?=

.PHONY: faults faults-long faults-build
faults-build: deps
	$(SWIFT) build -c release --scratch-path $(FAULTS_SCRATCH) $(SWIFT_BUILD_FLAGS)
	$(FAULTS_CC) -O2 -Wall -Wextra -o $(FAULTS_SCRATCH)/flood_gpsd Benchmarks/emulator/flood_gpsd.c \
		|| { rm -f $(FAULTS_SCRATCH)/flood_gpsd; echo "faults: flood_gpsd did not build; using the Python flood"; }

faults: faults-build
	$(or $(PYTHON),python3) scripts/faults --loctrack $(FAULTS_LOCTRACK) --flood $(FAULTS_SCRATCH)/flood_gpsd $(FAULTS_FLAGS)

faults-long: faults-build
	$(or $(PYTHON),python3) scripts/faults --loctrack $(FAULTS_LOCTRACK) --flood $(FAULTS_SCRATCH)/flood_gpsd --long $(FAULTS_FLAGS)
