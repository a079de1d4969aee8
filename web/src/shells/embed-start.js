// embed.html's first script: starts downloading the view module of the family the query names (its group's
// posenc-view-<group>.wasm, engine/view-groups.js; posenc-view.wasm without a family or for one in no group) as soon as
// this small script arrives, before the page's other scripts (which embed.js awaits) have: the playground and the tour
// preload posenc-view.wasm from their HTML instead (vite.config.js), which cannot know an embed's family.
// A view whose first figure may need no module (engine/modules.js startingModule 'deferred': compare mode's, whose
// fields at its defaults ship) starts none: its engine's worker loads one after its first request.
import { startViewWasm } from '../engine/view-wasm.js';
import { viewGroupFor } from '../engine/view-groups.js';
import { startingModule } from '../engine/modules.js';

const query = new URLSearchParams(location.search);
if (startingModule(query.get('view')) !== 'deferred') {
  startViewWasm(viewGroupFor(query.get('view'), query.get('encoding'), query.get('compare_distance')));
}
