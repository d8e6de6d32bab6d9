/* loctrack serve: the sky plot and the signal bars, drawn as SVG from gpsd's SKY
 * satellites. No state of its own: each call redraws from the satellites it is given,
 * so a SKY report (a few dozen satellites, about once a second) costs one small redraw.
 * panel.js decides when to call it. */

const SVG_NS = 'http://www.w3.org/2000/svg';

// gpsd's gnssid values. Colours from the Okabe–Ito palette, told apart with the
// usual kinds of colour blindness, and dark enough to read on white in sunlight.
export const CONSTELLATIONS = Object.freeze([
  Object.freeze({ id: 0, name: 'GPS', colour: '#0060a8' }),
  Object.freeze({ id: 1, name: 'SBAS', colour: '#7a5230' }),
  Object.freeze({ id: 2, name: 'Galileo', colour: '#b4407f' }),
  Object.freeze({ id: 3, name: 'BeiDou', colour: '#c24e00' }),
  Object.freeze({ id: 4, name: 'IMES', colour: '#333333' }),
  Object.freeze({ id: 5, name: 'QZSS', colour: '#00815c' }),
  Object.freeze({ id: 6, name: 'GLONASS', colour: '#b07d00' }),
  Object.freeze({ id: 7, name: 'NavIC', colour: '#2f8fc6' }),
]);
const UNKNOWN = Object.freeze({ id: -1, name: 'other', colour: '#555555' });

// Older gpsd and plain NMEA receivers send no gnssid: gpsd's PRN numbering then says it.
function gnssidFromPRN(prn) {
  if (prn >= 1 && prn <= 32) return 0;
  if ((prn >= 33 && prn <= 64) || (prn >= 120 && prn <= 158)) return 1;
  if (prn >= 65 && prn <= 96) return 6;
  if (prn >= 193 && prn <= 200) return 5;
  if (prn >= 201 && prn <= 263) return 3;
  if (prn >= 301 && prn <= 336) return 2;
  return -1;
}

export function constellationOf(sat) {
  const id = Number.isInteger(sat.gnssid) ? sat.gnssid : gnssidFromPRN(sat.PRN);
  return CONSTELLATIONS[id] || UNKNOWN;
}

function node(name, attributes, parent, text) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  if (parent) parent.appendChild(element);
  return element;
}

function clear(element) {
  while (element.firstChild) element.removeChild(element.firstChild);
}

function label(sat) {
  return Number.isFinite(sat.PRN) ? String(sat.PRN) : '?';
}

// Same constellation together, then by PRN: the order of the bars and of the dots' paint.
function ordered(satellites) {
  return satellites.slice().sort((a, b) =>
    constellationOf(a).id - constellationOf(b).id || (a.PRN || 0) - (b.PRN || 0));
}

const R = 100; // the horizon's radius in the plot's units

/* Azimuth clockwise from north at the top; elevation 90° at the centre, 0° at the rim.
 * Filled dot: used in the fix; hollow: seen, not used. */
export function drawSkyPlot(svg, satellites) {
  clear(svg);
  svg.setAttribute('viewBox', '-122 -122 244 244');
  svg.setAttribute('role', 'img');
  const list = Array.isArray(satellites) ? satellites : [];
  const used = list.filter((s) => s.used).length;
  svg.setAttribute('aria-label', `Sky plot: ${list.length} satellites seen, ${used} used`);

  const grid = node('g', { class: 'sky-grid' }, svg);
  node('circle', { cx: 0, cy: 0, r: R, class: 'sky-horizon' }, grid);
  for (const elevation of [30, 60]) {
    node('circle', { cx: 0, cy: 0, r: (R * (90 - elevation)) / 90, class: 'sky-ring' }, grid);
  }
  node('line', { x1: -R, y1: 0, x2: R, y2: 0, class: 'sky-ring' }, grid);
  node('line', { x1: 0, y1: -R, x2: 0, y2: R, class: 'sky-ring' }, grid);
  const compass = [['N', 0, -108], ['E', 110, 0], ['S', 0, 112], ['W', -110, 0]];
  for (const [text, x, y] of compass) {
    node('text', { x, y, class: 'sky-compass', 'text-anchor': 'middle', 'dominant-baseline': 'middle' }, grid, text);
  }
  for (const elevation of [30, 60]) {
    node('text', { x: 3, y: -(R * (90 - elevation)) / 90 + 9, class: 'sky-elevation' }, grid, `${elevation}°`);
  }

  const dots = node('g', { class: 'sky-satellites' }, svg);
  for (const sat of ordered(list)) {
    if (!Number.isFinite(sat.el) || !Number.isFinite(sat.az) || sat.el < 0) continue;
    const r = (R * (90 - Math.min(sat.el, 90))) / 90;
    const a = (sat.az * Math.PI) / 180;
    const x = r * Math.sin(a);
    const y = -r * Math.cos(a);
    const { colour, name } = constellationOf(sat);
    const group = node('g', {
      class: sat.used ? 'sat used' : 'sat unused',
      'data-prn': sat.PRN,
      'data-gnss': name,
    }, dots);
    node('title', {}, group,
      `${name} ${label(sat)}: elevation ${sat.el}°, azimuth ${sat.az}°` +
      (Number.isFinite(sat.ss) ? `, ${sat.ss} dBHz` : '') + (sat.used ? ', used' : ', not used'));
    node('circle', {
      cx: x.toFixed(1), cy: y.toFixed(1), r: 6,
      fill: sat.used ? colour : '#ffffff', stroke: colour, 'stroke-width': 2.5,
    }, group);
    node('text', { x: (x + 8).toFixed(1), y: (y + 4).toFixed(1), class: 'sat-label', fill: colour }, group, label(sat));
  }
}

const BAR = 22;        // px per satellite: room for a three-digit PRN
const PLOT_H = 100;    // px for 0…MAX_DBHZ
const MAX_DBHZ = 60;
const AXIS_W = 26;

/* One bar per satellite, its height the signal in dBHz (0–60), filled when used.
 * Drawn at a fixed pixel size and scrolled sideways when there are many satellites,
 * so that the PRNs stay readable on a phone. */
export function drawSignalBars(svg, satellites) {
  clear(svg);
  const list = ordered(Array.isArray(satellites) ? satellites : []);
  const width = AXIS_W + Math.max(list.length, 8) * BAR + 4;
  const height = PLOT_H + 30;
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `Signal strength of ${list.length} satellites, in dBHz`);

  const top = 8;
  const grid = node('g', { class: 'bars-grid' }, svg);
  for (const level of [0, 20, 40, 60]) {
    const y = top + PLOT_H - (PLOT_H * level) / MAX_DBHZ;
    node('line', { x1: AXIS_W, y1: y, x2: width, y2: y, class: level === 0 ? 'bars-base' : 'bars-line' }, grid);
    node('text', { x: AXIS_W - 4, y: y + 4, class: 'bars-axis', 'text-anchor': 'end' }, grid, String(level));
  }

  list.forEach((sat, index) => {
    const { colour, name } = constellationOf(sat);
    const ss = Number.isFinite(sat.ss) ? Math.max(0, Math.min(sat.ss, MAX_DBHZ)) : 0;
    const h = (PLOT_H * ss) / MAX_DBHZ;
    const x = AXIS_W + index * BAR + 3;
    const group = node('g', {
      class: sat.used ? 'bar used' : 'bar unused',
      'data-prn': sat.PRN,
      'data-gnss': name,
      'data-ss': Number.isFinite(sat.ss) ? sat.ss : '',
    }, svg);
    node('title', {}, group,
      `${name} ${label(sat)}: ` + (Number.isFinite(sat.ss) ? `${sat.ss} dBHz` : 'no signal') +
      (sat.used ? ', used' : ', not used'));
    if (h > 0) {
      node('rect', {
        x, y: (top + PLOT_H - h).toFixed(1), width: BAR - 6, height: h.toFixed(1),
        fill: sat.used ? colour : '#ffffff', stroke: colour, 'stroke-width': 2,
      }, group);
    }
    node('text', {
      x: x + (BAR - 6) / 2, y: top + PLOT_H + 14, class: 'bar-label', 'text-anchor': 'middle', fill: colour,
    }, group, label(sat));
  });
}

/* The constellations present, as coloured chips with "used/seen" counts. */
export function drawLegend(container, satellites) {
  while (container.firstChild) container.removeChild(container.firstChild);
  const list = Array.isArray(satellites) ? satellites : [];
  const present = new Map();
  for (const sat of list) {
    const c = constellationOf(sat);
    const entry = present.get(c.id) || { c, seen: 0, used: 0 };
    entry.seen += 1;
    if (sat.used) entry.used += 1;
    present.set(c.id, entry);
  }
  for (const { c, seen, used } of [...present.values()].sort((a, b) => a.c.id - b.c.id)) {
    const item = document.createElement('span');
    item.className = 'legend-item';
    const chip = document.createElement('span');
    chip.className = 'legend-chip';
    chip.style.backgroundColor = c.colour; // CSSOM, allowed by style-src 'self'
    item.appendChild(chip);
    item.appendChild(document.createTextNode(`${c.name} ${used}/${seen}`));
    container.appendChild(item);
  }
}
