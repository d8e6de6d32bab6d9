/* loctrack serve: the panel (the summary line and #details). Shows what the store holds
 * in words (words.js), and the sky through sky.js. It only writes text and the few
 * elements it owns (the region list); it decides nothing.
 *
 * A new panel (distance, trips, charts) is a section in index.html and a module of its
 * own that subscribes to the store, as this one does. */

import * as store from './store.js';
import * as words from './words.js';
import { drawLegend, drawSignalBars, drawSkyPlot } from './sky.js';

const $ = (id) => document.getElementById(id);

function setText(id, text) {
  const element = $(id);
  if (element && element.textContent !== text) element.textContent = text;
}

const regionItems = new Map();   // region id -> its <li>

export function start() {
  store.subscribe('config', ({ first }) => {
    if (first) setText('version', store.state.config.version || '');
  });
  store.subscribe('track', showTrackCount);
  store.subscribe('trackAppend', showTrackCount);
  store.subscribe('fix', () => showFix(store.state.fix));
  store.subscribe('sky', () => showSky(store.state.sky));
  store.subscribe('status', () => showStatus(store.state.status));
  store.subscribe('regions', showRegionList);
  store.subscribe('region', ({ id }) => showRegionState(id));
  store.subscribe('health', showHealth);
}

function showFix(fix) {
  setText('fix-mode', words.mode(fix.mode) || '—');
  // A fix known only from the track has no mode, hence no status either.
  setText('fix-status', fix.mode != null ? words.fixStatus(fix.status) : '—');
  setText('position', words.position(fix.lat, fix.lon));
  setText('eph', words.eph(fix.eph));
  setText('fix-time', words.time(fix.time));
  setText('speed', words.speed(fix.speed));
  setText('course', words.course(fix.track));
  setText('altitude', words.altitude(fix));
  if (fix.device) setText('device', fix.device);
}

function showSky(sky) {
  const satellites = Array.isArray(sky && sky.satellites) ? sky.satellites : [];
  const used = store.satellitesUsed();
  const seen = store.satellitesSeen();
  setText('sat-used', Number.isFinite(used) ? String(used) : '—');
  setText('sat-seen', Number.isFinite(seen) ? String(seen) : '—');
  setText('hdop', words.number(sky && sky.hdop, 2));
  setText('vdop', words.number(sky && sky.vdop, 2));
  setText('pdop', words.number(sky && sky.pdop, 2));
  drawSkyPlot($('sky-plot'), satellites);
  drawSignalBars($('signal-bars'), satellites);
  drawLegend($('sky-legend'), satellites);
}

function showStatus(status) {
  if (!status) return;
  const gpsd = status.gpsd + (status.gpsd === 'connected' && status.release ? ` (${status.release})` : '');
  setText('gpsd-state', status.gpsd ? gpsd : '—');
  setText('receiver-state', status.receiver || '—');
  if (status.device) setText('device', status.device);
  setText('status-message', typeof status.message === 'string' ? status.message : '');
}

function showTrackCount() {
  const drawn = store.state.trackPoints.length;
  setText('track-count', `${words.count(store.state.trackTotal)} fixes, ${words.count(drawn)} drawn`);
}

/* The banner, the fix's age, and body.stale, which greys the marker and the panel
 * (app.css). */
function showHealth() {
  const { banner: text, fixAge, stale } = store.state;
  const banner = $('banner');
  if (banner.textContent !== text) banner.textContent = text;
  banner.hidden = text === '';
  setText('fix-age', words.age(fixAge));
  if (document.body.classList.contains('stale') !== stale) document.body.classList.toggle('stale', stale);
}

function showRegionList() {
  const list = $('region-list');
  const regions = store.state.regions;
  $('regions-section').hidden = regions.size === 0;
  const monitor = store.state.monitor;
  setText('monitor-name', monitor ? `monitor ${monitor}` : '');
  while (list.firstChild) list.removeChild(list.firstChild);
  regionItems.clear();
  for (const [id, region] of regions) {
    const item = document.createElement('li');
    item.id = `region-${id}`;
    item.dataset.region = id;
    const swatch = document.createElement('span');
    swatch.className = 'region-swatch';
    const title = document.createElement('span');
    title.className = 'region-title';
    title.textContent = region.title;
    const state = document.createElement('span');
    state.className = 'region-state';
    item.append(swatch, title, state);
    list.appendChild(item);
    regionItems.set(id, item);
    showRegionState(id);
  }
}

function showRegionState(id) {
  const item = regionItems.get(id);
  if (!item) return;
  const regionState = store.state.regions.get(id).state;
  const colour = words.regionColour(regionState);
  item.dataset.state = regionState;
  item.querySelector('.region-swatch').style.backgroundColor = colour;
  const state = item.querySelector('.region-state');
  state.textContent = words.regionWords(regionState);
  state.style.color = colour;
}
