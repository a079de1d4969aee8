// Trained position parameters in every view of their family: the families whose
// encoding has learned parameters (TRAINED_FAMILIES below) get a control `weights`: "trained" (the default) shows the
// parameters the language-model lab's quick model learned on Moby-Dick
// (families/trained/<type>.js, written by scripts/pretrain.mjs from the native build),
// "initial" the same head's parameters before its first step (families/trained/<type>-initial.js),
// "random" the family's untrained draw from its seed. Trained, the family's other
// spec keys are the trained model's (their controls are hidden), and its spec carries
// the trained tensors under the family's explicit keys. Each family's set is a module
// of its own, loaded when a view needs it (loadTrained); the engine loads them
// before it computes (engine/calls.js), the page before it exports a spec.

import { DESCRIPTION } from '../describe.js';

/**
 * Settings of a family's trained set other than the core's defaults, as the language-model lab trains it
 * (labs/language-model.js) and scripts/pretrain.mjs trains the set the views show: T5 one-way (bidirectional false);
 * DeBERTa with 32 buckets up to 128 (its relative table [2 x 32, d_model] per head, not the default 256 buckets'
 * [512, d_model]).
 */
const TRAINED_SETTINGS = {
  t5: { bidirectional: false },  // as T5's decoder: a causal model has no keys after the query
  deberta: { position_buckets: 32, max_relative_positions: 128 },
};

/**
 * The families with learned position parameters (the core's description says so: `learns`), each with the spec its
 * trained set is trained with: the core's defaults and TRAINED_SETTINGS. A new family with learned parameters needs no
 * line here: `npm run pretrain -- <type>` writes its set.
 */
export const TRAINED_FAMILIES = Object.fromEntries(DESCRIPTION.families.filter((f) => f.learns)
  .map((f) => [f.type, { type: f.type, ...TRAINED_SETTINGS[f.type] }]));

/** The families with a trained set. */
export const TRAINED_TYPES = Object.keys(TRAINED_FAMILIES);

/**
 * Family `type`'s trained set and, a module of its own, the same spec before its first step (where training started):
 * trained/<type>.js and trained/<type>-initial.js, each loaded on demand (the bundler splits each into a file of its own).
 */
const LOADERS = {
  trained: (type) => import(`./trained/${type}.js`),
  initial: (type) => import(`./trained/${type}-initial.js`),
};

const loaded = new Map();  // type -> {type, provenance, final_loss, spec}
const initials = new Map();  // type -> {type, spec}: the trained spec's keys before the first step

/**
 * Loads the trained sets of `types` (those without one are skipped), and with `initial` their tensors at the start of
 * training too.
 * @param {string[]} types
 * @param {{initial?: boolean}} [o]
 * @returns {Promise<void>}
 */
export async function loadTrained(types, { initial = false } = {}) {
  const own = types.filter((t) => TRAINED_TYPES.includes(t));
  await Promise.all([
    ...own.filter((t) => !loaded.has(t)).map((t) => LOADERS.trained(t).then((m) => { loaded.set(t, m.default); })),
    ...(initial ? own.filter((t) => !initials.has(t)).map((t) => LOADERS.initial(t).then((m) => { initials.set(t, m.default); })) : []),
  ]);
}

/** Family `type`'s trained set, once loaded: {provenance, final_loss, spec}; null before (or for a family without one). */
export function trainedOf(type) {
  return loaded.get(type) ?? null;
}

/** The trained tensors on effective params (the families' spec() adds them: bias.js, learned.js). */
export const TRAINED_TENSORS = Symbol('trained tensors');

/** The control that picks trained, initial or random parameters. */
export const WEIGHTS = {
  name: 'weights', kind: 'choice', default: 'trained', choices: ['trained', 'initial', 'random'], label: 'position parameters',
  choiceLabels: { trained: 'trained on Moby-Dick', initial: 'where training started', random: 'random draw (untrained)' },
  help: 'Trained: head 0 of the first layer of the language-model lab’s quick model (d 64, 4 heads, 600 steps of 16 windows ' +
    'of 64 characters, seed 0), trained on Moby-Dick by the native build; the lab’s default run trains the same model again ' +
    'in this page, bit for bit. Its other settings are that model’s. Where training started: the same head’s parameters ' +
    'before its first step, as the trainer drew them (the T5 table and CoPE’s embeddings start at 0). Random: the family’s ' +
    'own untrained draw from its seed, at the sizes you set.',
};

/** Whether weights shows a shipped set (trained, or where its training started): the family's own keys are the set's. */
export const shipped = (weights) => weights === 'trained' || weights === 'initial';

/**
 * The params a family computes with: with weights "trained" (or "initial": the tensors where its training started), every key of the trained spec is the trained model's (the
 * family's spec keys: its non-view controls) and the tensors ride along (TRAINED_TENSORS); a read of p is recorded as
 * usual (the engine's read tracking), an overridden key is not read from p at all.
 * @throws {Error}  trained but not loaded (a caller that did not loadTrained first)
 */
export function effective(type, p) {
  if (!shipped(p.weights) || !TRAINED_TYPES.includes(type)) return p;
  const trained = trainedOf(type);
  const start = p.weights === 'initial' ? initials.get(type) : null;
  if (!trained || (p.weights === 'initial' && !start)) throw new Error(`posenc: the ${p.weights} parameters of ${type} are not loaded yet`);
  const source = start ? start.spec : trained.spec;  // the start: the same keys, with the values before the first step
  const tensors = Object.fromEntries(Object.entries(source).filter(([, v]) => Array.isArray(v)));
  return new Proxy(p, {
    get(target, key) {
      if (key === TRAINED_TENSORS) return tensors;
      if (typeof key === 'string' && key !== 'type' && Object.hasOwn(source, key)) return source[key];
      return target[key];
    },
  });
}

/** The page's params (with `encoding`) as their family computes with them, its trained set loaded first. */
export async function effectiveParams(p) {
  await loadTrained([p.encoding], { initial: p.weights === 'initial' });
  return effective(p.encoding, p);
}

/**
 * A family's page file with the `weights` control: trained by default; trained, its non-view controls are hidden (the
 * trained model's settings hold) and spec and fields compute with effective params.
 * @param {string} type
 * @param {{parameters: object[], spec: Function, fields: Function}} file
 */
export function withTrained(type, file) {
  const parameters = [WEIGHTS, ...file.parameters.map((q) => (q.view ? q
    : { ...q, when: (v) => !shipped(v.weights) && (q.when ? q.when(v) : true) }))];
  const own = new Set(file.parameters.filter((q) => !q.view).map((q) => q.name));
  return {
    ...file,
    parameters,
    /**
     * Values of the family's own settings other than their defaults (num_buckets=16: an old link, a compare line)
     * mean those settings: the base is its random draw at them, not the trained set (a link that wants the trained
     * set with them says weights=trained).
     */
    baseRaw(defaults, raw) {
      const base = file.baseRaw ? file.baseRaw(defaults, raw) : defaults;
      const setsOwn = Object.keys(raw).some((k) => own.has(k) && raw[k] !== undefined && String(raw[k]) !== String(defaults[k]));
      return setsOwn ? { ...base, weights: 'random' } : base;
    },
    spec: (p) => file.spec(effective(type, p)),
    fields: (engine, p) => file.fields(engine, effective(type, p)),
  };
}
