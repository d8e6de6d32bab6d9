/* loctrack serve: the page's wiring (docs/http.md is the API it reads).
 *
 * Flow, without gaps: load /api/config, /api/track, /api/fix, /api/sky, /api/status and
 * /api/regions together, draw them, then open /events?after=<the track's lastEventId>,
 * so the stream starts exactly after the last fix the track holds. The browser's
 * EventSource sends Last-Event-ID on its own reconnects; a `reset` event (the server's
 * ring no longer reaches back that far, or it restarted) reloads everything.
 *
 * Sections: words (gpsd's values as text), the map, the panel, staleness, the feed
 * (loading and events), and window.loctrack (read-only values for the browser tests).
 * sky.js draws the sky plot and the signal bars. */
(function () {
  'use strict';

  const TRACK_MAX_POINTS_LOADED = 5000;  // what the page asks the server to thin to
  const TRACK_MAX_POINTS_KEPT = 50000;   // live appends beyond this thin the older half
  const TICK_MS = 250;                   // staleness and banner check: well within 2 s
  const RELOAD_RETRY_MS = 2000;
  const EVENTS_RETRY_MS = 3000;          // after the server refused the stream (503, 401)
  const FIRST_ZOOM = 16;

  const REGION_COLOURS = Object.freeze({
    satisfied: '#137a33',    // inside: green
    unsatisfied: '#b44f00',  // outside: amber
    unknown: '#6b6b6b',      // grey
  });
  const HTML_ESCAPES = Object.freeze({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' });
  const escapeHTML = (text) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

  const REGION_WORDS = Object.freeze({ satisfied: 'inside', unsatisfied: 'outside', unknown: 'unknown' });

  const state = {
    config: null,
    ready: false,
    loadMs: null,
    loadError: false,
    loadGeneration: 0,
    lastEventId: null,
    events: null,            // the EventSource
    eventsError: false,
    eventsRetry: null,
    fix: null,
    fixArrivedAt: null,      // performance.now() when the latest fix arrived
    fixCount: 0,
    sky: null,
    status: null,
    trackTimes: [],          // ms since 1970 of each track point, parallel to the polyline's latlngs
    trackTotal: 0,           // fixes the server had before thinning, plus those appended since
    regions: new Map(),      // id -> { title, state, layer, item }
    monitor: null,
    stale: true,
    banner: '',
    follow: false,
    centred: false,          // the view was fitted or centred once; never again by itself
    cspViolations: [],
  };

  document.addEventListener('securitypolicyviolation', (e) => {
    state.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
  });

  /* ---------------------------------------------------------------- words */

  const FIX_STATUS = Object.freeze({
    1: 'GPS', 2: 'DGPS', 3: 'RTK fixed', 4: 'RTK float', 5: 'dead reckoning',
    6: 'GNSS + dead reckoning', 7: 'time only', 8: 'simulated', 9: 'P(Y)',
  });

  const Words = {
    mode(mode) {
      if (mode === 3) return '3D';
      if (mode === 2) return '2D';
      return mode == null ? '' : 'no fix';
    },
    // `status` is absent for a plain GNSS fix (docs/json.md).
    fixStatus(status) {
      if (status == null || status === 1 || status === 0) return 'GPS';
      return FIX_STATUS[status] || `status ${status}`;
    },
    number(value, digits) {
      return Number.isFinite(value) ? value.toFixed(digits) : '—';
    },
    position(lat, lon) {
      const ns = lat >= 0 ? 'N' : 'S';
      const ew = lon >= 0 ? 'E' : 'W';
      return `${Math.abs(lat).toFixed(6)}° ${ns}, ${Math.abs(lon).toFixed(6)}° ${ew}`;
    },
    speed(speed) {
      if (!Number.isFinite(speed)) return '—';
      return `${speed.toFixed(2)} m/s · ${(speed * 3.6).toFixed(1)} km/h`;
    },
    course(track) {
      if (!Number.isFinite(track)) return '—';
      const points = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];
      const point = points[Math.round((((track % 360) + 360) % 360) / 45) % 8];
      return `${track.toFixed(1)}° ${point}`;
    },
    altitude(fix) {
      if (Number.isFinite(fix.altMSL)) return `${fix.altMSL.toFixed(1)} m MSL`;
      if (Number.isFinite(fix.altHAE)) return `${fix.altHAE.toFixed(1)} m HAE`;
      return '—';
    },
    eph(eph) {
      return Number.isFinite(eph) ? `± ${eph.toFixed(1)} m` : '—';
    },
    // The receiver's time, in UTC as gpsd gives it; the browser's clock is not used.
    time(iso) {
      if (typeof iso !== 'string') return '—';
      const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(\.\d+)?Z$/.exec(iso);
      return m ? `${m[1]} ${m[2]} UTC` : iso;
    },
    age(seconds) {
      if (seconds == null) return '—';
      const s = Math.max(0, Math.floor(seconds));
      if (s < 60) return `${s} s`;
      if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
      if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
      return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
    },
    count(n) {
      return Number.isFinite(n) ? n.toLocaleString('en') : '—';
    },
    // The banner's text, worst first; "" when all is well.
    banner({ loctrackUnreachable, status }) {
      if (loctrackUnreachable) return 'loctrack unreachable — reconnecting';
      if (!status) return '';
      if (status.gpsd === 'unreachable') return 'gpsd unreachable';
      if (status.receiver === 'lost') return 'device lost';
      if (status.receiver === 'no fix') return 'no fix';
      return '';
    },
  };

  function validFix(fix) {
    return fix && Number.isFinite(fix.lat) && Number.isFinite(fix.lon) &&
      Math.abs(fix.lat) <= 90 && Math.abs(fix.lon) <= 180;
  }

  /* ---------------------------------------------------------------- the map */

  const MapView = {
    map: null,
    track: null,
    marker: null,
    accuracy: null,
    redrawPending: false,

    create(config) {
      const container = document.getElementById('map');
      const map = L.map(container, {
        preferCanvas: false,
        minZoom: 1,
        maxZoom: 22,
        zoomControl: true,
        attributionControl: true,
      });
      const tiles = config && config.tiles;
      if (tiles && typeof tiles.url === 'string' && tiles.url) {
        L.tileLayer(tiles.url, {
          // Leaflet inserts an attribution as HTML; --tiles-attribution is text (docs/http.md).
          attribution: typeof tiles.attribution === 'string' ? escapeHTML(tiles.attribution) : '',
          maxNativeZoom: 19,
          maxZoom: 22,
        }).addTo(map);
      } else {
        container.classList.add('no-tiles');
      }
      L.control.scale({ position: 'bottomleft' }).addTo(map);

      // Regions below the track; the fix above everything, the regions' labels
      // (tooltipPane, 650) included: standing in a region must not hide the fix.
      map.createPane('regions').style.zIndex = '350';
      map.createPane('fix').style.zIndex = '660';

      this.map = map;
      this.track = L.polyline([], {
        className: 'track', color: '#0b4fd6', weight: 3, opacity: 0.85, interactive: false,
      }).addTo(map);

      // The user moving the map ends following: the map never fights the hand.
      map.on('dragstart', () => Controls.setFollow(false));
      return map;
    },

    setTrack(points) {
      this.track.setLatLngs(points.map((p) => [p[1], p[2]]));
    },

    /* Appends to the one polyline without re-creating it. Leaflet's addLatLng would
     * re-project the whole line for each point; a burst of replayed fixes after a
     * reconnect is drawn once, in the next frame, instead. */
    appendTrack(lat, lon) {
      const latlng = L.latLng(lat, lon);
      this.track.getLatLngs().push(latlng);
      this.track.getBounds().extend(latlng);
      if (!this.redrawPending) {
        this.redrawPending = true;
        requestAnimationFrame(() => {
          this.redrawPending = false;
          this.track.redraw();
        });
      }
    },

    trackLatLngs() {
      return this.track.getLatLngs();
    },

    showFix(fix) {
      const latlng = L.latLng(fix.lat, fix.lon);
      if (!this.marker) {
        this.marker = L.circleMarker(latlng, {
          pane: 'fix', className: 'fix-marker', radius: 8, weight: 3,
          color: '#ffffff', fillColor: '#0b4fd6', fillOpacity: 1, interactive: false,
        });
        this.accuracy = L.circle(latlng, {
          className: 'fix-accuracy', radius: 1, weight: 1.5,
          color: '#0b4fd6', fillColor: '#0b4fd6', fillOpacity: 0.12, interactive: false,
        });
        this.marker.addTo(this.map);
      }
      this.marker.setLatLng(latlng);
      // The accuracy circle only when the fix says its eph (no guessed circle).
      if (Number.isFinite(fix.eph) && fix.eph > 0) {
        this.accuracy.setLatLng(latlng);
        this.accuracy.setRadius(fix.eph);
        if (!this.map.hasLayer(this.accuracy)) this.accuracy.addTo(this.map);
      } else if (this.map.hasLayer(this.accuracy)) {
        this.map.removeLayer(this.accuracy);
      }
      if (state.follow) {
        this.map.setView(latlng, this.map.getZoom(), { animate: false });
      } else if (!state.centred) {
        state.centred = true;
        this.map.setView(latlng, FIRST_ZOOM, { animate: false });
      }
    },

    /* Once, on the first load: the whole track, else the fix, else the world (and then
     * the first fix that comes centres the map, once). Never again by itself. */
    fitOnce(latest) {
      const bounds = this.track.getBounds();
      const bottom = window.matchMedia('(min-width: 900px)').matches ? 24 : 90;
      if (bounds.isValid()) {
        state.centred = true;
        this.map.fitBounds(bounds, {
          paddingTopLeft: [24, 48], paddingBottomRight: [24, bottom], maxZoom: 17, animate: false,
        });
      } else if (latest) {
        state.centred = true;
        this.map.setView([latest.lat, latest.lon], FIRST_ZOOM, { animate: false });
      } else {
        this.map.setView([20, 0], 2, { animate: false });
      }
    },

    regionLayer(feature, colour) {
      const g = feature && feature.geometry;
      const style = {
        pane: 'regions', className: 'region', color: colour, fillColor: colour,
        weight: 2.5, opacity: 0.95, fillOpacity: 0.18, interactive: false,
      };
      if (!g) return null;
      if (g.type === 'Point' && Array.isArray(g.coordinates)) {
        const radius = feature.properties && Number(feature.properties.radius);
        if (!Number.isFinite(radius) || radius <= 0) return null;
        return L.circle([g.coordinates[1], g.coordinates[0]], Object.assign({ radius }, style));
      }
      if (g.type === 'Polygon' && Array.isArray(g.coordinates)) {
        const rings = g.coordinates.map((ring) => ring.map((c) => [c[1], c[0]]));
        return L.polygon(rings, style);
      }
      if (g.type === 'MultiPolygon' && Array.isArray(g.coordinates)) {
        const polygons = g.coordinates.map((p) => p.map((ring) => ring.map((c) => [c[1], c[0]])));
        return L.polygon(polygons, style);
      }
      return null;
    },
  };

  /* ---------------------------------------------------------------- the panel */

  const $ = (id) => document.getElementById(id);

  function setText(id, text) {
    const element = $(id);
    if (element && element.textContent !== text) element.textContent = text;
  }

  const Panel = {
    showFix(fix) {
      setText('fix-mode', Words.mode(fix.mode) || '—');
      // A fix known only from the track has no mode, hence no status either.
      setText('fix-status', fix.mode != null ? Words.fixStatus(fix.status) : '—');
      setText('position', Words.position(fix.lat, fix.lon));
      setText('eph', Words.eph(fix.eph));
      setText('fix-time', Words.time(fix.time));
      setText('speed', Words.speed(fix.speed));
      setText('course', Words.course(fix.track));
      setText('altitude', Words.altitude(fix));
      if (fix.device) setText('device', fix.device);
    },

    showSky(sky) {
      const satellites = Array.isArray(sky && sky.satellites) ? sky.satellites : [];
      setText('sat-used', Number.isFinite(satellitesUsed()) ? String(satellitesUsed()) : '—');
      setText('sat-seen', Number.isFinite(satellitesSeen()) ? String(satellitesSeen()) : '—');
      setText('hdop', Words.number(sky && sky.hdop, 2));
      setText('vdop', Words.number(sky && sky.vdop, 2));
      setText('pdop', Words.number(sky && sky.pdop, 2));
      LoctrackSky.drawSkyPlot($('sky-plot'), satellites);
      LoctrackSky.drawSignalBars($('signal-bars'), satellites);
      LoctrackSky.drawLegend($('sky-legend'), satellites);
    },

    showStatus(status) {
      if (!status) return;
      const gpsd = status.gpsd + (status.gpsd === 'connected' && status.release ? ` (${status.release})` : '');
      setText('gpsd-state', status.gpsd ? gpsd : '—');
      setText('receiver-state', status.receiver || '—');
      if (status.device) setText('device', status.device);
      setText('status-message', typeof status.message === 'string' ? status.message : '');
    },

    showTrackCount() {
      const drawn = state.trackTimes.length;
      setText('track-count', `${Words.count(state.trackTotal)} fixes, ${Words.count(drawn)} drawn`);
    },

    showAge(seconds) {
      setText('fix-age', Words.age(seconds));
    },

    showBanner(text) {
      const banner = $('banner');
      if (banner.textContent !== text) banner.textContent = text;
      banner.hidden = text === '';
    },

    showRegionList() {
      const list = $('region-list');
      $('regions-section').hidden = state.regions.size === 0;
      setText('monitor-name', state.monitor ? `monitor ${state.monitor}` : '');
      while (list.firstChild) list.removeChild(list.firstChild);
      for (const [id, region] of state.regions) {
        const item = document.createElement('li');
        item.id = `region-${id}`;
        item.dataset.region = id;
        const swatch = document.createElement('span');
        swatch.className = 'region-swatch';
        const title = document.createElement('span');
        title.className = 'region-title';
        title.textContent = region.title;
        const words = document.createElement('span');
        words.className = 'region-state';
        item.append(swatch, title, words);
        list.appendChild(item);
        region.item = item;
        Panel.showRegionState(region);
      }
    },

    showRegionState(region) {
      if (!region.item) return;
      const colour = regionColour(region.state);
      region.item.dataset.state = region.state;
      region.item.querySelector('.region-swatch').style.backgroundColor = colour;
      const words = region.item.querySelector('.region-state');
      words.textContent = REGION_WORDS[region.state] || region.state;
      words.style.color = colour;
    },
  };

  function satellitesUsed() {
    const sky = state.sky;
    if (!sky) return null;
    if (Number.isInteger(sky.uSat)) return sky.uSat;
    return Array.isArray(sky.satellites) ? sky.satellites.filter((s) => s.used).length : null;
  }

  function satellitesSeen() {
    const sky = state.sky;
    if (!sky) return null;
    if (Number.isInteger(sky.nSat)) return sky.nSat;
    return Array.isArray(sky.satellites) ? sky.satellites.length : null;
  }

  function regionColour(regionState) {
    return REGION_COLOURS[regionState] || REGION_COLOURS.unknown;
  }

  const Controls = {
    setup() {
      const follow = $('follow');
      follow.addEventListener('change', () => Controls.setFollow(follow.checked));
      // Leaflet's bottom controls sit above the summary line, however high it wraps.
      const summary = $('summary');
      const measure = () => document.documentElement.style.setProperty('--sheet-h', `${summary.offsetHeight}px`);
      if ('ResizeObserver' in window) new ResizeObserver(measure).observe(summary);
      measure();
      const panel = $('panel');
      const toggle = $('panel-toggle');
      toggle.addEventListener('click', () => {
        const open = !panel.classList.contains('open');
        panel.classList.toggle('open', open);
        toggle.setAttribute('aria-expanded', String(open));
      });
    },

    setFollow(on) {
      state.follow = on;
      $('follow').checked = on;
      if (on && state.fix && MapView.map) {
        MapView.map.setView([state.fix.lat, state.fix.lon], MapView.map.getZoom(), { animate: false });
      }
    },
  };

  /* ---------------------------------------------------------------- staleness */

  function fixAgeSeconds() {
    return state.fixArrivedAt == null ? null : (performance.now() - state.fixArrivedAt) / 1000;
  }

  /* Runs every TICK_MS, not only on events: a fix that stops coming sends no event. */
  function tick() {
    if (!state.config) {
      Panel.showBanner(state.banner = Words.banner({ loctrackUnreachable: state.loadError, status: null }));
      return;
    }
    const age = fixAgeSeconds();
    const status = state.status;
    const stale = age == null || age > state.config.staleSeconds ||
      (status != null && (status.gpsd === 'unreachable' || status.receiver === 'lost' || status.receiver === 'no fix'));
    if (stale !== state.stale) {
      state.stale = stale;
      document.body.classList.toggle('stale', stale);
    }
    state.banner = Words.banner({ loctrackUnreachable: state.loadError || state.eventsError, status });
    Panel.showBanner(state.banner);
    Panel.showAge(age);
  }

  /* ---------------------------------------------------------------- the feed */

  async function getJSON(path) {
    const response = await fetch(path, {
      cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' },
    });
    if (response.status === 204) return null;
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return response.json();
  }

  async function load() {
    const generation = ++state.loadGeneration;
    closeEvents();
    let config, track, fix, sky, status, regions;
    try {
      [config, track, fix, sky, status, regions] = await Promise.all([
        getJSON('api/config'),
        getJSON(`api/track?format=points&max=${TRACK_MAX_POINTS_LOADED}`),
        getJSON('api/fix'),
        getJSON('api/sky'),
        getJSON('api/status'),
        getJSON('api/regions'),
      ]);
    } catch (error) {
      if (generation !== state.loadGeneration) return;
      console.warn('loctrack: loading failed, retrying', error);
      state.loadError = true;
      setTimeout(() => { if (generation === state.loadGeneration) load(); }, RELOAD_RETRY_MS);
      return;
    }
    if (generation !== state.loadGeneration) return;
    state.loadError = false;
    apply({ config, track, fix, sky, status, regions });
    openEvents(track && typeof track.lastEventId === 'string' ? track.lastEventId : null);
  }

  function apply({ config, track, fix, sky, status, regions }) {
    const first = !state.config;
    state.config = Object.freeze({
      version: config && config.version,
      staleSeconds: config && Number.isFinite(config.staleSeconds) ? config.staleSeconds : 3,
      monitor: config && config.monitor,
      tiles: config && config.tiles,
    });
    state.monitor = state.config.monitor || null;
    if (first) {
      MapView.create(state.config);
      setText('version', state.config.version || '');
    }

    const points = track && Array.isArray(track.points)
      ? track.points.filter((p) => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1]) && Number.isFinite(p[2]))
      : [];
    state.trackTimes = points.map((p) => p[0]);
    state.trackTotal = track && Number.isFinite(track.total) ? track.total : points.length;
    state.lastEventId = track && typeof track.lastEventId === 'string' ? track.lastEventId : state.lastEventId;
    MapView.setTrack(points);
    Panel.showTrackCount();

    state.status = status || null;
    Panel.showStatus(state.status);

    // The latest fix: /api/fix, else the track's last point. Its age from loctrack's
    // clock (status.lastFixAge), never from comparing the receiver's time with ours.
    let latest = validFix(fix) ? fix : null;
    if (!latest && points.length) {
      const p = points[points.length - 1];
      latest = { lat: p[1], lon: p[2], eph: Number.isFinite(p[3]) ? p[3] : undefined, time: new Date(p[0]).toISOString() };
    }
    if (first) MapView.fitOnce(latest);
    if (latest) {
      state.fix = latest;
      const age = status && Number.isFinite(status.lastFixAge) ? status.lastFixAge : 0;
      state.fixArrivedAt = performance.now() - age * 1000;
      MapView.showFix(latest);
      Panel.showFix(latest);
    }

    state.sky = sky || null;
    Panel.showSky(state.sky);

    setRegions(regions);

    if (first) finishFirstLoad();
    tick();
  }

  // `ready` and `loadMs` once the first track is on screen: after the next paint.
  function finishFirstLoad() {
    const done = () => {
      if (state.ready) return;
      state.loadMs = Math.round(performance.now());
      state.ready = true;
    };
    if (document.visibilityState === 'hidden') {
      done();
    } else {
      requestAnimationFrame(() => setTimeout(done, 0));
      setTimeout(done, 1000); // a frame that never comes (a hidden tab) does not hold `ready` back
    }
  }

  function setRegions(collection) {
    for (const region of state.regions.values()) {
      if (region.layer) MapView.map.removeLayer(region.layer);
    }
    state.regions = new Map();
    const features = collection && Array.isArray(collection.features) ? collection.features : [];
    for (const feature of features) {
      const properties = feature.properties || {};
      const id = String(properties.id != null ? properties.id : feature.id);
      const regionState = typeof properties.state === 'string' ? properties.state : 'unknown';
      const title = typeof properties.title === 'string' && properties.title ? properties.title : id;
      const layer = MapView.regionLayer(feature, regionColour(regionState));
      if (layer) {
        // A text node, not a string: Leaflet would set a string as HTML.
        const label = document.createElement('span');
        label.textContent = title;
        layer.bindTooltip(label, { permanent: true, direction: 'center', className: 'region-label' });
        layer.addTo(MapView.map);
      }
      state.regions.set(id, { title, state: regionState, layer, item: null });
    }
    Panel.showRegionList();
  }

  let regionsRefreshing = false;
  async function refreshRegions() {
    if (regionsRefreshing) return;
    regionsRefreshing = true;
    try {
      setRegions(await getJSON('api/regions'));
    } catch (error) {
      console.warn('loctrack: reloading the regions failed', error);
    } finally {
      regionsRefreshing = false;
    }
  }

  /* ---- events ---- */

  const handlers = {
    fix(fix) {
      state.fixCount += 1;
      if (!validFix(fix)) return;
      // The marker and the panel show every fix as it comes (events come in order).
      state.fix = fix;
      state.fixArrivedAt = performance.now();
      MapView.showFix(fix);
      Panel.showFix(fix);
      // The track takes only a fix later than its last point: nothing twice.
      const ms = Date.parse(fix.time);
      const times = state.trackTimes;
      if (Number.isFinite(ms) && (times.length === 0 || ms > times[times.length - 1])) {
        times.push(ms);
        MapView.appendTrack(fix.lat, fix.lon);
        state.trackTotal += 1;
        if (times.length > TRACK_MAX_POINTS_KEPT) thinTrack();
        Panel.showTrackCount();
      }
    },
    sky(sky) {
      // A SKY without satellites (some receivers send DOPs alone) keeps the satellites.
      if (sky && !Array.isArray(sky.satellites) && state.sky && Array.isArray(state.sky.satellites)) {
        sky = Object.assign({}, sky, {
          satellites: state.sky.satellites,
          uSat: Number.isInteger(sky.uSat) ? sky.uSat : state.sky.uSat,
          nSat: Number.isInteger(sky.nSat) ? sky.nSat : state.sky.nSat,
        });
      }
      state.sky = sky;
      Panel.showSky(sky);
    },
    status(status) {
      state.status = status;
      Panel.showStatus(status);
      tick();
    },
    region(event) {
      if (!event || typeof event.state !== 'string') return;
      const region = state.regions.get(String(event.id));
      if (!region) {
        refreshRegions(); // a region this page has not seen: the monitor changed
        return;
      }
      region.state = event.state;
      const colour = regionColour(event.state);
      if (region.layer) region.layer.setStyle({ color: colour, fillColor: colour });
      Panel.showRegionState(region);
    },
    reset() {
      load();
    },
  };

  /* A page left open for days keeps a bounded track: past TRACK_MAX_POINTS_KEPT points,
   * every second point of the older half goes (the newest half stays whole). */
  function thinTrack() {
    const times = state.trackTimes;
    const latlngs = MapView.trackLatLngs();
    const half = Math.floor(times.length / 2);
    const keptTimes = [];
    const keptLatLngs = [];
    for (let i = 0; i < times.length; i++) {
      if (i >= half || i % 2 === 0) {
        keptTimes.push(times[i]);
        keptLatLngs.push(latlngs[i]);
      }
    }
    state.trackTimes = keptTimes;
    MapView.track.setLatLngs(keptLatLngs);
  }

  function openEvents(after) {
    closeEvents();
    const url = after ? `events?after=${encodeURIComponent(after)}` : 'events';
    const source = new EventSource(url);
    state.events = source;
    source.onopen = () => {
      if (state.events === source) state.eventsError = false;
    };
    source.onerror = () => {
      if (state.events !== source) return;
      state.eventsError = true;
      // CONNECTING: the browser retries by itself, with Last-Event-ID. CLOSED: the
      // server refused the stream (503 when full, 401): open a new one after a pause.
      if (source.readyState === EventSource.CLOSED) {
        clearTimeout(state.eventsRetry);
        state.eventsRetry = setTimeout(() => {
          if (state.events === source) openEvents(state.lastEventId);
        }, EVENTS_RETRY_MS);
      }
      tick();
    };
    for (const [name, handler] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => receive(source, event, handler));
    }
  }

  function closeEvents() {
    clearTimeout(state.eventsRetry);
    if (state.events) {
      state.events.close();
      state.events = null;
    }
    state.eventsError = false;
  }

  function receive(source, event, handler) {
    if (state.events !== source) return; // a late event of a stream already closed
    state.eventsError = false;
    if (event.lastEventId) state.lastEventId = event.lastEventId;
    let data;
    try {
      data = JSON.parse(event.data);
    } catch (error) {
      console.warn('loctrack: an event that is not JSON', event.type, error);
      return;
    }
    try {
      handler(data);
    } catch (error) {
      console.error('loctrack: handling an event failed', event.type, error);
    }
  }

  /* ---------------------------------------------------------------- window.loctrack */

  // Plain values, copied on each read: the tests read them and cannot change the page.
  const view = Object.freeze({
    get ready() { return state.ready; },
    get loadMs() { return state.loadMs; },
    get lastEventId() { return state.lastEventId; },
    get marker() {
      if (!MapView.marker) return null;
      const ll = MapView.marker.getLatLng();
      return [ll.lat, ll.lng];
    },
    get accuracyRadius() {
      return MapView.accuracy && MapView.map.hasLayer(MapView.accuracy) ? MapView.accuracy.getRadius() : null;
    },
    get trackPoints() { return state.trackTimes.length; },
    get trackTotal() { return state.trackTotal; },
    get trackLast() {
      const n = state.trackTimes.length;
      if (n === 0) return null;
      const ll = MapView.trackLatLngs()[n - 1];
      return [state.trackTimes[n - 1], ll.lat, ll.lng];
    },
    get fixCount() { return state.fixCount; },
    get status() { return state.status ? JSON.parse(JSON.stringify(state.status)) : null; },
    get mode() { return state.fix ? Words.mode(state.fix.mode) : ''; },
    get fixStatus() { return state.fix && state.fix.mode != null ? Words.fixStatus(state.fix.status) : ''; },
    get satellitesUsed() { return satellitesUsed(); },
    get satellitesSeen() { return satellitesSeen(); },
    get regions() {
      const out = {};
      for (const [id, region] of state.regions) out[id] = region.state;
      return out;
    },
    get regionColours() {
      const out = {};
      for (const [id, region] of state.regions) out[id] = regionColour(region.state);
      return out;
    },
    get stale() { return state.stale; },
    get banner() { return state.banner; },
    get follow() { return state.follow; },
    get eventsOpen() { return !!state.events && state.events.readyState === EventSource.OPEN; },
    get tiles() { return !!(state.config && state.config.tiles); },
    get cspViolations() { return state.cspViolations.slice(); },
  });
  Object.defineProperty(window, 'loctrack', { value: view, writable: false, configurable: false, enumerable: true });

  /* ---------------------------------------------------------------- start */

  function start() {
    Controls.setup();
    setInterval(tick, TICK_MS);
    load();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
