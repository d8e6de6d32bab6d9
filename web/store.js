/* loctrack serve: the page's state, and its one owner.
 *
 * Every other module reads the state here (`state`: read-only getters) and learns of a
 * change by subscribing to its topic; only the actions below change it. The feed calls
 * them with what the server sent, the controls with what the user did, staleness with
 * the clock. Each subscriber then draws its own part (the map, the panel, the
 * checkbox); none of them calls another. A new layer or panel is one more subscriber.
 *
 * What the getters return and what subscribers are given is the store's own, not a copy
 * (copying a 50,000-point track on each fix would cost): read it, never change it. The
 * objects that came from the server are frozen to make a slip loud. */

const TRACK_MAX_POINTS_KEPT = 50000;   // live appends beyond this thin the older half

/* Each topic and what its subscribers are given. A load sends, in this order: config,
 * track, status, fix (when it has one), sky, distance, regions, loaded. */
const TOPICS = Object.freeze([
  'config',       // {first}: the server's config, once per load; first on the page's first load
  'track',        // {first}: the whole track was replaced (a load, or thinning)
  'trackAppend',  // {point}: one point was appended to the track
  'fix',          // the latest fix changed
  'sky',          // the latest SKY changed (possibly to null)
  'status',       // gpsd's and the receiver's state changed (possibly to null)
  'distance',     // today's distance, motion or the trip under way changed (possibly to null)
  'regions',      // the regions were replaced
  'region',       // {id}: one region's state changed
  'follow',       // Follow was set (even to what it was: following again recentres)
  'connection',   // loadError or eventsError changed
  'health',       // each tick: stale, banner, fixAge
  'loaded',       // {first}: a load is applied, after the topics above
]);

const s = {
  config: null,            // frozen: version, staleSeconds, monitor, tiles, layers
  lastEventId: null,
  fix: null,
  fixArrivedAt: null,      // performance.now() when the latest fix arrived
  fixCount: 0,             // fix events received, appended or not
  sky: null,
  status: null,
  distance: null,          // frozen: api/distance or the latest `distance` event
  trackPoints: [],         // [ms since 1970, lat, lon, eph or null], oldest first
  trackTotal: 0,           // fixes the server had before thinning, plus those appended since
  regions: new Map(),      // id -> { title, state, feature }, in the server's order
  follow: false,
  loadError: false,        // the last load failed (it is being retried)
  eventsError: false,      // the event stream is in error (the browser or the feed retries)
  stale: true,
  banner: '',
  fixAge: null,            // seconds, as of the last tick
  ready: false,
  loadMs: null,
};

export const state = Object.freeze({
  get config() { return s.config; },
  get lastEventId() { return s.lastEventId; },
  get fix() { return s.fix; },
  get fixCount() { return s.fixCount; },
  get sky() { return s.sky; },
  get status() { return s.status; },
  get distance() { return s.distance; },
  get trackPoints() { return s.trackPoints; },
  get trackTotal() { return s.trackTotal; },
  get regions() { return s.regions; },
  get monitor() { return s.config ? s.config.monitor || null : null; },
  get follow() { return s.follow; },
  get loadError() { return s.loadError; },
  get eventsError() { return s.eventsError; },
  get stale() { return s.stale; },
  get banner() { return s.banner; },
  get fixAge() { return s.fixAge; },
  get ready() { return s.ready; },
  get loadMs() { return s.loadMs; },
});

/* ---------------------------------------------------------------- subscribing */

const subscribers = new Map(TOPICS.map((topic) => [topic, new Set()]));

/* Calls `listener(detail)` after each change of `topic`; returns the unsubscribe. An
 * unknown topic throws: a misspelt one would otherwise never be called. */
export function subscribe(topic, listener) {
  const set = subscribers.get(topic);
  if (!set) throw new Error(`loctrack: no topic "${topic}" (store.js lists them)`);
  set.add(listener);
  return () => set.delete(listener);
}

/* One subscriber that throws must not keep the others from drawing. */
function emit(topic, detail = {}) {
  for (const listener of subscribers.get(topic)) {
    try {
      listener(detail);
    } catch (error) {
      console.error(`loctrack: a subscriber to "${topic}" failed`, error);
    }
  }
}

/* ---------------------------------------------------------------- reading */

export function validFix(fix) {
  return fix != null && Number.isFinite(fix.lat) && Number.isFinite(fix.lon) &&
    Math.abs(fix.lat) <= 90 && Math.abs(fix.lon) <= 180;
}

export function satellitesUsed() {
  const sky = s.sky;
  if (!sky) return null;
  if (Number.isInteger(sky.uSat)) return sky.uSat;
  return Array.isArray(sky.satellites) ? sky.satellites.filter((sat) => sat.used).length : null;
}

export function satellitesSeen() {
  const sky = s.sky;
  if (!sky) return null;
  if (Number.isInteger(sky.nSat)) return sky.nSat;
  return Array.isArray(sky.satellites) ? sky.satellites.length : null;
}

/* Measured on the browser's clock from the fix's arrival (at load: status.lastFixAge),
 * never by comparing the receiver's time with the browser's. */
export function fixAgeSeconds(now = performance.now()) {
  return s.fixArrivedAt == null ? null : (now - s.fixArrivedAt) / 1000;
}

/* ---------------------------------------------------------------- actions: the server */

/* What one load fetched (api/config, api/track, api/fix, api/sky, api/status,
 * api/distance, api/regions), replacing what an earlier load gave. */
export function applyLoad({ config, track, fix, sky, status, distance, regions }) {
  const first = !s.config;
  s.config = Object.freeze({
    version: config && config.version,
    staleSeconds: config && Number.isFinite(config.staleSeconds) ? config.staleSeconds : 3,
    monitor: config && config.monitor,
    tiles: config && config.tiles,
    layers: Object.freeze(config && Array.isArray(config.layers) ? config.layers.map(Object.freeze) : []),
  });

  const points = track && Array.isArray(track.points)
    ? track.points.filter((p) => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1]) && Number.isFinite(p[2]))
    : [];
  s.trackPoints = points;
  s.trackTotal = track && Number.isFinite(track.total) ? track.total : points.length;
  if (track && typeof track.lastEventId === 'string') s.lastEventId = track.lastEventId;

  s.status = status ? Object.freeze(status) : null;

  // The latest fix: /api/fix, else the track's last point. Its age from loctrack's
  // clock (status.lastFixAge), never from comparing the receiver's time with ours.
  let latest = validFix(fix) ? fix : null;
  if (!latest && points.length) {
    const p = points[points.length - 1];
    latest = { lat: p[1], lon: p[2], eph: Number.isFinite(p[3]) ? p[3] : undefined, time: new Date(p[0]).toISOString() };
  }
  if (latest) {
    s.fix = Object.freeze(latest);
    const age = status && Number.isFinite(status.lastFixAge) ? status.lastFixAge : 0;
    s.fixArrivedAt = performance.now() - age * 1000;
  }

  s.sky = sky ? Object.freeze(sky) : null;
  s.distance = distance ? Object.freeze(distance) : null;
  s.regions = regionsOf(regions);

  emit('config', { first });
  emit('track', { first });
  emit('status');
  if (latest) emit('fix');
  emit('sky');
  emit('distance');
  emit('regions');
  emit('loaded', { first });
}

/* A `fix` event. The marker and the panel show every fix as it comes (events come in
 * order); the track takes only a fix later than its last point: nothing twice. */
export function receiveFix(fix) {
  s.fixCount += 1;
  if (!validFix(fix)) return;
  s.fix = Object.freeze(fix);
  s.fixArrivedAt = performance.now();
  emit('fix');
  const ms = Date.parse(fix.time);
  const points = s.trackPoints;
  if (!Number.isFinite(ms) || (points.length > 0 && ms <= points[points.length - 1][0])) return;
  const point = [ms, fix.lat, fix.lon, Number.isFinite(fix.eph) ? fix.eph : null];
  points.push(point);
  s.trackTotal += 1;
  if (points.length > TRACK_MAX_POINTS_KEPT) {
    thinTrack();
    emit('track', { first: false });
  } else {
    emit('trackAppend', { point });
  }
}

/* A page left open for days keeps a bounded track: past TRACK_MAX_POINTS_KEPT points,
 * every second point of the older half goes (the newest half stays whole). */
function thinTrack() {
  const points = s.trackPoints;
  const half = Math.floor(points.length / 2);
  s.trackPoints = points.filter((_, i) => i >= half || i % 2 === 0);
}

/* A `sky` event. A SKY without satellites (some receivers send DOPs alone) keeps the
 * satellites of the one before. */
export function receiveSky(sky) {
  if (sky && !Array.isArray(sky.satellites) && s.sky && Array.isArray(s.sky.satellites)) {
    sky = Object.assign({}, sky, {
      satellites: s.sky.satellites,
      uSat: Number.isInteger(sky.uSat) ? sky.uSat : s.sky.uSat,
      nSat: Number.isInteger(sky.nSat) ? sky.nSat : s.sky.nSat,
    });
  }
  s.sky = sky ? Object.freeze(sky) : sky;
  emit('sky');
}

/* A `status` event. */
export function receiveStatus(status) {
  s.status = status ? Object.freeze(status) : status;
  emit('status');
}

/* A `distance` event: what api/distance would now say. */
export function receiveDistance(distance) {
  s.distance = distance ? Object.freeze(distance) : null;
  emit('distance');
}

/* A `region` event. False when it names a region this page has not seen (the monitor
 * changed): the caller then fetches the regions again. */
export function receiveRegionEvent(event) {
  if (!event || typeof event.state !== 'string') return true;
  const id = String(event.id);
  const region = s.regions.get(id);
  if (!region) return false;
  region.state = event.state;
  emit('region', { id });
  return true;
}

/* api/regions, fetched again. */
export function setRegions(collection) {
  s.regions = regionsOf(collection);
  emit('regions');
}

function regionsOf(collection) {
  const regions = new Map();
  const features = collection && Array.isArray(collection.features) ? collection.features : [];
  for (const feature of features) {
    const properties = feature.properties || {};
    const id = String(properties.id != null ? properties.id : feature.id);
    const regionState = typeof properties.state === 'string' ? properties.state : 'unknown';
    const title = typeof properties.title === 'string' && properties.title ? properties.title : id;
    regions.set(id, { title, state: regionState, feature });
  }
  return regions;
}

export function setLastEventId(id) {
  s.lastEventId = id;
}

/* ---------------------------------------------------------------- actions: the page */

export function setConnection({ loadError = s.loadError, eventsError = s.eventsError }) {
  if (loadError === s.loadError && eventsError === s.eventsError) return;
  s.loadError = loadError;
  s.eventsError = eventsError;
  emit('connection');
}

export function setFollow(on) {
  s.follow = on;
  emit('follow');
}

export function setHealth({ stale, banner, fixAge }) {
  s.stale = stale;
  s.banner = banner;
  s.fixAge = fixAge;
  emit('health');
}

/* Once: the first load is on screen. */
export function markReady(loadMs) {
  if (s.ready) return;
  s.loadMs = loadMs;
  s.ready = true;
}
