// The rotary family on the page: RoPE with its scalings, and pasted config.json
// files. Its model presets (a control and what picking one does) are the page's
// alone: rope-presets.js adds them (families/pages.js), so the engine's worker,
// which loads this file for spec() and fields(), loads no preset.
import { attentionViews, workedExample } from '../../labs/attention-lab.js';
import { format } from '../../lib/format.js';
import { ROPE_TYPES, coreParameter, ropeTypeKeys, ropeTypeReads, scalingParameter } from '../../describe.js';
import { ROTARY_VIEW_PARAMETERS, pairParameter, rotaryFields } from '../rotary.js';
import { renamingParam } from '../../errors.js';


/** A scaling key's control shows when the chosen rope_type reads the key (describe().rope_types). */
const reads = (key) => (p) => ropeTypeReads(p.rope_type, key);

/** The family's parameters after the preset control (rope-presets.js puts that first). */
export const parameters = [
  coreParameter('rope', 'head_dim', { sliderMin: 2, sliderMax: 1024, step: 2 }),
  coreParameter('rope', 'rope_theta', { sliderMin: 10, sliderMax: 1e7 }),
  coreParameter('rope', 'partial_rotary_factor', { sliderMin: 0.05, sliderMax: 1, step: 0.05,
    help: 'Fraction of head_dim that rotates (GPT-NeoX 0.25); the rest passes through. With rope_type proportional ' +
      '(Gemma-4), the share of pairs that turn at θ^(−2i/head_dim); the others get frequency 0.' }),
  coreParameter('rope', 'layout', {
    choiceLabels: { half: 'half: (i, i + d/2), GPT-NeoX, LLaMA', interleaved: 'interleaved: (2i, 2i+1), GPT-J, RoFormer' } }),
  coreParameter('rope', 'max_position_embeddings', { sliderMin: 16, sliderMax: 1048576 }),
  { name: 'rope_type', kind: 'choice', default: 'default', choices: ROPE_TYPES, label: 'rope_scaling.rope_type',
    choiceLabels: { default: 'default (no scaling)', linear: 'linear (Position Interpolation)', ntk: 'ntk (NTK-aware base)',
      dynamic: 'dynamic (dynamic NTK)', yarn: 'yarn (YaRN)', llama3: 'llama3 (Llama 3.1)', longrope: 'longrope (Phi-3)',
      proportional: 'proportional (p-RoPE, Gemma-4)' } },
  scalingParameter('factor', { pageDefault: 8, why: 'every scaling needs one (the core has none to give); 8 is Llama 3.1’s',
    sliderMin: 1, sliderMax: 128, log: true, when: reads('factor'), help: 'Context extension factor s.' }),
  coreParameter('rope', 'original_max_position_embeddings', { sliderMin: 16, sliderMax: 1048576,
    placeholder: '= max_position_embeddings', when: reads('original_max_position_embeddings'), help: 'The pre-training context L.' }),
  scalingParameter('beta_fast', { sliderMin: 1, sliderMax: 256, log: true, when: reads('beta_fast') }),
  scalingParameter('beta_slow', { sliderMin: 0.01, sliderMax: 64, when: reads('beta_slow') }),
  scalingParameter('truncate', { when: reads('truncate'), help: 'Floor/ceil the ramp ends (gpt-oss: false).' }),
  scalingParameter('mscale', { sliderMin: 0.1, sliderMax: 10, log: true, when: reads('mscale'), placeholder: '(none)' }),
  scalingParameter('mscale_all_dim', { sliderMin: 0.1, sliderMax: 10, log: true, when: reads('mscale_all_dim'), placeholder: '(none)' }),
  scalingParameter('attention_factor', { sliderMin: 0.1, sliderMax: 10, log: true, when: reads('attention_factor'),
    placeholder: '(from the factor)' }),
  scalingParameter('low_freq_factor', { pageDefault: 1, why: 'llama3 needs one (the core has none to give); Llama 3.1’s',
    sliderMin: 0.1, sliderMax: 64, when: reads('low_freq_factor') }),
  scalingParameter('high_freq_factor', { pageDefault: 4, why: 'llama3 needs one (the core has none to give); Llama 3.1’s',
    sliderMin: 0.1, sliderMax: 64, when: reads('high_freq_factor') }),
  scalingParameter('short_factor', { when: reads('short_factor'), placeholder: 'rotary_dim/2 numbers' }),
  scalingParameter('long_factor', { when: reads('long_factor'), placeholder: 'rotary_dim/2 numbers' }),
  { name: 'rope_local_base_freq', kind: 'optional-number', default: null, sliderMin: 10, sliderMax: 1e7, log: true,
    label: 'rope_local_base_freq', placeholder: '(same as rope_theta)',
    help: 'The base of the sliding-window layers (Gemma-3: 10000 on 5 of every 6 layers); drawn as a second spectrum.' },
  { name: 'sliding_window', kind: 'optional-int', default: null, sliderMin: 16, sliderMax: 1048576, log: true,
    label: 'sliding_window', placeholder: '(none)',
    help: 'The attention window of the sliding-window layers, marked on the spectrum: their pairs slower than it never turn within it.' },
  { name: 'seq_len', view: true, kind: 'int', default: 4096, min: 1, max: 1e9, sliderMin: 16, sliderMax: 1048576, log: true, label: 'context (tokens)',
    help: 'The current sequence length: dynamic and longrope depend on it.' },
  pairParameter(8),
  { name: 'start', view: true, kind: 'int', default: 0, min: 0, max: 1e9, sliderMax: 4096, label: 'rotation: first position' },
  { name: 'max_distance', view: true, kind: 'int', default: 512, min: 1, max: 200000, sliderMin: 16, log: true, label: 'decay: max distance',
    help: 'RoFormer’s figure spans a few hundred tokens; a model preset shows twice its max_position_embeddings.' },
  ...ROTARY_VIEW_PARAMETERS,
];

// Each rope_type's keys, as the core lists them (describe()).
const SCALING_KEYS = Object.fromEntries(ROPE_TYPES.map((name) => {
  const { required, optional } = ropeTypeKeys(name);
  return [name, [...required, ...optional]];
}));

/** The spec object sent to the core (transformers v4 form). */
export function spec(params) {
  const out = { type: 'rope', head_dim: params.head_dim, rope_theta: params.rope_theta,
    partial_rotary_factor: params.partial_rotary_factor, layout: params.layout,
    max_position_embeddings: params.max_position_embeddings };
  if (params.rope_type !== 'default') {
    out.rope_scaling = { rope_type: params.rope_type };
    for (const key of SCALING_KEYS[params.rope_type]) {
      if (params[key] !== null && params[key] !== undefined) out.rope_scaling[key] = params[key];
    }
  }
  return out;
}

/** The pre-training length L the spec's scaling reads (its original_max_position_embeddings, else max_position_embeddings). */
function trainingLength(params) {
  return (SCALING_KEYS[params.rope_type].includes('original_max_position_embeddings') && params.original_max_position_embeddings)
    || params.max_position_embeddings;
}

/**
 * The fields the views read (lazy getters; each may throw the core's message
 * for a bad spec, or the engine's for a bad pair). scaled / unscaled: ropeInvFreq
 * at seq_len with and without rope_scaling; rope: the scaled one with the
 * context it was computed for (what the JSON export hands an engine developer).
 */
export function fields(engine, params) {
  const specOf = () => spec(params);
  // Unscaled: rope_theta alone. For proportional, whose partial_rotary_factor counts the turning pairs of the whole
  // head, that is every pair turning (partial_rotary_factor 1), so the zeroed pairs show against their plain wavelengths.
  const unscaledSpec = () => {
    const { rope_scaling: _, ...rest } = specOf();
    return params.rope_type === 'proportional' ? { ...rest, partial_rotary_factor: 1 } : rest;
  };
  return rotaryFields(engine, specOf, params, {
    get ropeType() { return params.rope_type; },
    get seqLen() { return params.seq_len; },
    get trainingLength() { return trainingLength(params); },
    get maxPositions() { return params.max_position_embeddings; },
    maxPositionsName: 'max_position_embeddings',
    get scaled() { return engine.rotary(specOf(), params.seq_len); },
    get unscaled() { return engine.rotary(unscaledSpec(), params.seq_len); },
    // The sliding-window layers of a model whose local layers have their own base (Gemma-3), unscaled as there.
    get local() {
      return params.rope_local_base_freq == null ? null : { rope_theta: params.rope_local_base_freq,
        ...renamingParam({ rope_theta: 'rope_local_base_freq' },
          () => engine.rotary({ ...unscaledSpec(), rope_theta: params.rope_local_base_freq }, params.seq_len)) };
    },
    get slidingWindow() { return params.sliding_window; },
    get rope() { return { seq_len: params.seq_len, ...engine.rotary(specOf(), params.seq_len) }; },
    get worked() { return workedExample(engine, params, 'rope', params.rope_theta, params.layout); },
  });
}

export const views = ['spectrum', 'rotation', 'decay', 'rotated', 'decay-comparison', ...attentionViews('rotary', true)];

/** Fields every JSON export of this family carries. */
export const jsonFields = ['rope'];

/**
 * Raw control values for a rope spec (from a preset or a pasted config): both
 * config generations, with transformers v5's precedence (top-level
 * original_max_position_embeddings and partial_rotary_factor first).
 */
export function rawFromSpec(s, sliding = null) {
  const block = s.rope_scaling ?? s.rope_parameters ?? {};
  const get = (key, fallback) => block[key] ?? fallback;
  // What the spec leaves out takes the control's default (the core's, or the page's said one).
  const defaults = Object.fromEntries(parameters.map((p) => [p.name, p.default]));
  const headDim = s.head_dim ?? defaults.head_dim;
  const partial = s.rotary_dim != null ? s.rotary_dim / headDim : (s.partial_rotary_factor ?? block.partial_rotary_factor ?? defaults.partial_rotary_factor);
  const values = {
    head_dim: headDim,
    rope_theta: block.rope_theta ?? s.rope_theta ?? defaults.rope_theta,
    partial_rotary_factor: partial,
    layout: s.layout ?? defaults.layout,
    max_position_embeddings: s.max_position_embeddings ?? defaults.max_position_embeddings,
    rope_type: block.rope_type ?? block.type ?? defaults.rope_type,
    // Proportional's factor defaults to 1 in transformers (the control's page default 8 is for the context scalings).
    factor: get('factor', (block.rope_type ?? block.type) === 'proportional' ? 1 : defaults.factor),
    original_max_position_embeddings: s.original_max_position_embeddings ?? get('original_max_position_embeddings', defaults.original_max_position_embeddings),
    beta_fast: get('beta_fast', defaults.beta_fast),
    beta_slow: get('beta_slow', defaults.beta_slow),
    truncate: get('truncate', defaults.truncate),
    mscale: get('mscale', defaults.mscale),
    mscale_all_dim: get('mscale_all_dim', defaults.mscale_all_dim),
    attention_factor: get('attention_factor', defaults.attention_factor),
    low_freq_factor: get('low_freq_factor', defaults.low_freq_factor),
    high_freq_factor: get('high_freq_factor', defaults.high_freq_factor),
    short_factor: get('short_factor', defaults.short_factor),
    long_factor: get('long_factor', defaults.long_factor),
    rope_local_base_freq: sliding?.rope_theta ?? null,
    sliding_window: sliding?.window ?? null,
    seq_len: s.max_position_embeddings ?? defaults.seq_len,
    // Far enough to show the region past max_position_embeddings.
    max_distance: Math.min(200000, 2 * (s.max_position_embeddings ?? defaults.max_position_embeddings)),
    pair: Math.min(8, Math.floor((headDim * partial) / 4)),
  };
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, format(v)]));
}
