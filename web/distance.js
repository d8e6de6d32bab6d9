/* loctrack serve: the distance panel (#distance-section): today's distance, whether the
 * receiver moves, and the trip under way, as api/distance and the `distance` event say
 * them (serve's own odometer and trip rules: docs/http.md). It writes only its own
 * section, and keeps the values in data-* attributes for the browser tests:
 * data-distance-today (metres), data-day, data-moving, data-trip-state ("none" or
 * "active"), data-trip-distance (metres), data-trip-start (ISO time). */

import * as store from './store.js';
import * as words from './words.js';

const $ = (id) => document.getElementById(id);

function setText(id, text) {
  const element = $(id);
  if (element && element.textContent !== text) element.textContent = text;
}

export function start() {
  store.subscribe('distance', () => show(store.state.distance));
}

function show(distance) {
  const section = $('distance-section');
  if (!section) return;
  const today = distance && Number.isFinite(distance.today) ? distance.today : null;
  const trip = distance && distance.trip && typeof distance.trip === 'object' ? distance.trip : null;
  const data = section.dataset;
  data.distanceToday = today == null ? '' : String(today);
  data.day = distance && typeof distance.day === 'string' ? distance.day : '';
  data.moving = distance ? String(distance.moving === true) : '';
  data.tripState = trip ? 'active' : 'none';
  data.tripDistance = trip && Number.isFinite(trip.distance) ? String(trip.distance) : '';
  data.tripStart = trip && typeof trip.start === 'string' ? trip.start : '';

  setText('distance-day', data.day ? `Today (${data.day})` : 'Today');
  setText('distance-today', words.distance(today));
  setText('moving', distance ? (distance.moving ? 'moving' : 'stopped') : '—');
  setText('trip', trip ? words.trip(trip) : 'none');
}
