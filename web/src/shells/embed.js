// embed.html?view=<id>&<state>: one view for an iframe. It fits the iframe's
// width, tells the host page its height ({type: 'posenc:resize', height} in
// CSS px, on load and on every change), and follows prefers-color-scheme
// unless theme=light|dark says otherwise.
import { sharedEngine } from '../engine/page.js';
import { startingModule } from '../engine/modules.js';
import { viewGroupFor } from '../engine/view-groups.js';
import { mountSingleView } from './single-view.js';

const query = new URLSearchParams(location.search);
const theme = query.get('theme');
if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;

const root = document.getElementById('embed');
let lastHeight = -1;
function postHeight() {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === lastHeight || window.parent === window) return;
  lastHeight = height;
  window.parent.postMessage({ type: 'posenc:resize', height, view: query.get('view') }, '*');
}
new ResizeObserver(postHeight).observe(document.documentElement);

// The engine's worker starts now, on the view module of the query's family (its group's, whose download embed-start.js
// began); for a view that may train, its first request picks the module (posenc.wasm alone for a trained head:
// engine/modules.js).
const engine = sharedEngine({ module: startingModule(query.get('view')),
  group: viewGroupFor(query.get('view'), query.get('encoding'), query.get('compare_distance')) });
const mounted = await mountSingleView(root, { engine, entries: query, site: new URL('.', location.href) });
document.title = `posenc: ${mounted.stage?.views[0].title ?? 'view'}`;
if (mounted.stage) await mounted.stage.whenSettled({ formulas: true });
postHeight();
document.body.dataset.ready = 'true';
