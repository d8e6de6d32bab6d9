/* loctrack serve: the tile layers, all of them, in one place (web/README.md).
 *
 * From api/config, once the map exists:
 *   tiles   the online base map of --tiles (or null), fetched by the browser from there;
 *   layers  the charts of --tiles-file, each served by loctrack at tiles/N/{z}/{x}/{y}.EXT,
 *           a base layer or an overlay (`overlay`), in the order given.
 * The base shown first is the first chart that is a base layer, else the online map; every
 * overlay is on. A layer switch only when there is a choice to make (two layers or more, or
 * an overlay). Without any base layer the map keeps its plain background (#map.no-tiles).
 *
 * Names and attributions come from the chart files: text, never HTML. Leaflet inserts both
 * as HTML (the switch's labels, the attribution line), so they are escaped here.
 *
 * Past a chart's last zoom level its tiles are scaled up (maxNativeZoom), so zooming in
 * never turns a chart grey or drops an overlay; below its first level its tiles are scaled
 * down for a few levels, then it is hidden (UNDER_ZOOM_LEVELS). */

import * as store from './store.js';
import { whenMap, setStartingView } from './map.js';

const MAP_MIN_ZOOM = 1;         // map.js's
const MAP_MAX_ZOOM = 22;        // map.js's: every layer may be over-zoomed up to it
const ONLINE_MAX_NATIVE_ZOOM = 19;
/* How far below its first level a chart is still drawn (its first level scaled down).
 * Leaflet walks every tile address of the view at the chart's first level, inside the
 * chart's bounds or not, so each level down costs 4 times the work: 3 levels is 64 times a
 * view's tiles; 12 (a chart of zoom 14 seen at zoom 2) would be 16 million and hang the page. */
const UNDER_ZOOM_LEVELS = 3;
const WORLD = Object.freeze([-180, -85.051129, 180, 85.051129]);
const FORMATS = Object.freeze(['png', 'jpg', 'webp']);

const HTML_ESCAPES = Object.freeze({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' });
const escapeHTML = (text) => String(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

// What this module drew: Leaflet's objects, not the page's state.
let drawnOn = null;  // the map
const drawn = [];    // { name, overlay, online, layer }, in the switch's order

export function start() {
  whenMap(addLayers);
}

function addLayers(map) {
  drawnOn = map;
  const config = store.state.config || {};
  const charts = (config.layers || []).map(chartLayer).filter((chart) => chart !== null);
  const online = onlineLayer(config.tiles);
  const bases = charts.filter((chart) => !chart.overlay).concat(online ? [online] : []);
  const overlays = charts.filter((chart) => chart.overlay);

  // Bases under overlays, overlays in the order given; set here, not by the switch
  // (autoZIndex off), so that it holds whichever base is picked.
  bases.forEach((entry) => entry.layer.setZIndex(1));
  overlays.forEach((entry, index) => entry.layer.setZIndex(2 + index));

  if (bases.length > 0) bases[0].layer.addTo(map);
  else map.getContainer().classList.add('no-tiles');
  for (const overlay of overlays) overlay.layer.addTo(map);
  drawn.push(...bases, ...overlays);

  if (bases.length + overlays.length > 1 || overlays.length > 0) {
    const control = L.control.layers(null, null, { collapsed: true, autoZIndex: false, position: 'topright' });
    for (const entry of bases) control.addBaseLayer(entry.layer, escapeHTML(entry.name));
    for (const entry of overlays) control.addOverlay(entry.layer, escapeHTML(entry.name));
    control.addTo(map);
  }

  const view = startingView(charts.filter((chart) => !chart.overlay).concat(overlays));
  if (view) setStartingView(view);
}

/* A chart of --tiles-file (api/config's `layers`), or null when the entry is not one. */
function chartLayer(layer, index) {
  if (!layer || typeof layer.url !== 'string' || !/^\/[^/]/.test(layer.url)) return null;
  if (!FORMATS.includes(layer.format)) return null;
  const number = (/^\/tiles\/([0-9]+)\//.exec(layer.url) || [])[1] || String(index + 1);
  const minzoom = zoomLevel(layer.minzoom, 0);
  const maxzoom = Math.max(minzoom, zoomLevel(layer.maxzoom, MAP_MAX_ZOOM));
  const bounds = Array.isArray(layer.bounds) && layer.bounds.length === 4 && layer.bounds.every(Number.isFinite)
    ? layer.bounds : WORLD;
  const [west, south, east, north] = bounds;
  const options = {
    className: `tiles-file tiles-file-${number}`,
    minZoom: Math.max(MAP_MIN_ZOOM, minzoom - UNDER_ZOOM_LEVELS),
    maxZoom: MAP_MAX_ZOOM,
    minNativeZoom: minzoom,
    maxNativeZoom: maxzoom,
    attribution: typeof layer.attribution === 'string' ? escapeHTML(layer.attribution) : '',
  };
  // No tile is asked for outside the chart (a bounds across the antimeridian: none given).
  if (west < east && south < north) options.bounds = L.latLngBounds([south, west], [north, east]);
  const name = typeof layer.name === 'string' && layer.name.trim() ? layer.name : `Chart ${number}`;
  return {
    name,
    overlay: layer.overlay === true,
    online: false,
    // The server gives the address from its root; the page asks relative to itself, as
    // for every address it uses, so that it also works behind a reverse proxy under a path.
    layer: L.tileLayer(layer.url.slice(1), options),
    bounds,
    center: Array.isArray(layer.center) && layer.center.length === 3 && layer.center.every(Number.isFinite)
      ? layer.center : null,
    minzoom,
    maxzoom,
  };
}

/* The online base map of --tiles, or null without it. */
function onlineLayer(tiles) {
  if (!tiles || typeof tiles.url !== 'string' || !tiles.url) return null;
  const host = /^https?:\/\/(?:\{s\}\.)?([^/:]+)/.exec(tiles.url);
  return {
    name: host ? `Online: ${host[1]}` : 'Online map',
    overlay: false,
    online: true,
    layer: L.tileLayer(tiles.url, {
      className: 'tiles-online',
      attribution: typeof tiles.attribution === 'string' ? escapeHTML(tiles.attribution) : '',
      maxNativeZoom: ONLINE_MAX_NATIVE_ZOOM,
      maxZoom: MAP_MAX_ZOOM,
    }),
  };
}

function zoomLevel(value, otherwise) {
  return Number.isInteger(value) && value >= 0 && value <= 30 ? value : otherwise;
}

/* Where the view starts when there is neither a track nor a fix to fit (map.js decides
 * that): the first chart's centre, else its bounds, unless they are the whole world; base
 * charts first (overlays alone: the first overlay's). */
function startingView(charts) {
  for (const chart of charts) {
    if (chart.center) {
      const [lon, lat, zoom] = chart.center;
      const shown = Math.min(Math.max(zoom, chart.minzoom, MAP_MIN_ZOOM), chart.maxzoom, MAP_MAX_ZOOM);
      if (Math.abs(lat) <= 90 && Math.abs(lon) <= 180) return { center: [lat, lon], zoom: Math.round(shown) };
    }
    const [west, south, east, north] = chart.bounds;
    const world = east - west >= 359 && north - south >= 170;
    if (!world && west < east && south < north) return { bounds: [[south, west], [north, east]] };
  }
  return null;
}

/* ---------------------------------------------------------------- as drawn, for window.loctrack */

/* Every tile layer, in the switch's order: bases (the charts, then the online map), then
 * overlays; `shown` is whether it is on the map now. */
export function tileLayers() {
  return drawn.map(({ name, overlay, online, layer }) => ({
    name, overlay, online, shown: drawnOn.hasLayer(layer),
  }));
}
