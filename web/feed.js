/* loctrack serve: the feed, the page's only transport (docs/http.md is the API).
 *
 * Without gaps: load api/config, api/track, api/fix, api/sky, api/status, api/distance and
 * api/regions together, hand them to the store, then open events?after=<the track's lastEventId>,
 * so the stream starts exactly after the last fix the track holds. The browser's
 * EventSource sends Last-Event-ID on its own reconnects; when the server refused the
 * stream (503 when full, 401) this opens a new one from the last id seen. A `reset`
 * event (the server's ring no longer reaches back that far, or it restarted) loads all
 * of it again.
 *
 * It draws nothing: each event becomes one store action. */

import * as store from './store.js';

const TRACK_MAX_POINTS_LOADED = 5000;  // what the page asks the server to thin to
const RELOAD_RETRY_MS = 2000;
const EVENTS_RETRY_MS = 3000;          // after the server refused the stream (503, 401)

let loadGeneration = 0;                // a load that a later one overtook applies nothing
let events = null;                     // the EventSource
let eventsRetry = null;
let regionsRefreshing = false;

export function start() {
  load();
}

/* Whether the event stream is open (window.loctrack.eventsOpen). */
export function eventsOpen() {
  return events !== null && events.readyState === EventSource.OPEN;
}

async function getJSON(path) {
  const response = await fetch(path, {
    cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' },
  });
  if (response.status === 204) return null;
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

async function load() {
  const generation = ++loadGeneration;
  closeEvents();
  let config, track, fix, sky, status, distance, regions;
  try {
    [config, track, fix, sky, status, distance, regions] = await Promise.all([
      getJSON('api/config'),
      getJSON(`api/track?format=points&max=${TRACK_MAX_POINTS_LOADED}`),
      getJSON('api/fix'),
      getJSON('api/sky'),
      getJSON('api/status'),
      getJSON('api/distance'),
      getJSON('api/regions'),
    ]);
  } catch (error) {
    if (generation !== loadGeneration) return;
    console.warn('loctrack: loading failed, retrying', error);
    store.setConnection({ loadError: true });
    setTimeout(() => { if (generation === loadGeneration) load(); }, RELOAD_RETRY_MS);
    return;
  }
  if (generation !== loadGeneration) return;
  store.setConnection({ loadError: false });
  store.applyLoad({ config, track, fix, sky, status, distance, regions });
  openEvents(track && typeof track.lastEventId === 'string' ? track.lastEventId : null);
}

async function refreshRegions() {
  if (regionsRefreshing) return;
  regionsRefreshing = true;
  try {
    store.setRegions(await getJSON('api/regions'));
  } catch (error) {
    console.warn('loctrack: reloading the regions failed', error);
  } finally {
    regionsRefreshing = false;
  }
}

/* Each event the server sends (docs/http.md, Event stream), and what it becomes. */
const handlers = Object.freeze({
  fix: store.receiveFix,
  sky: store.receiveSky,
  status: store.receiveStatus,
  distance: store.receiveDistance,
  region(event) {
    if (!store.receiveRegionEvent(event)) refreshRegions(); // a region this page has not seen: the monitor changed
  },
  reset() {
    load();
  },
});

function openEvents(after) {
  closeEvents();
  const url = after ? `events?after=${encodeURIComponent(after)}` : 'events';
  const source = new EventSource(url);
  events = source;
  source.onopen = () => {
    if (events === source) store.setConnection({ eventsError: false });
  };
  source.onerror = () => {
    if (events !== source) return;
    // CONNECTING: the browser retries by itself, with Last-Event-ID. CLOSED: the
    // server refused the stream (503 when full, 401): open a new one after a pause.
    if (source.readyState === EventSource.CLOSED) {
      clearTimeout(eventsRetry);
      eventsRetry = setTimeout(() => {
        if (events === source) openEvents(store.state.lastEventId);
      }, EVENTS_RETRY_MS);
    }
    store.setConnection({ eventsError: true });
  };
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => receive(source, event, handler));
  }
}

function closeEvents() {
  clearTimeout(eventsRetry);
  if (events) {
    events.close();
    events = null;
  }
  store.setConnection({ eventsError: false });
}

function receive(source, event, handler) {
  if (events !== source) return; // a late event of a stream already closed
  store.setConnection({ eventsError: false });
  if (event.lastEventId) store.setLastEventId(event.lastEventId);
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
