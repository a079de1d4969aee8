// Which of the two wasm modules (CMakeLists.txt) a request needs: posenc-view.wasm (the views' functions) or
// posenc.wasm (every function: the trainer, the model lab's). No imports, so that a page can ask before it
// starts its engine (engine/page.js createEngine({module})) without loading the worker's code.

/** The attention lab's fields that read its trained head (labs/attention-lab.js attentionFields; families/heads.js). */
export const TRAINED_HEAD_FIELDS = ['attention', 'ablation', 'wordOrder'];

/**
 * The task whose trained heads ship (families/heads.js, written by scripts/heads.mjs): the attention lab's default
 * trained_task (labs/attention-lab.js; tests/wasm/heads.test.mjs checks they agree). Named here, without importing the
 * lab, so that a page can ask needsFullModule before it loads anything.
 */
export const SHIPPED_HEAD_TASK = 'copy';

/**
 * Whether a view request of family `family` for `needs` calls what only posenc.wasm has (the trainer, the model lab's
 * functions; CMakeLists.txt): the experiment lab, the model lab's stacks, temperature and M-RoPE views, the attention
 * lab's views with a trained head on a task whose heads do not ship (SHIPPED_HEAD_TASK: the default task's head of each
 * family at its defaults ships, families/heads.js). A hint only: a trained head on the shipped task with another spec
 * trains too, which the server finds out before it computes (engine/server.js: it loads the family's shipped head and
 * compares), and the view module's 'unavailable' error tells it of anything else this misses; a page whose first
 * figure is such a request can start its engine on posenc.wasm (createEngine({module: 'full'})): one download, not two.
 * @param {string} family  a family of families/compute.js COMPUTE_NAMES (experiment, model_profile, rope, ...)
 * @param {object} params
 * @param {string[]} needs
 * @returns {boolean}
 */
export function needsFullModule(family, params, needs) {
  if (family === 'experiment') return true;
  if (family === 'model_profile') return needs.some((n) => ['stacks', 'temperatureCurve', 'mropeLayout'].includes(n));
  return params?.trained_head === true && (params.trained_task ?? SHIPPED_HEAD_TASK) !== SHIPPED_HEAD_TASK
    && needs.some((n) => TRAINED_HEAD_FIELDS.includes(n));
}

/**
 * The views whose request can need posenc.wasm (needsFullModule: they read 'attention', 'ablation', 'wordOrder' with
 * a trained head that does not ship, 'stacks', 'temperatureCurve' or 'mropeLayout', or show the experiment lab);
 * tests/wasm/training-views.test.mjs checks the list against every family's views.
 */
export const TRAINING_VIEWS = ['attention', 'ablation', 'word-order', 'terms', 'panels', 'train-extrapolation', 'train-loss',
  'train-attention', 'profile-stacks', 'profile-temperature', 'profile-mrope', 'fox-gates'];

/**
 * The views whose fields ship at their defaults (families/shipped-fields.js: compare mode's, labs/compare-mode.js views;
 * tests/wasm/shipped-fields.test.mjs checks the list): at its defaults, such a view's first figure needs no module.
 */
export const SHIPPED_FIELD_VIEWS = ['compare-decay', 'compare-spectrum', 'compare-attention'];

/**
 * The module a page of one view starts its engine on (engine/page.js createEngine's option): 'auto' for a view of
 * TRAINING_VIEWS (its first request says whether it trains: posenc.wasm alone if so; a shipped head's does not),
 * 'deferred' for one of SHIPPED_FIELD_VIEWS (no module before its first request: none at its defaults, whose fields
 * ship; posenc-view.wasm after it), 'view' for the rest (posenc-view.wasm, fetched as the worker starts, before the
 * view's request).
 * @param {string} viewId
 * @returns {'view' | 'auto' | 'deferred'}
 */
export function startingModule(viewId) {
  if (SHIPPED_FIELD_VIEWS.includes(viewId)) return 'deferred';
  return TRAINING_VIEWS.includes(viewId) ? 'auto' : 'view';
}
