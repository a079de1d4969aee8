// Which of the two wasm modules (CMakeLists.txt) a request needs: posenc-view.wasm (the views' functions) or
// posenc.wasm (every function: the trainer, the model lab's). No imports, so that a page can ask before it
// starts its engine (engine/page.js createEngine({module})) without loading the worker's code.

/**
 * Whether a view request of family `family` for `needs` calls what only posenc.wasm has (the trainer, the model lab's
 * functions; CMakeLists.txt): the experiment lab, the model lab's stacks, temperature and M-RoPE views, the attention
 * lab's views with the trained head. A hint only: the server (engine/server.js) loads posenc.wasm before computing such a request, where
 * it would otherwise find out from the view module's 'unavailable' error (as it does for anything this misses); a page
 * whose first figure is such a request can start its engine on posenc.wasm (createEngine({module: 'full'})): one
 * download, not two.
 * @param {string} family  a family of families/compute.js COMPUTE_NAMES (experiment, model_profile, rope, ...)
 * @param {object} params
 * @param {string[]} needs
 * @returns {boolean}
 */
export function needsFullModule(family, params, needs) {
  if (family === 'experiment') return true;
  if (family === 'model_profile') return needs.some((n) => ['stacks', 'temperatureCurve', 'mropeLayout'].includes(n));
  return params?.trained_head === true && needs.some((n) => ['attention', 'ablation', 'wordOrder'].includes(n));
}

/**
 * The views whose request can need posenc.wasm (needsFullModule: they read 'attention', 'ablation', 'wordOrder',
 * 'stacks', 'temperatureCurve' or 'mropeLayout', or show the experiment lab); tests/unit/modules.test.mjs checks
 * the list against every family's views.
 */
export const TRAINING_VIEWS = ['attention', 'ablation', 'word-order', 'terms', 'panels', 'train-extrapolation', 'train-loss',
  'train-attention', 'profile-stacks', 'profile-temperature', 'profile-mrope', 'fox-gates'];

/**
 * The module a page of one view starts its engine on (engine/page.js createEngine's option): 'auto' for a view of
 * TRAINING_VIEWS (its first request says whether it trains: posenc.wasm alone if so), 'view' for the rest (posenc-view.wasm,
 * fetched as the worker starts, before the view's request).
 * @param {string} viewId
 * @returns {'view' | 'auto'}
 */
export function startingModule(viewId) {
  return TRAINING_VIEWS.includes(viewId) ? 'auto' : 'view';
}
