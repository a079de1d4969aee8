// A learned absolute table (GPT-2 style) on the page: trained (families/trained.js) or at its initialisation.
import { COMPARE_DISTANCE, COMPARE_VALUES, comparisonFields } from '../compare.js';
import { ATTENTION_PARAMETERS, attentionFields, attentionViews } from '../../labs/attention-lab.js';
import { mergeFields } from '../fields.js';
import { coreParameter } from '../../describe.js';
import { TRAINED_TENSORS } from '../trained.js';


export const parameters = [
  // The random draw's shape is the trained set's (families/trained/learned.js: 64 rows of 64), not GPT-2's 1024 x 768:
  // "random draw" then shows a table of the same size with the same hatched end.
  coreParameter('learned', 'd_model', { sliderMin: 1, sliderMax: 1024, pageDefault: 64,
    why: 'the trained table’s width (the language-model lab’s quick model); GPT-2’s is 768' }),
  coreParameter('learned', 'max_position_embeddings', { sliderMin: 8, sliderMax: 4096, pageDefault: 64,
    why: 'the trained table’s rows (its L_train); GPT-2’s are 1024' }),
  coreParameter('learned', 'seed', { sliderMin: 0, sliderMax: 100 }),
  coreParameter('learned', 'std', { sliderMin: 0, sliderMax: 0.1, step: 0.005 }),
  // 96: the trained table's 64 rows, then a third again with no row (hatched).
  { name: 'n', view: true, kind: 'int', default: 96, min: 1, max: 4096, label: 'positions n', help: 'Past max_position_embeddings, no row exists.' },
  { name: 'metric', view: true, kind: 'choice', default: 'cosine', choices: ['cosine', 'dot'], label: 'similarity',
    choiceLabels: { cosine: 'cosine', dot: 'dot product' } },
  { name: 'similarity_n', view: true, kind: 'int', default: 128, min: 1, max: 1024, label: 'similarity: positions' },
  COMPARE_DISTANCE,
  COMPARE_VALUES,
  ...ATTENTION_PARAMETERS,
];

export function spec(p) {
  return { type: 'learned', d_model: p.d_model, max_position_embeddings: p.max_position_embeddings, seed: p.seed, std: p.std,
    ...(p[TRAINED_TENSORS] ?? {}) };  // trained: its table (families/trained.js)
}

/** The fields the views read (lazy getters). table: the stored rows among positions 0..n-1. */
export function fields(engine, p) {
  const specOf = () => spec(p);
  // At least one row, so that a bad max_position_embeddings gets the core's message about itself, not about n.
  const stored = (n) => Math.max(1, Math.min(n, p.max_position_embeddings));
  return mergeFields({
    get spec() { return specOf(); },
    get n() { return p.n; },
    get maxPositions() { return p.max_position_embeddings; },
    get metric() { return p.metric; },
    get table() { return engine.table(specOf(), stored(p.n)); },
    get similarity() { return engine.similarity(specOf(), stored(p.similarity_n), p.metric); },
  }, comparisonFields(engine, p, () => null),
  attentionFields(engine, p, specOf, () => ({ d_model: p.d_model, d_head: Math.min(p.d_model, 64) })));
}

export const views = ['table', 'similarity', 'decay-comparison', ...attentionViews('absolute')];
