# loctrack: build, test, demo and install.
#
#   make / make build     release build: .build/release/loctrack, and beside it .build/release/loctrack-trips,
#                         the program `loctrack trips` runs (it reads GPX through libxml2, which
#                         loctrack itself never loads)
#   make serve            release build of the server of `loctrack serve` (the package Serve/,
#                         Hummingbird; scratch path Serve/.build), copied beside loctrack as
#                         .build/release/loctrack-serve, where `loctrack serve` finds it
#                         (builds loctrack first when it is missing); make serve-unit: its
#                         own tests (swift test --package-path Serve)
#   make deps             install what building and the demo need, when missing (apt, sudo
#                         when not root): libgps-dev, libmosquitto-dev, libxml2-dev,
#                         libcurl4-openssl-dev, gpsd, gpsd-clients, libjs-leaflet. Every other target installs what it alone needs
#                         (scripts/install-deps.sh GROUP): make test mosquitto,
#                         mosquitto-clients, zsh, fish; make deb dpkg-dev,
#                         lintian; make ha-test python3-venv; make serve-test and make bench
#                         python3-venv, chromium, chromium-driver, python3-selenium
#   make test-stress      make test 10 times and make serve-test 5 times on a fresh clone of HEAD
#                         while stress-ng keeps every core busy; fails on any failed run
#                         (scripts/test-stress.sh, docs/testing.md; about an hour on 2 cores)
#   make test             debug build + swift test (swift-testing): unit, reader (socketpair
#                         gpsd), fuzz, and end-to-end tests against a real gpsd via gpsfake;
#                         no Python of the project's (gpsfake itself is gpsd's Python): outputs
#                         are read back with Foundation (JSON, libxml2 for GPX) and an RFC 4180 reader
#   make demo             replay demo/track.nmea through gpsfake + gpsd into `loctrack stream`
#                         (variables: CYCLE=0.02 seconds between NMEA sentences, 0.2 is about
#                         real time; FORMAT=text|json)
#   make demo-monitor     the same drive through `loctrack monitor run` with three geofences
#   make install          $(DESTDIR)$(PREFIX)/bin/loctrack, $(PREFIX)/lib/loctrack/loctrack-serve,
#                         $(PREFIX)/lib/loctrack/loctrack-trips and the page in $(PREFIX)/share/loctrack/web/, man page, bash/zsh/fish
#                         completions, docs, the systemd units (where systemd is) and
#                         /etc/default/loctrack, /etc/default/loctrack-serve (PREFIX=/usr/local;
#                         builds what is missing; scripts/install.sh lists every path)
#   make uninstall        removes what install put there
#   make deb              loctrack_VERSION-1_ARCH.deb (static Swift runtime, in .build-deb),
#                         checked by lintian (docs/packaging.md)
#   make deb-arm64        loctrack_VERSION-1_arm64.deb for Debian 13 arm64 (a Raspberry Pi), made
#                         here: cross-built with Debian's swiftlang 6.2.3 (an amd64 unstable
#                         root), packaged with the arm64 root's strip and dpkg-shlibdeps, then
#                         installed with apt in an arm64 trixie root under qemu and run against
#                         gpsd 3.25 and the demo drive (stream, serve, trips); each stage timed.
#                         Needs root; here about 31 minutes the first time (17 of them the
#                         roots, made once), 14 with the roots made (scripts/arm64/,
#                         docs/packaging.md)
#   make arm64-root       only its three Debian roots, in $(ARM64_CACHE)/loctrack-arm64-* (made
#                         once, then cached; qemu-user-static installed and registered)
#   make check-unit       systemd-analyze verify on the systemd units, when systemd-analyze is there
#   make figures          docs/figures/architecture.dot from Package.swift and Serve/Package.swift
#                         (scripts/architecture-dot.py), then architecture.svg from it (Graphviz)
#   make figures-check    fails when architecture.dot or .svg is not what make figures makes
#   make clean            swift package clean + remove .build and Serve/.build
#   make fuzz             the fuzz test over gpsd's real captures (../shared/gpsd-logs)
#   make conformance      every real receiver recording: loctrack's fixes must be gpsd's epochs
#   make trixie-root      a Debian 13 (trixie) root with gpsd 3.25, libgps 3.25 and what make test
#                         needs, in $(TRIXIE_ROOT) (debootstrap once, then cached; scripts/trixie/)
#   make trixie-test      make test in that root, on a clone of HEAD plus uncommitted changes,
#                         with this machine's /opt/swift mounted (TRIXIE_TARGETS="demo test" for more;
#                         ../shared/gpsd-logs is mounted too, so TRIXIE_TARGETS=conformance runs there;
#                         TRIXIE_TARGETS=trixie-lane is CI's: make test beside the conformance
#                         run's replays, then the demo)
#   make trixie-deb       make deb and make deb-check in that root: the Debian 13 package, installed
#                         there with apt and run (stream against gpsd 3.25, serve, trips)
#   make deb-check        installs the loctrack_*.deb make deb left here with apt, runs stream (the
#                         demo drive through gpsfake), serve and trips from it, purges it (root or sudo)
#   make faults           fault injection (make faults-long: plus a 1,000,000-fix run)
#   make kills            monitor run killed 200 times, stream recording and publishing 100
#                         times: nothing lost (the SIGKILL tests of make test, full counts)
#   make ha-test          loctrack's Home Assistant features against a real Home Assistant core
#                         (2024.3.3 in .build-ha/venv), a real mosquitto and gpsfake (scripts/ha/)
#   make ha-deps          only the Home Assistant venv (.build-ha/venv)
#   make bench            loctrack against the C libgps client, its Swift port, gpspipe,
#                         gpspipe | jq and python's gps client, `loctrack trips` against gpxpy
#                         (make bench-smoke: toy sizes, for CI)
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
# The program `loctrack trips` runs, built beside loctrack by `build` (the same package).
TRIPS_BIN := $(dir $(BIN))loctrack-trips
MANPAGE := docs/loctrack.1

CYCLE ?= 0.02
FORMAT ?= text

.DEFAULT_GOAL := build

.PHONY: all build serve serve-unit deps test-deps deb-deps browser-deps test demo demo-monitor completions install uninstall deb check-unit clean help figures figures-check

all: build

# docs/figures/architecture.dot from the manifests (`swift package dump-package` of both
# packages, through scripts/architecture-dot.py), so the figure shows the targets as they are
# declared, then architecture.svg from it (Graphviz, installed here only when missing: a tool
# for whoever changes the targets, not for building or testing).
FIGURES := docs/figures
figures:
	@bash scripts/install-deps.sh figures
	@work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
		$(SWIFT) package --scratch-path "$$work/root" dump-package > "$$work/root.json" && \
		$(SWIFT) package --package-path $(SERVE_DIR) --scratch-path "$$work/serve" dump-package > "$$work/serve.json" && \
		python3 scripts/architecture-dot.py "$$work/root.json" "$$work/serve.json" > $(FIGURES)/architecture.dot
	dot -Tsvg $(FIGURES)/architecture.dot -o $(FIGURES)/architecture.svg

# The committed figure against a fresh one: run after changing Package.swift's targets.
figures-check:
	@command -v dot >/dev/null 2>&1 || { echo "figures-check: needs Graphviz (make figures installs it)" >&2; exit 1; }
	@work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
		$(SWIFT) package --scratch-path "$$work/root" dump-package > "$$work/root.json" && \
		$(SWIFT) package --package-path $(SERVE_DIR) --scratch-path "$$work/serve" dump-package > "$$work/serve.json" && \
		python3 scripts/architecture-dot.py "$$work/root.json" "$$work/serve.json" > "$$work/architecture.dot" && \
		dot -Tsvg "$$work/architecture.dot" -o "$$work/architecture.svg" && \
		cmp -s "$$work/architecture.dot" $(FIGURES)/architecture.dot && cmp -s "$$work/architecture.svg" $(FIGURES)/architecture.svg || \
		{ echo "figures-check: $(FIGURES)/architecture.dot or .svg is not Package.swift's: make figures" >&2; exit 1; }
	@echo "figures-check: $(FIGURES)/architecture.dot and .svg are Package.swift's"

help:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

deps:
	@bash scripts/install-deps.sh build demo

# What only the tests need: a broker and its clients, the shells whose completions are checked.
test-deps:
	@bash scripts/install-deps.sh test

deb-deps:
	@bash scripts/install-deps.sh deb

# The openssl command, which makes the Traccar https test's own CA and certificate.
traccar-deps:
	@bash scripts/install-deps.sh traccar

# A real headless browser and Debian's Python with selenium (serve-test, the bench's page part).
browser-deps:
	@bash scripts/install-deps.sh venv browser

# wrk and nginx (nginx-light), the load and the rival of the bench's serve-tiles part.
bench-deps:
	@bash scripts/install-deps.sh bench

build: deps
	$(SWIFT) build -c release --product loctrack $(SWIFT_BUILD_FLAGS)
	$(SWIFT) build -c release --product loctrack-trips $(SWIFT_BUILD_FLAGS)
	@# loctrack-trips reads GPX through libxml2; loctrack itself must not load it.
	@if ldd $(BIN) | grep -q libxml2; then echo "$(BIN) links libxml2" >&2; exit 1; fi
	@if ldd $(BIN) | grep -q libsqlite3; then echo "$(BIN) links libsqlite3" >&2; exit 1; fi
	@echo "built $(BIN) and $(TRIPS_BIN) (loctrack without libxml2 or libsqlite3: ldd)"

# Debug build first: the tests run the `loctrack` executable that sits next to
# the test bundle in .build/debug.
# LOCTRACK_TESTS_REQUIRE_TOOLS: test-deps installed gpsd, mosquitto, zsh and fish, so a test that
# needs one runs (and fails if it is missing) instead of skipping (docs/testing.md).
test: deps test-deps
	$(SWIFT) build
	LOCTRACK_TESTS_REQUIRE_TOOLS=1 $(SWIFT) test $(SWIFT_TEST_FLAGS)

# Debian 13 (trixie): gpsd 3.25 and libgps 3.25 where this machine has Debian 12's 3.22. Both
# need root (debootstrap, chroot, namespaces); the root is made once (about 3 minutes) and kept.
TRIXIE_ROOT ?= /var/cache/loctrack-trixie
TRIXIE_TARGETS ?= test
.PHONY: trixie-root trixie-test trixie-deb
trixie-root:
	TRIXIE_ROOT=$(TRIXIE_ROOT) bash scripts/trixie/root.sh

trixie-test:
	TRIXIE_ROOT=$(TRIXIE_ROOT) TRIXIE_TARGETS="$(TRIXIE_TARGETS)" bash scripts/trixie/test.sh

# The package built in the root (in its .build: the root's clone keeps only .build between runs)
# and installed there with apt by the same check CI makes on Debian 12 (scripts/deb-check.sh).
trixie-deb:
	TRIXIE_ROOT=$(TRIXIE_ROOT) TRIXIE_TARGETS="deb deb-check DEB_SCRATCH=.build" bash scripts/trixie/test.sh

# The tests under load (scripts/test-stress.sh: STRESS_TEST_RUNS, STRESS_SERVE_RUNS, STRESS_CPUS,
# STRESS_DIR): a test that fails once under load is a defect.
.PHONY: test-stress
test-stress:
	@bash scripts/test-stress.sh

demo: build
	@CYCLE='$(CYCLE)' FORMAT='$(FORMAT)' LOCTRACK='$(BIN)' bash scripts/demo.sh

# The same drive through `loctrack monitor run` with three geofences (docs/monitor.md).
demo-monitor: build
	@MODE=monitor CYCLE='$(CYCLE)' FORMAT='$(FORMAT)' LOCTRACK='$(BIN)' bash scripts/demo.sh

# Installs what is already built; builds only when the binary is missing, so
# `make && make serve && sudo make install` does not compile as root.
$(BIN):
	$(MAKE) build

# The server of `loctrack serve`: a package of its own (Serve/Package.swift), so that the
# root package, `stream` and `once` never link SwiftNIO (docs/serve.md). Its release build
# goes to its own scratch path and is copied beside loctrack, the first place `loctrack
# serve` looks. loctrack is built first when missing: SwiftPM makes .build/release a link
# into its triple's folder, which a folder made here first would be in the way of.
SERVE_DIR := Serve
SERVE_SCRATCH ?= $(SERVE_DIR)/.build
SERVE_BIN := $(dir $(BIN))loctrack-serve

# `build` first, always: `loctrack serve` is the loctrack beside it, and a stale one lacks it.
serve: build
	$(SWIFT) build -c release --package-path $(SERVE_DIR) --scratch-path $(SERVE_SCRATCH) --product loctrack-serve \
		$(SWIFT_BUILD_FLAGS)
	cp $(SERVE_SCRATCH)/release/loctrack-serve $(SERVE_BIN)
	@# The server links the web layer and the formats, never the sinks' client libraries.
	@if ldd $(SERVE_BIN) | grep -q libmosquitto; then echo "$(SERVE_BIN) links libmosquitto" >&2; exit 1; fi
	@echo "built $(SERVE_BIN) (no libmosquitto: ldd)"

$(SERVE_BIN):
	$(MAKE) serve

# The glue's own tests (adapters, connection handlers, start and stop), a debug build of
# Serve/ (Hummingbird included: about 4 minutes the first time on 2 cores).
serve-unit: deps
	$(SWIFT) test --package-path $(SERVE_DIR) --scratch-path $(SERVE_SCRATCH)

# The shell completions, generated by the built binary from the option table its parser
# uses (loctrack completions bash|zsh|fish), beside that binary.
COMPLETIONS = $(dir $(BIN))completions

completions: $(BIN)
	@mkdir -p '$(COMPLETIONS)'
	$(BIN) completions bash > '$(COMPLETIONS)/loctrack.bash'
	$(BIN) completions zsh > '$(COMPLETIONS)/_loctrack'
	$(BIN) completions fish > '$(COMPLETIONS)/loctrack.fish'

# SYSTEMD_UNIT=auto installs the unit where systemd is (yes/no to decide); an existing
# /etc/default/loctrack is kept. scripts/install.sh lists every file and where it goes.
SYSTEMD_UNIT ?= auto
INSTALL_VARS = DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' BINDIR='$(BINDIR)' MANDIR='$(MANDIR)' INSTALL='$(INSTALL)' \
	BIN='$(BIN)' SERVE_BIN='$(SERVE_BIN)' TRIPS_BIN='$(TRIPS_BIN)' COMPLETIONS='$(COMPLETIONS)' SYSTEMD_UNIT='$(SYSTEMD_UNIT)'

# `build` makes both; the rule is for an install after a build of loctrack alone.
$(TRIPS_BIN):
	$(MAKE) build

install: $(BIN) $(TRIPS_BIN) $(SERVE_BIN) completions
	@$(INSTALL_VARS) bash scripts/install.sh install

uninstall:
	@$(INSTALL_VARS) bash scripts/install.sh uninstall

clean:
	-$(SWIFT) package clean
	rm -rf .build $(SERVE_SCRATCH)

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
#                        (GPSD_LOGS=... to override) replayed two ways: the JSON capture
#                        through the library's reader in the Swift suite (a socketpair plays
#                        gpsd: ConformanceReplayTests, which make test runs on three committed
#                        captures), and the raw log through gpsfake into a real gpsd and the
#                        release loctrack (scripts/conformance.py, a table); then
#                        scripts/quirks.py on that output. Fails on any difference.
#                        Artifacts: out/conformance/.
#                        Variables: LOCTRACK=path to another binary (default $(BIN)),
#                        CONFORMANCE_FLAGS='--jobs 4 --only sirf2 ...'
#                        (see python3 scripts/conformance.py --help).
# ---------------------------------------------------------------------------
LOCTRACK ?= $(BIN)
PYTHON ?= python3
CONFORMANCE_FLAGS ?=

.PHONY: conformance conformance-replays
conformance: build
	$(SWIFT) build --build-tests
	LOCTRACK_GPSD_LOGS='$(or $(GPSD_LOGS),../shared/gpsd-logs)' $(SWIFT) test --skip-build --filter ConformanceReplay
	$(MAKE) --no-print-directory conformance-replays

# Its replays through gpsfake alone (no SwiftPM: they can run beside a `swift test`).
conformance-replays:
	LOCTRACK='$(LOCTRACK)' $(if $(GPSD_LOGS),GPSD_LOGS='$(GPSD_LOGS)') $(PYTHON) scripts/conformance.py $(CONFORMANCE_FLAGS)
	LOCTRACK='$(LOCTRACK)' $(if $(GPSD_LOGS),GPSD_LOGS='$(GPSD_LOGS)') $(PYTHON) scripts/quirks.py

# What CI's trixie lane runs in the Debian 13 root (scripts/trixie/test.sh): the debug build and
# its tests, then make test with the recordings' ConformanceReplay cases (LOCTRACK_GPSD_LOGS)
# beside the conformance run's replays, both mostly waiting on gpsd (side by side: each its own
# gpsd and ports; SwiftPM holds .build for the whole of a swift test, so the replays, which
# need no SwiftPM, are the part that can run beside it); then the demo. Every part runs even
# after one failed; the target fails if any did. Without gpsd's recordings: make test and the demo.
.PHONY: trixie-lane
trixie-lane: deps test-deps
	$(SWIFT) build --build-tests
	@status=0; \
	if [ -d '$(or $(GPSD_LOGS),../shared/gpsd-logs)' ]; then \
		LOCTRACK_GPSD_LOGS='$(abspath $(or $(GPSD_LOGS),../shared/gpsd-logs))' $(MAKE) --no-print-directory -k -j2 -Otarget \
			-o build -o deps -o test-deps test conformance-replays LOCTRACK=.build/debug/loctrack || status=1; \
	else \
		$(MAKE) --no-print-directory -o deps -o test-deps test || status=1; \
	fi; \
	$(MAKE) --no-print-directory -o build demo BIN=.build/debug/loctrack || status=1; \
	exit $$status

# ---------------------------------------------------------------------------
# bench: loctrack against a C libgps client, its Swift port, `gpspipe -w`, `gpspipe -w | jq -c .`
# and gpsd's Python client (Benchmarks/run.py, docs/performance.md)
#
#   make bench           release build of loctrack (the one in .build), the C reference
#                        client, its Swift port (Benchmarks/swift-client/, a package of its own)
#                        and the flood gpsd emulator (scripts/support/flood_gpsd.c;
#                        all three built into Benchmarks/bin), GNU time, jq
#                        and python3-gps when missing (apt-get), then the full benchmark
#                        (about 13 minutes on 2 cores): flood-tpv and flood-sky, steady
#                        1 Hz / 10 Hz, latency, idle, `once` on a warm and on a cold gpsd,
#                        long flood, monitor (`monitor run` with 10,000 polygons against
#                        `stream` on both floods, target CPU per fix ≤ 2 × stream; about
#                        80 s for its 5 rounds), publish (`stream --publish` into a local
#                        mosquitto against `stream | mosquitto_pub -l`, both floods, target
#                        at least as fast) and fleet (50 publishing loctracks at 10 Hz for
#                        30 s into one mosquitto); these two need mosquitto and
#                        mosquitto-clients (`make bench` installs them), else they are left out with a note;
#                        udp (`stream --publish udp://` as NMEA and as JSON against gpsd's gps2udp -t,
#                        both floods at 10,000 epochs, into a UDP socket of the driver's; ~80 s);
#                        traccar (a 10,000-fix backlog drained by `stream --publish http://…` to the
#                        Traccar stand-in, scripts/support/traccar_standin.py, against curl on one
#                        keep-alive connection and curl once per position over 1,000; the stand-in's
#                        own ceiling; `stream --odometer` against `stream`, CPU per fix; a loctrack whose
#                        stream --help lacks --publish, http:// or --odometer fails the part, as one
#                        without loctrack-serve fails the serve parts);
#                        serve-tiles (`serve --tiles-file` against nginx serving the same tiles as
#                        files, wrk with 8 connections, a hot list of 400 tiles and a wide one of
#                        20,000, 10 s a run; wrk and nginx-light installed by bench-deps, about 60 s);
#                        trips (`loctrack trips` on a day of JSON lines, 86,400 TPVs, and on a GPX of
#                        100,000 points, against gpxpy, from PyPI into .build-bench/venv, and a json.loads
#                        + haversine loop: wall time, CPU, peak RSS; target ≤ 0.2 s for the day; ~40 s).
#                        Prints the table and writes Benchmarks/results/latest.md.
#                        BENCH_FLAGS='--rounds 7 --only flood,once,monitor ...' (run.py --help).
#   make bench-smoke     the same at toy sizes (about 40 s on 2 cores, monitor: 200 polygons, ~1 s; publish:
#                        500 messages, fleet: 5 trackers for 2 s, ~4 s together; traccar: 500
#                        positions, 50 curl processes, a few seconds; serve-tiles: 100 and 2,000 tiles,
#                        2 s a run; trips: 5,000 points each, once; table in
#                        Benchmarks/bin/smoke.md):
#                        fails if something does not build, run or print the right fixes, and if a
#                        tool is missing: it installs every tool, so it leaves nothing out.
# ---------------------------------------------------------------------------
BENCH_BIN := Benchmarks/bin
# The flood gpsd emulator, C, the one flood generator: the benchmark and the faults both run it,
# so it lives with the helpers the test tools share (scripts/support/).
FLOOD_GPSD_SRC := scripts/support/flood_gpsd.c
BENCH_SCRATCH := .build
# The C client's Swift port: a package of its own (not a product of loctrack's, so `swift build`
# and `make test` never build it), built with the same flags as loctrack.
SWIFT_CLIENT_DIR := Benchmarks/swift-client
BENCH_LOCTRACK := $(BENCH_SCRATCH)/release/loctrack
# Any C compiler: cc, else gcc, else the clang that ships with the Swift toolchain.
BENCH_CC ?= $(shell command -v cc 2>/dev/null || command -v gcc 2>/dev/null || echo $(patsubst %/,%,$(dir $(SWIFT)))/clang)
BENCH_CFLAGS ?= -O2 -Wall -Wextra
BENCH_FLAGS ?=

.PHONY: bench bench-smoke bench-build bench-tools bench-deps
bench-build: deps test-deps
	$(SWIFT) build -c release --product loctrack --scratch-path $(BENCH_SCRATCH) $(SWIFT_BUILD_FLAGS)
	@# The trips part runs `loctrack trips`, which is the program beside loctrack.
	$(SWIFT) build -c release --product loctrack-trips --scratch-path $(BENCH_SCRATCH) $(SWIFT_BUILD_FLAGS)
	@mkdir -p $(BENCH_BIN)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $(BENCH_BIN)/flood_gpsd $(FLOOD_GPSD_SRC)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $(BENCH_BIN)/gpsclient Benchmarks/c-client/gpsclient.c \
		$$(pkg-config --cflags --libs libgps 2>/dev/null || echo -lgps) -lm
	$(SWIFT) build -c release --package-path $(SWIFT_CLIENT_DIR) --scratch-path $(SWIFT_CLIENT_DIR)/.build \
		$(SWIFT_BUILD_FLAGS)
	cp $(SWIFT_CLIENT_DIR)/.build/release/gpsclient-swift $(BENCH_BIN)/gpsclient-swift

# GNU time (exact peak RSS), jq and python3-gps (two of the clients), curl (the traccar part's
# rival), only when missing.
bench-tools:
	@missing=""; \
	test -x /usr/bin/time || missing="$$missing time"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	command -v jq >/dev/null 2>&1 || missing="$$missing jq"; \
	/usr/bin/python3 -c 'import gps' 2>/dev/null || missing="$$missing python3-gps"; \
	if [ -n "$$missing" ]; then \
		echo "bench: installing$$missing"; \
		sudo=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$sudo apt-get install -y $$missing >/dev/null 2>&1 || \
		{ $$sudo apt-get update >/dev/null 2>&1 && $$sudo apt-get install -y $$missing >/dev/null 2>&1; } || \
		echo "bench: could not install$$missing; make bench leaves out what needs it, make bench-smoke fails"; \
	fi

bench: bench-build bench-tools bench-deps browser-deps serve
	$(or $(PYTHON),python3) Benchmarks/run.py --loctrack $(BENCH_LOCTRACK) $(BENCH_FLAGS)

bench-smoke: bench-build bench-tools bench-deps browser-deps serve
	$(or $(PYTHON),python3) Benchmarks/run.py --smoke --loctrack $(BENCH_LOCTRACK) $(BENCH_FLAGS)

# ---------------------------------------------------------------------------
# faults: fault injection (the package scripts/faults/; the behaviour it checks: docs/faults.md)
#
#   make faults          release build of loctrack in .build (FAULTS_SCRATCH: the one release
#                        build), the flood emulator (scripts/support/flood_gpsd.c) compiled
#                        to .build/flood_gpsd, then
#                        faults 1-11 against scripted gpsds, gpsfake + a real gpsd and the flood
#                        emulator (about 3 minutes on 2 cores): gpsd missing, killed and
#                        restarted, not gpsd, half lines, bursts, overlong and malformed lines,
#                        device lost, stdout closed or stalled, SIGINT/SIGTERM, 1,200 SIGKILLs
#                        while recording a track file (--output, every format). Prints PASS or
#                        FAIL with a measured figure per fault, then a table; fails on any FAIL.
#                        Artifacts and results.md: out/faults/.
#   make faults-long     the same plus fault 12: 1,000,000 fixes from the flood emulator,
#                        peak RSS at 100k and at 1M (about 50 s more on 2 cores).
#                        Variables: FAULTS_FLAGS='--only 2,9 --jobs 2 --stall 60'
#                        (python3 scripts/faults --help), FAULTS_LOCTRACK=another binary.
# ---------------------------------------------------------------------------
FAULTS_SCRATCH := .build
FAULTS_LOCTRACK ?= $(FAULTS_SCRATCH)/release/loctrack
FAULTS_CC ?= $(or $(BENCH_CC),cc)
FAULTS_FLAGS ?=

.PHONY: faults faults-long faults-build
faults-build: deps test-deps
	$(SWIFT) build -c release --product loctrack --scratch-path $(FAULTS_SCRATCH) $(SWIFT_BUILD_FLAGS)
	$(FAULTS_CC) -O2 -Wall -Wextra -o $(FAULTS_SCRATCH)/flood_gpsd $(FLOOD_GPSD_SRC)

faults: faults-build
	$(or $(PYTHON),python3) scripts/faults --loctrack $(FAULTS_LOCTRACK) --flood $(FAULTS_SCRATCH)/flood_gpsd $(FAULTS_FLAGS)

faults-long: faults-build
	$(or $(PYTHON),python3) scripts/faults --loctrack $(FAULTS_LOCTRACK) --flood $(FAULTS_SCRATCH)/flood_gpsd --long $(FAULTS_FLAGS)

# ---------------------------------------------------------------------------
# traccar-test: the Traccar uplink (`stream --publish http://HOST:PORT/?id=DEVICE`) end to end
# against a stand-in for Traccar's OsmAnd port (scripts/traccar/; what each test asserts: python3
# scripts/traccar --help and scripts/traccar/__init__.py; docs/traccar.md)
#
#   make traccar-standin-test  the stand-in (scripts/support/traccar_standin.py, the decoder's rules in
#                        osmand_decoder.py) against Traccar's own decoder test vectors and its rules,
#                        over real sockets too: Python alone, about 2 s
#   make traccar-test    release build of loctrack, the flood emulator compiled to .build/flood_gpsd,
#                        then the self-test and the tests, each with its own stand-in (a process, driven
#                        through its control port), gpsfake + a real gpsd replaying demo/track.nmea
#                        (tests 1-3) or the flood emulator (tests 4, 6), and gpspipe as the witness of what
#                        gpsd sent: 1 every fix once, in order, in Traccar's units; 2 an outage of 503s
#                        and closes without a reply with a SIGKILL inside it, restarted on the same
#                        spool; 3 an unknown id (400) for 30 s, then the device added; 4 a 10,000-fix
#                        backlog spooled while the server is down; 5 bad URLs (exit 64 before anything is
#                        read); 6 https:// with --cafile (a CA of the test's own, made with openssl).
#                        About 2 minutes on 2 cores. A loctrack whose stream --help lacks
#                        http:// fails every test.
#                        Artifacts: out/traccar/.
#                        Variables: TRACCAR_LOCTRACK=another binary (default $(BIN)),
#                        TRACCAR_FLAGS='--only 1,4 --cycle 0.02' (python3 scripts/traccar --help).
# ---------------------------------------------------------------------------
TRACCAR_LOCTRACK ?= $(BIN)
TRACCAR_FLAGS ?=
TRACCAR_FLOOD := .build/flood_gpsd

.PHONY: traccar-standin-test traccar-test
traccar-standin-test:
	$(or $(PYTHON),python3) scripts/traccar selftest

traccar-test: build traccar-deps
	$(FAULTS_CC) -O2 -Wall -Wextra -o $(TRACCAR_FLOOD) $(FLOOD_GPSD_SRC)
	$(or $(PYTHON),python3) scripts/traccar test --loctrack '$(TRACCAR_LOCTRACK)' --flood $(TRACCAR_FLOOD) $(TRACCAR_FLAGS)

# ---------------------------------------------------------------------------
# kills: the SIGKILL tests of make test at their full counts (docs/faults.md): monitor run
# with --publish and --output killed MONITOR_KILLS times along a track through two regions
# (every transition at every sink, each enter with its leave), and stream recording and
# publishing killed RECORD_KILLS times during a flood (files whole, every recorded fix at
# the broker). Real gpsd (gpsfake) and mosquitto; the two side by side, about 35 s on 2 cores.
# ---------------------------------------------------------------------------
MONITOR_KILLS ?= 200
RECORD_KILLS ?= 100

.PHONY: kills
kills: deps test-deps
	$(SWIFT) build --build-tests
	LOCTRACK_TESTS_REQUIRE_TOOLS=1 LOCTRACK_MONITOR_KILLS=$(MONITOR_KILLS) LOCTRACK_RECORD_KILLS=$(RECORD_KILLS) \
		$(SWIFT) test --skip-build --filter 'killedAgainAndAgain|killedWhileRecording'

# ---------------------------------------------------------------------------
# deb: a Debian package (docs/packaging.md)
#
#   make deb             a release build (loctrack and loctrack-trips) with the Swift runtime
#                        linked statically, without a RUNPATH and with BIND_NOW, in its own
#                        scratch path (DEB_SCRATCH, so the normal release build in .build is
#                        left alone), and the same of the
#                        server, loctrack-serve (in DEB_SERVE_SCRATCH, by default make serve's
#                        Serve/.build: the flags only change the link, so a server built there
#                        is relinked, not compiled again); make install into DEB_STAGE with
#                        PREFIX=/usr; then scripts/make-deb.sh: strip, man page gzipped,
#                        copyright and changelog, Depends from dpkg-shlibdeps and libjs-leaflet
#                        (the page's map), /etc/default/loctrack and loctrack-serve conffiles;
#                        dpkg-deb --root-owner-group; lintian (errors fail).
#                        Output: ./loctrack_VERSION-DEB_REVISION_ARCH.deb.
#                        Variables: DEB_REVISION=1, DEB_SCRATCH=.build-deb,
#                        DEB_SERVE_SCRATCH=Serve/.build, LINTIAN=yes|no,
#                        DEB_MAINTAINER='Name <address>' (default: the last commit's author).
#   make deb-arm64       the same package for arm64, as root (scripts/arm64/deb.sh, its stages timed
#                        into .build-arm64/times.txt): roots (roots.sh: qemu-user-static and
#                        binfmt, then three Debian roots made once in ARM64_CACHE: amd64 unstable
#                        with swiftlang 6.2.3, Debian's arm64 Swift runtime of that version and a
#                        Swift SDK; arm64 trixie with the -dev packages, the sysroot; arm64
#                        trixie with gpsd 3.25), build (build.sh: the three programs with
#                        DEB_SWIFT_FLAGS and --swift-sdk, scratch path .build-arm64), package
#                        (package.sh: make install and scripts/make-deb.sh inside the arm64
#                        sysroot under qemu, then this machine's lintian), run (run.sh: apt
#                        install in a throwaway overlay of the gpsd root; the demo through
#                        loctrack stream, loctrack serve's page, leaflet.js and /api/fix,
#                        loctrack trips on a GPX). Output: ./loctrack_VERSION-DEB_REVISION_arm64.deb.
#                        Variables: ARM64_CACHE=/var/cache, ARM64_LINTIAN=yes|no, DEB_REVISION,
#                        DEB_MAINTAINER.
#   make arm64-root      only the roots of deb-arm64.
#   make check-unit      systemd-analyze verify dist/systemd/loctrack.service and
#                        loctrack-serve.service (skipped with a note where systemd-analyze is
#                        missing)
# ---------------------------------------------------------------------------
# The version `loctrack --version` prints (LocTrackVersion.number).
VERSION := $(shell sed -n 's/.*static let number = "\(.*\)".*/\1/p' Sources/LocTrackProcess/Version.swift)
DEB_REVISION ?= 1
DEB_SCRATCH ?= .build-deb
DEB_STAGE := $(DEB_SCRATCH)/stage
DEB_BIN := $(DEB_SCRATCH)/release/loctrack
DEB_SERVE_SCRATCH ?= $(SERVE_SCRATCH)
DEB_SWIFT_FLAGS := --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now
LINTIAN ?= yes
DEB_MAINTAINER ?=

.PHONY: deb-build
deb-build: deps deb-deps
	$(SWIFT) build -c release --product loctrack --scratch-path $(DEB_SCRATCH) $(DEB_SWIFT_FLAGS)
	$(SWIFT) build -c release --product loctrack-trips --scratch-path $(DEB_SCRATCH) $(DEB_SWIFT_FLAGS)
	$(SWIFT) build -c release --package-path $(SERVE_DIR) --scratch-path $(DEB_SERVE_SCRATCH) --product loctrack-serve \
		$(DEB_SWIFT_FLAGS)
	cp $(DEB_SERVE_SCRATCH)/release/loctrack-serve $(dir $(DEB_BIN))loctrack-serve

deb: deb-build
	rm -rf '$(DEB_STAGE)'
	$(MAKE) --no-print-directory install DESTDIR='$(abspath $(DEB_STAGE))' PREFIX=/usr BIN='$(DEB_BIN)' SYSTEMD_UNIT=yes
	STAGE='$(DEB_STAGE)' VERSION='$(VERSION)' REVISION='$(DEB_REVISION)' LINTIAN='$(LINTIAN)' \
		$(if $(DEB_MAINTAINER),MAINTAINER='$(DEB_MAINTAINER)') bash scripts/make-deb.sh

# arm64 (a Raspberry Pi's Debian 13): cross-built with Debian's swiftlang 6.2.3, packaged by
# scripts/make-deb.sh inside an arm64 trixie root, installed with apt and run under qemu
# (scripts/arm64/; three roots in $(ARM64_CACHE), made once).
ARM64_CACHE ?= /var/cache
ARM64_LINTIAN ?= yes
.PHONY: arm64-root deb-arm64
arm64-root:
	ARM64_CACHE='$(ARM64_CACHE)' bash scripts/arm64/roots.sh

deb-arm64:
	ARM64_CACHE='$(ARM64_CACHE)' VERSION='$(VERSION)' REVISION='$(DEB_REVISION)' SWIFT_FLAGS='$(DEB_SWIFT_FLAGS)' \
		LINTIAN='$(ARM64_LINTIAN)' $(if $(DEB_MAINTAINER),MAINTAINER='$(DEB_MAINTAINER)') bash scripts/arm64/deb.sh

check-unit:
	@bash scripts/check-unit.sh

# The package make deb left here, installed with apt, run and purged (scripts/deb-check.sh).
.PHONY: deb-check
deb-check:
	@bash scripts/deb-check.sh

# The version alone, for scripts (.ci/run compares it with the installed package's).
.PHONY: print-version
print-version:
	@echo '$(VERSION)'

# ---------------------------------------------------------------------------
# ha-test: loctrack's Home Assistant features against a real Home Assistant core (scripts/ha/,
# what each test asserts: python3 scripts/ha --help and scripts/ha/__init__.py)
#
#   make ha-deps         the virtual environment Home Assistant core runs from: .build-ha/venv,
#                        made from the lock scripts/ha/requirements.txt (homeassistant 2024.3.3,
#                        the newest for Python 3.11, and the requirements of the integrations it
#                        loads, 97 packages from PyPI, pip --no-deps) when missing or made from
#                        another lock: about 80 s (the download; PyPI must be reachable).
#                        python3-venv is installed (apt) when missing.
#                        `python3 scripts/ha lock` re-resolves the lock (scripts/ha/requirements.in).
#   make ha-test         release build, ha-deps, then the tests, each with its own mosquitto and
#                        Home Assistant (started in about 5 s, configured through .storage: the
#                        MQTT and OwnTracks config entries, a long-lived token) and gpsfake
#                        replaying demo/track.nmea: 1 the harness itself (hand-made discovery
#                        messages), 2 stream --ha-discovery --odometer, 3 loctrack SIGKILLed and restarted,
#                        4 Home Assistant restarted, 5 monitor run --ha-discovery, 6 the OwnTracks
#                        route, 7 bad --ha-* input (exit 64). No test is skipped: a binary without
#                        --ha-discovery fails 2-7. About 4 minutes
#                        on 2 cores for all seven (10 s for 1, 3 and 7, 45-60 s for the others: the replay).
#                        Artifacts: out/ha/.
#                        Variables: HA_LOCTRACK=another binary (default $(BIN)),
#                        HA_FLAGS='--only 1,6' (python3 scripts/ha --help).
# ---------------------------------------------------------------------------
HA_LOCTRACK ?= $(BIN)
HA_FLAGS ?=

.PHONY: ha-deps ha-test
ha-deps: test-deps
	@bash scripts/install-deps.sh venv
	$(or $(PYTHON),python3) scripts/ha deps

ha-test: build ha-deps
	$(or $(PYTHON),python3) scripts/ha test --loctrack '$(HA_LOCTRACK)' $(HA_FLAGS)

# ---------------------------------------------------------------------------
# serve-test: `loctrack serve` as a user meets it (scripts/serve/; what each test asserts:
# python3 scripts/serve --help and scripts/serve/__init__.py)
#
#   make serve-deps      the virtual environment schemathesis runs from: .build-serve/venv, made
#                        from the lock scripts/serve/requirements.txt (schemathesis 4.32.5 and its
#                        requirements, 27 packages from PyPI, pip --no-deps) when missing or made
#                        from another lock: about 15 s (PyPI must be reachable). python3-venv,
#                        chromium, chromium-driver and python3-selenium are installed (apt) when
#                        missing.
#                        `python3 scripts/serve lock` re-resolves the lock (scripts/serve/requirements.in).
#   make serve-test      release builds of loctrack and loctrack-serve (make serve builds both),
#                        serve-deps, then the
#                        tests, each with its own gpsd (gpsfake; the scripted gpsd only for the
#                        steady feeds of tests 6 and 8) and `loctrack serve`, with Debian's /usr/bin/python3
#                        (python3-selenium): 1 the page in headless Chromium against the demo drive
#                        (marker, accuracy circle, every fix after a 10 s cut of the event
#                        connection, satellites, the monitor's regions, "device lost" and "gpsd
#                        unreachable" within 2 s, nothing from the internet; screenshots), 2 the
#                        page against an RTK recording ("RTK fixed"; stale 3 s after a pause of
#                        the fixes), 3 the access token and the headers, 4 refused
#                        starts (exit 64, 69, 78), 5 path traversal, oversized, malformed and
#                        bodied requests, slowloris, 6 1,000 connections and 100 streams of which 10
#                        stop reading, 7 schemathesis against web/openapi.json, 8 a crowd of slow
#                        clients over the connection limit; offline charts, MBTiles the tests make:
#                        9 every tile byte for byte by its XYZ path, 404 and 400, the token,
#                        /api/config's layers, mbutil's layout, WAL, 10 refused chart files (exit 66,
#                        65), 11 a 400 MB chart with VmRSS under 60 MB above the start, 12 the page
#                        with a chart and an overlay in Chromium. About 130 s on 2 cores (builds
#                        aside). No test is skipped: without loctrack-serve the suite stops at once
#                        (one message, exit 2); 7 fails without web/openapi.json or schemathesis's
#                        venv. Artifacts: out/serve/.
#                        Variables: SERVE_LOCTRACK=another loctrack (default $(BIN); loctrack-serve
#                        next to it), SERVE_FLAGS='--only 1,5 --cycle 0.05' (python3 scripts/serve
#                        --help), SERVE_PYTHON (default /usr/bin/python3: Debian's selenium is for it).
#   make serve-screenshot  tests 1 and 12 alone, their screenshots also written to docs/figures/serve.png
#                        (1200x800), docs/figures/serve-phone.png (390x844) and docs/figures/serve-chart.png
#                        (1200x800: the page with a chart and an overlay).
# ---------------------------------------------------------------------------
SERVE_LOCTRACK ?= $(BIN)
SERVE_FLAGS ?=
SERVE_PYTHON ?= /usr/bin/python3

.PHONY: serve-deps serve-test serve-screenshot
serve-deps: browser-deps
	$(SERVE_PYTHON) scripts/serve deps

serve-test: serve serve-deps
	$(SERVE_PYTHON) scripts/serve test --loctrack '$(SERVE_LOCTRACK)' $(SERVE_FLAGS)

serve-screenshot: serve
	$(SERVE_PYTHON) scripts/serve screenshot --loctrack '$(SERVE_LOCTRACK)' $(SERVE_FLAGS)
