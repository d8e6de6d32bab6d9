/* loctrack serve: what the user works: Follow, and the summary line that opens the
 * details on a phone. Follow is the store's (the map reads it too, and a drag of the map
 * clears it); this module turns the checkbox into an action and shows the state back. */

import * as store from './store.js';

const $ = (id) => document.getElementById(id);

export function start() {
  const follow = $('follow');
  follow.addEventListener('change', () => store.setFollow(follow.checked));
  store.subscribe('follow', () => { follow.checked = store.state.follow; });

  // Leaflet's bottom controls sit above the summary line, however high it wraps.
  const summary = $('summary');
  const measure = () => document.documentElement.style.setProperty('--sheet-h', `${summary.offsetHeight}px`);
  if ('ResizeObserver' in window) new ResizeObserver(measure).observe(summary);
  measure();

  const panel = $('panel');
  const toggle = $('panel-toggle');
  toggle.addEventListener('click', () => {
    const open = !panel.classList.contains('open');
    panel.classList.toggle('open', open);
    toggle.setAttribute('aria-expanded', String(open));
  });
}
