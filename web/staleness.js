/* loctrack serve: staleness, on a clock of its own. A fix that stops coming sends no
 * event, so the page cannot wait for one: every TICK_MS, and at once when the status or
 * the connection changes, this judges whether the fix shown is stale and what the banner
 * says, and gives that to the store ('health'), which the panel shows. */

import * as store from './store.js';
import { banner } from './words.js';

const TICK_MS = 250;   // well within the 2 s the page has to say so

export function start() {
  setInterval(tick, TICK_MS);
  for (const topic of ['status', 'connection', 'loaded']) store.subscribe(topic, tick);
}

/* Stale when no fix came for staleSeconds, or gpsd is unreachable, or the receiver is
 * lost or has no fix. Before the first load there is only the banner to say. */
function tick() {
  const { config, status, loadError, eventsError } = store.state;
  if (!config) {
    store.setHealth({ stale: store.state.stale, banner: banner({ loctrackUnreachable: loadError, status: null }), fixAge: null });
    return;
  }
  const age = store.fixAgeSeconds();
  const stale = age == null || age > config.staleSeconds ||
    (status != null && (status.gpsd === 'unreachable' || status.receiver === 'lost' || status.receiver === 'no fix'));
  store.setHealth({ stale, banner: banner({ loctrackUnreachable: loadError || eventsError, status }), fixAge: age });
}
