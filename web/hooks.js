/* loctrack serve: window.loctrack, what the browser tests and the benchmark read
 * (web/README.md, "For the browser tests"). Read-only: each property is computed when
 * read and returns plain values (copies), so a test cannot change the page. Also sets
 * `ready` and `loadMs` once the first load is on screen. */

import * as store from './store.js';
import * as words from './words.js';
import * as map from './map.js';
import { tileLayers } from './layers.js';
import { eventsOpen } from './feed.js';

// From the moment the modules run, before the first load: a violation then counts too.
const cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
});

export function start() {
  store.subscribe('loaded', ({ first }) => { if (first) finishFirstLoad(); });
  Object.defineProperty(window, 'loctrack', { value: view, writable: false, configurable: false, enumerable: true });
}

/* `ready` and `loadMs` once the first track is on screen: after the next paint. */
function finishFirstLoad() {
  const done = () => store.markReady(Math.round(performance.now()));
  if (document.visibilityState === 'hidden') {
    done();
  } else {
    requestAnimationFrame(() => setTimeout(done, 0));
    setTimeout(done, 1000); // a frame that never comes (a hidden tab) does not hold `ready` back
  }
}

function regionsBy(value) {
  const out = {};
  for (const [id, region] of store.state.regions) out[id] = value(region);
  return out;
}

const view = Object.freeze({
  get ready() { return store.state.ready; },
  get loadMs() { return store.state.loadMs; },
  get lastEventId() { return store.state.lastEventId; },
  get marker() { return map.markerLatLng(); },
  get accuracyRadius() { return map.accuracyRadius(); },
  get trackPoints() { return store.state.trackPoints.length; },
  get trackTotal() { return store.state.trackTotal; },
  get trackLast() {
    const points = store.state.trackPoints;
    const drawn = map.trackLastLatLng();
    return points.length && drawn ? [points[points.length - 1][0], drawn[0], drawn[1]] : null;
  },
  get fixCount() { return store.state.fixCount; },
  get status() { return store.state.status ? JSON.parse(JSON.stringify(store.state.status)) : null; },
  get distanceToday() {
    const distance = store.state.distance;
    return distance && Number.isFinite(distance.today) ? distance.today : null;
  },
  get moving() { return store.state.distance ? store.state.distance.moving === true : null; },
  get tripState() { return store.state.distance && store.state.distance.trip ? 'active' : 'none'; },
  get tripDistance() {
    const trip = store.state.distance && store.state.distance.trip;
    return trip && Number.isFinite(trip.distance) ? trip.distance : null;
  },
  get mode() { return store.state.fix ? words.mode(store.state.fix.mode) : ''; },
  get fixStatus() {
    const fix = store.state.fix;
    return fix && fix.mode != null ? words.fixStatus(fix.status) : '';
  },
  get satellitesUsed() { return store.satellitesUsed(); },
  get satellitesSeen() { return store.satellitesSeen(); },
  get regions() { return regionsBy((region) => region.state); },
  get regionColours() { return regionsBy((region) => words.regionColour(region.state)); },
  get stale() { return store.state.stale; },
  get banner() { return store.state.banner; },
  get follow() { return store.state.follow; },
  get eventsOpen() { return eventsOpen(); },
  get tiles() { return tileLayers().some((layer) => layer.shown); },
  get layers() { return tileLayers(); },
  get cspViolations() { return cspViolations.slice(); },
});
