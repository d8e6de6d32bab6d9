/* loctrack serve: the map. Draws what the store holds (the track, the fix and its
 * accuracy, the regions) with Leaflet, and moves the view only when it must: fitted once
 * on the first load, then only with Follow.
 *
 * `L` is the global of Debian's libjs-leaflet (leaflet.js, 1.7.1), which index.html loads
 * as a classic deferred script before app.js: it is there when this module runs.
 *
 * A new layer (distance rings, trips, the tile layers of layers.js) is a module of its own
 * that subscribes to the store and adds itself with whenMap(); this one needs no change. */

import * as store from './store.js';
import { regionColour } from './words.js';

const FIRST_ZOOM = 16;

// The view's own bookkeeping: Leaflet's objects, not the page's state.
let map = null;
let track = null;
let marker = null;
let accuracy = null;
let redrawPending = false;
let centred = false;                 // the view was fitted or centred once; never again by itself
let startingView = null;             // where to look with nothing to fit (setStartingView)
const regionLayers = new Map();      // region id -> its Leaflet layer
const waitingForMap = [];

export function start() {
  store.subscribe('config', ({ first }) => { if (first) create(); });
  store.subscribe('track', ({ first }) => {
    setTrack(store.state.trackPoints);
    if (first) fitOnce(store.state.fix);
  });
  store.subscribe('trackAppend', ({ point }) => appendTrack(point[1], point[2]));
  store.subscribe('fix', () => showFix(store.state.fix));
  store.subscribe('follow', () => {
    const fix = store.state.fix;
    if (store.state.follow && fix && map) map.setView([fix.lat, fix.lon], map.getZoom(), { animate: false });
  });
  store.subscribe('regions', showRegions);
  store.subscribe('region', ({ id }) => {
    const layer = regionLayers.get(id);
    const colour = regionColour(store.state.regions.get(id).state);
    if (layer) layer.setStyle({ color: colour, fillColor: colour });
  });
}

/* Calls `add(map)` once the map exists (the first load makes it): where another
 * module's layer joins the map. */
export function whenMap(add) {
  if (map) add(map);
  else waitingForMap.push(add);
}

/* Where the first view goes when the first load has neither a track nor a fix:
 * `{center: [lat, lon], zoom}` or `{bounds: [[south, west], [north, east]]}` (a chart's,
 * from layers.js). Offered from a whenMap callback, before the first fit. */
export function setStartingView(view) {
  startingView = view;
}

function create() {
  const container = document.getElementById('map');
  map = L.map(container, {
    preferCanvas: false,
    minZoom: 1,
    maxZoom: 22,
    zoomControl: true,
    attributionControl: true,
  });
  L.control.scale({ position: 'bottomleft' }).addTo(map);

  // Regions below the track; the fix above everything, the regions' labels
  // (tooltipPane, 650) included: standing in a region must not hide the fix.
  map.createPane('regions').style.zIndex = '350';
  map.createPane('fix').style.zIndex = '660';

  track = L.polyline([], {
    className: 'track', color: '#0b4fd6', weight: 3, opacity: 0.85, interactive: false,
  }).addTo(map);

  // The user moving the map ends following: the map never fights the hand.
  map.on('dragstart', () => store.setFollow(false));

  for (const add of waitingForMap.splice(0)) add(map);
}

function setTrack(points) {
  track.setLatLngs(points.map((p) => [p[1], p[2]]));
}

/* Appends to the one polyline without re-creating it. Leaflet's addLatLng would
 * re-project the whole line for each point; a burst of replayed fixes after a
 * reconnect is drawn once, in the next frame, instead. */
function appendTrack(lat, lon) {
  const latlng = L.latLng(lat, lon);
  track.getLatLngs().push(latlng);
  track.getBounds().extend(latlng);
  if (!redrawPending) {
    redrawPending = true;
    requestAnimationFrame(() => {
      redrawPending = false;
      track.redraw();
    });
  }
}

function showFix(fix) {
  const latlng = L.latLng(fix.lat, fix.lon);
  if (!marker) {
    marker = L.circleMarker(latlng, {
      pane: 'fix', className: 'fix-marker', radius: 8, weight: 3,
      color: '#ffffff', fillColor: '#0b4fd6', fillOpacity: 1, interactive: false,
    });
    accuracy = L.circle(latlng, {
      className: 'fix-accuracy', radius: 1, weight: 1.5,
      color: '#0b4fd6', fillColor: '#0b4fd6', fillOpacity: 0.12, interactive: false,
    });
    marker.addTo(map);
  }
  marker.setLatLng(latlng);
  // The accuracy circle only when the fix says its eph (no guessed circle).
  if (Number.isFinite(fix.eph) && fix.eph > 0) {
    accuracy.setLatLng(latlng);
    accuracy.setRadius(fix.eph);
    if (!map.hasLayer(accuracy)) accuracy.addTo(map);
  } else if (map.hasLayer(accuracy)) {
    map.removeLayer(accuracy);
  }
  if (store.state.follow) {
    map.setView(latlng, map.getZoom(), { animate: false });
  } else if (!centred) {
    centred = true;
    map.setView(latlng, FIRST_ZOOM, { animate: false });
  }
}

/* Once, on the first load: the whole track, else the fix, else the starting view a
 * chart offered, else the world (and then the first fix that comes centres the map,
 * once). Never again by itself. */
function fitOnce(latest) {
  const bounds = track.getBounds();
  const bottom = window.matchMedia('(min-width: 900px)').matches ? 24 : 90;
  const padding = { paddingTopLeft: [24, 48], paddingBottomRight: [24, bottom], animate: false };
  if (bounds.isValid()) {
    centred = true;
    map.fitBounds(bounds, Object.assign({ maxZoom: 17 }, padding));
  } else if (latest) {
    centred = true;
    map.setView([latest.lat, latest.lon], FIRST_ZOOM, { animate: false });
  } else if (startingView && startingView.bounds) {
    map.fitBounds(startingView.bounds, padding);
  } else if (startingView) {
    map.setView(startingView.center, startingView.zoom, { animate: false });
  } else {
    map.setView([20, 0], 2, { animate: false });
  }
}

function showRegions() {
  for (const layer of regionLayers.values()) map.removeLayer(layer);
  regionLayers.clear();
  for (const [id, region] of store.state.regions) {
    const layer = regionLayer(region.feature, regionColour(region.state));
    if (!layer) continue;
    // A text node, not a string: Leaflet would set a string as HTML.
    const label = document.createElement('span');
    label.textContent = region.title;
    layer.bindTooltip(label, { permanent: true, direction: 'center', className: 'region-label' });
    layer.addTo(map);
    regionLayers.set(id, layer);
  }
}

function regionLayer(feature, colour) {
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
}

/* ---------------------------------------------------------------- as drawn, for window.loctrack */

/* [lat, lon] of the position marker as drawn, or null. */
export function markerLatLng() {
  if (!marker) return null;
  const ll = marker.getLatLng();
  return [ll.lat, ll.lng];
}

/* The accuracy circle's radius in metres, or null when none is drawn. */
export function accuracyRadius() {
  return accuracy && map.hasLayer(accuracy) ? accuracy.getRadius() : null;
}

/* [lat, lon] of the track's last point as drawn, or null. */
export function trackLastLatLng() {
  const latlngs = track ? track.getLatLngs() : [];
  const last = latlngs[latlngs.length - 1];
  return last ? [last.lat, last.lng] : null;
}
