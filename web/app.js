/* loctrack serve: the page's entry module, the one index.html loads. It only joins the
 * others (web/README.md):
 *
 *   store.js      the page's state, its one owner: the others read it and subscribe
 *   feed.js       the transport: loading, /events, reconnecting with Last-Event-ID
 *   map.js        the map: track, fix, accuracy, regions (Leaflet)
 *   layers.js     the tile layers: the online map, the charts, the layer switch
 *   panel.js      the panel: readings, sky, regions, banner (sky.js draws the sky)
 *   distance.js   the distance panel: today's distance, motion, the trip under way
 *   controls.js   Follow and the phone's details toggle
 *   staleness.js  the clock that judges a fix stale
 *   hooks.js      window.loctrack for the browser tests
 *   words.js      gpsd's values in words and colours
 *
 * Importing them here, all at once, lets the browser fetch them in parallel. Readers
 * subscribe before the feed starts, so nothing the server sends finds no one there. */

import * as controls from './controls.js';
import * as distance from './distance.js';
import * as feed from './feed.js';
import * as hooks from './hooks.js';
import * as layers from './layers.js';
import * as map from './map.js';
import * as panel from './panel.js';
import * as staleness from './staleness.js';
import './store.js';
import './words.js';
import './sky.js';

hooks.start();
controls.start();
map.start();
layers.start();
panel.start();
distance.start();
staleness.start();
feed.start();
