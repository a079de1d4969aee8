// Every view, by id (the playground's section ids, the embed's ?view=). Each
// module exports {id, title, caption, needs, previews?, formula?, render(element, result,
// params), table(result, params)}: needs names the result fields it reads,
// previews asks the engine to average large matrices down to screen size
// (lib/box-average.js), formula (when formulas.js has none for it) writes its TeX from the
// params and result with formulas.js's helpers, table is what its CSV export writes. Loaded on
// demand, so an embed downloads only the view it shows (and the plotting code that view uses).
// The views several families show are listed here; a family's own view is named after it,
// `<type>-<what>` (fox-gates), and loaded by that name from ./<type>-<what>.js with no line here.
import { FAMILY_TYPES } from '../describe.js';

/** The views several families show (or a lab's), by id. */
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

/** The ids of the views several families show (LOADERS); a family's own views are not listed (isViewId). */
export const SHARED_VIEW_IDS = Object.keys(LOADERS);

/** A family's own view id: a core family's type, a dash, and a lower-case name (its file ./<id>.js). */
const OWN_VIEW = new RegExp(`^(?:${FAMILY_TYPES.join('|')})-[a-z][a-z0-9-]*$`);

/** Whether `id` can name a view: a shared one, or one of a family's own by its form (whose file may still be missing). */
export function isViewId(id) {
  return typeof id === 'string' && (Object.hasOwn(LOADERS, id) || OWN_VIEW.test(id));
}

/**
 * Former view ids that links shared before may still name, each with the view it is now: the decay comparison was
 * `compare`, the word compare mode (encoding=compare, its compare-decay, compare-spectrum and compare-attention) uses.
 */
export const VIEW_ALIASES = { compare: 'decay-comparison' };

/** The view id a link names: `id` itself, or the view a former id (VIEW_ALIASES) is now. */
export function viewIdOf(id) {
  return typeof id === 'string' && Object.hasOwn(VIEW_ALIASES, id) ? VIEW_ALIASES[id] : id;
}

const invalid = (id) => Object.assign(new RangeError(`view = ${JSON.stringify(id)} is invalid: expected one of ` +
  `${SHARED_VIEW_IDS.join(', ')}, or a family's own view (<type>-<name>, as fox-gates)`), { param: 'view' });

/**
 * The module of view `id`.
 * @throws {RangeError} "view = ... is invalid: expected one of ..." (.param 'view') for an unknown id, or a family's
 *   own view id with no file
 */
export function loadView(former) {
  const id = viewIdOf(former);
  if (!isViewId(id)) return Promise.reject(invalid(id));
  if (Object.hasOwn(LOADERS, id)) return LOADERS[id]();
  // The form <type>-<name> (not a bare variable) keeps the bundler's chunks to the files with a dash, not this one.
  const dash = id.indexOf('-');
  return import(`./${id.slice(0, dash)}-${id.slice(dash + 1)}.js`).catch(() => { throw invalid(id); });
}
