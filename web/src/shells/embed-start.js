// embed.html's first script: starts downloading the view module of the family the query names (its group's
// posenc-view-<group>.wasm, engine/view-groups.js; posenc-view.wasm without a family or for one in no group) as soon as
// this small script arrives, before the page's other scripts (which embed.js awaits) have: the playground and the tour
// preload posenc-view.wasm from their HTML instead (vite.config.js), which cannot know an embed's family.
import { startViewWasm } from '../engine/view-wasm.js';
import { viewGroupFor } from '../engine/view-groups.js';

const query = new URLSearchParams(location.search);
startViewWasm(viewGroupFor(query.get('view'), query.get('encoding'), query.get('compare_distance')));
