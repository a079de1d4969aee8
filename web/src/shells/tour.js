// tour.html?stop=<id>: the guided tour. Each stop (tour/stops.js) is one live view of the playground in the
// stop's state, with its own controls beside it (single-view.js, as an embed with controls=1), what to look at and
// one thing to try. A stop is a link of its own; ← and → (outside a control), and the previous/next links, move
// between stops, each a history step.
import { sharedEngine } from '../engine/page.js';
import { mountSingleView } from './single-view.js';
import { STOPS, stopIndex } from '../tour/stops.js';

const engine = sharedEngine();
const site = new URL('.', location.href);
const $ = (id) => document.getElementById(id);
let mounted = null;
let current = -1;

/** The link of stop k. */
const hrefOf = (k) => `?stop=${STOPS[k].id}`;

/** The list of stops, each a link; the current one marked. */
function drawList() {
  $('tour-stops').querySelector('ol').replaceChildren(...STOPS.map((stop, k) => {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = hrefOf(k);
    link.textContent = stop.title;
    if (k === current) link.setAttribute('aria-current', 'step');
    link.addEventListener('click', (event) => { event.preventDefault(); go(k); });
    item.append(link);
    return item;
  }));
}

/** Shows stop k (replacing the view), and says so to the history unless `push` is false. */
async function show(k, push) {
  if (k === current) return;
  current = k;
  const stop = STOPS[k];
  if (push) history.pushState(null, '', hrefOf(k));
  document.title = `posenc tour ${k + 1}/${STOPS.length}: ${stop.title}`;
  $('stop-count').textContent = `Stop ${k + 1} of ${STOPS.length}`;
  $('stop-title').textContent = stop.title;
  $('stop-text').textContent = stop.text;
  $('stop-try').textContent = stop.try;
  for (const [id, to] of [['stop-previous', k - 1], ['stop-next', k + 1]]) {
    const link = $(id);
    const exists = to >= 0 && to < STOPS.length;
    link.hidden = !exists;
    if (exists) link.href = hrefOf(to);
  }
  drawList();
  document.body.dataset.ready = 'false';
  mounted?.destroy();
  mounted = null;
  const next = await mountSingleView($('stop-view'), { engine, entries: [['view', stop.view], ['controls', '1'],
    ...Object.entries(stop.state)], site, primary: stop.controls });
  if (current !== k) { next.destroy(); return; }
  mounted = next;
  if (mounted.stage) await mounted.stage.whenSettled({ formulas: true });
  if (current === k) document.body.dataset.ready = 'true';
}

/** Goes to stop k, a new history step, and moves the focus to it. */
function go(k) {
  if (k < 0 || k >= STOPS.length) return;
  show(k, true);
  $('stop').focus({ preventScroll: false });
}

for (const [id, step] of [['stop-previous', -1], ['stop-next', 1]]) {
  $(id).addEventListener('click', (event) => { event.preventDefault(); go(current + step); });
}
document.addEventListener('keydown', (event) => {
  // Not when a control or a figure (a heatmap's cell cursor) takes the arrow keys.
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (event.target.closest?.('input, select, textarea, [contenteditable], .figure, [role=slider]')) return;
  if (event.key === 'ArrowRight') go(current + 1);
  else if (event.key === 'ArrowLeft') go(current - 1);
});
window.addEventListener('popstate', () => show(stopIndex(new URLSearchParams(location.search).get('stop')), false));

show(stopIndex(new URLSearchParams(location.search).get('stop')), false);
