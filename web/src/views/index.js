// Every view, by id (the playground's section ids, the embed's ?view=). Each
// module exports {id, title, caption, needs, previews?, render(element, result,
// params), table(result, params)}: needs names the result fields it reads,
// previews asks the engine to average large matrices down to screen size
// (lib/box-average.js), table is what its CSV export writes. Loaded on demand, so an embed downloads only
// the view it shows (and the plotting code that view uses).
const LOADERS = {
  heatmap: () => import('./heatmap.js'),
  waves: () => import('./waves.js'),
  similarity: () => import('./similarity.js'),
  'dot-decay': () => import('./dot-decay.js'),
  table: () => import('./table.js'),
  spectrum: () => import('./spectrum.js'),
  rotation: () => import('./rotation.js'),
  decay: () => import('./decay.js'),
  rotated: () => import('./rotated.js'),
  bias: () => import('./bias.js'),
  heads: () => import('./heads.js'),
  slopes: () => import('./slopes.js'),
  buckets: () => import('./buckets.js'),
  'deberta-buckets': () => import('./deberta-buckets.js'),
  'fire-sections': () => import('./fire-sections.js'),
  'cope-count': () => import('./cope-count.js'),
  'fox-gates': () => import('./fox-gates.js'),
  'pope-pairs': () => import('./pope-pairs.js'),
  'train-extrapolation': () => import('./train-extrapolation.js'),
  'train-loss': () => import('./train-loss.js'),
  'train-attention': () => import('./train-attention.js'),
  'lm-extrapolation': () => import('./lm-extrapolation.js'),
  'lm-loss': () => import('./lm-loss.js'),
  'lm-table': () => import('./lm-table.js'),
  'lm-samples': () => import('./lm-samples.js'),
  'profile-layers': () => import('./profile-layers.js'),
  'profile-spectrum': () => import('./profile-spectrum.js'),
  'profile-decay': () => import('./profile-decay.js'),
  'profile-stacks': () => import('./profile-stacks.js'),
  'decay-comparison': () => import('./decay-comparison.js'),
  worked: () => import('./worked.js'),
  attention: () => import('./attention.js'),
  ablation: () => import('./ablation.js'),
  'word-order': () => import('./word-order.js'),
  terms: () => import('./terms.js'),
  panels: () => import('./panels.js'),
  'compare-decay': () => import('./compare-decay.js'),
  'compare-spectrum': () => import('./compare-spectrum.js'),
  'compare-attention': () => import('./compare-attention.js'),
  'profile-temperature': () => import('./profile-temperature.js'),
  'profile-mrope': () => import('./profile-mrope.js'),
};

export const VIEW_IDS = Object.keys(LOADERS);

/**
 * Former view ids that links shared before may still name, each with the view it is now: the decay comparison was
 * `compare`, the word compare mode (encoding=compare, its compare-decay, compare-spectrum and compare-attention) uses.
 */
export const VIEW_ALIASES = { compare: 'decay-comparison' };

/** The view id a link names: `id` itself, or the view a former id (VIEW_ALIASES) is now. */
export function viewIdOf(id) {
  return typeof id === 'string' && Object.hasOwn(VIEW_ALIASES, id) ? VIEW_ALIASES[id] : id;
}

/**
 * The module of view `id`.
 * @throws {RangeError} "view = ... is invalid: expected one of ..." for an unknown id
 */
export function loadView(former) {
  const id = viewIdOf(former);
  if (!Object.hasOwn(LOADERS, id)) {
    return Promise.reject(Object.assign(new RangeError(`view = ${JSON.stringify(id)} is invalid: expected one of ${VIEW_IDS.join(', ')}`), { param: 'view' }));
  }
  return LOADERS[id]();
}
