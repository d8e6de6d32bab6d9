/* loctrack serve: how the page says gpsd's values, in words and colours. Pure functions
 * of their arguments, no state and no DOM: the panel, the map and window.loctrack all
 * say a value the same way because they all ask here. */

const FIX_STATUS = Object.freeze({
  1: 'GPS', 2: 'DGPS', 3: 'RTK fixed', 4: 'RTK float', 5: 'dead reckoning',
  6: 'GNSS + dead reckoning', 7: 'time only', 8: 'simulated', 9: 'P(Y)',
});

export const REGION_COLOURS = Object.freeze({
  satisfied: '#137a33',    // inside: green
  unsatisfied: '#b44f00',  // outside: amber
  unknown: '#6b6b6b',      // grey
});

const REGION_WORDS = Object.freeze({ satisfied: 'inside', unsatisfied: 'outside', unknown: 'unknown' });

export function regionColour(regionState) {
  return REGION_COLOURS[regionState] || REGION_COLOURS.unknown;
}

export function regionWords(regionState) {
  return REGION_WORDS[regionState] || regionState;
}

export function mode(value) {
  if (value === 3) return '3D';
  if (value === 2) return '2D';
  return value == null ? '' : 'no fix';
}

// `status` is absent for a plain GNSS fix (docs/json.md).
export function fixStatus(status) {
  if (status == null || status === 1 || status === 0) return 'GPS';
  return FIX_STATUS[status] || `status ${status}`;
}

export function number(value, digits) {
  return Number.isFinite(value) ? value.toFixed(digits) : '—';
}

export function position(lat, lon) {
  const ns = lat >= 0 ? 'N' : 'S';
  const ew = lon >= 0 ? 'E' : 'W';
  return `${Math.abs(lat).toFixed(6)}° ${ns}, ${Math.abs(lon).toFixed(6)}° ${ew}`;
}

export function speed(value) {
  if (!Number.isFinite(value)) return '—';
  return `${value.toFixed(2)} m/s · ${(value * 3.6).toFixed(1)} km/h`;
}

export function course(track) {
  if (!Number.isFinite(track)) return '—';
  const points = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];
  const point = points[Math.round((((track % 360) + 360) % 360) / 45) % 8];
  return `${track.toFixed(1)}° ${point}`;
}

export function altitude(fix) {
  if (Number.isFinite(fix.altMSL)) return `${fix.altMSL.toFixed(1)} m MSL`;
  if (Number.isFinite(fix.altHAE)) return `${fix.altHAE.toFixed(1)} m HAE`;
  return '—';
}

export function eph(value) {
  return Number.isFinite(value) ? `± ${value.toFixed(1)} m` : '—';
}

// The receiver's time, in UTC as gpsd gives it; the browser's clock is not used.
export function time(iso) {
  if (typeof iso !== 'string') return '—';
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(\.\d+)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

export function age(seconds) {
  if (seconds == null) return '—';
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export function count(n) {
  return Number.isFinite(n) ? n.toLocaleString('en') : '—';
}

// The banner's text, worst first; "" when all is well.
export function banner({ loctrackUnreachable, status }) {
  if (loctrackUnreachable) return 'loctrack unreachable — reconnecting';
  if (!status) return '';
  if (status.gpsd === 'unreachable') return 'gpsd unreachable';
  if (status.receiver === 'lost') return 'device lost';
  if (status.receiver === 'no fix') return 'no fix';
  return '';
}

// Metres as a person reads a distance: metres below 1 km, else km with 2 decimals.
export function distance(metres) {
  if (!Number.isFinite(metres)) return '—';
  return metres < 1000 ? `${Math.round(metres)} m` : `${(metres / 1000).toFixed(2)} km`;
}

// `H:MM:SS` of whole seconds.
export function duration(seconds) {
  if (!Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  const pad = (n) => String(n).padStart(2, '0');
  return `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

// The trip under way: its distance and duration so far, and when it started (UTC, the
// receiver's time, as the fix's time is shown).
export function trip({ distance: metres, duration: seconds, start }) {
  const since = typeof start === 'string' ? time(start).replace(/^\d{4}-\d\d-\d\d /, '') : '—';
  return `${distance(metres)} in ${duration(seconds)}, since ${since}`;
}
