// The per-layer positional profile of a Hugging Face config.json (issue 26, point 1):
// which layers rotate and with what (base, scaling, rotated width), which attend
// through a sliding or chunked window, which have no position encoding at all
// (NoPE, linear attention), and Llama 4's query temperature on its NoPE layers.
// Each rule is the one transformers' configuration class (layer_types and its
// defaults) and modeling file (which attention applies RoPE) use; the file and
// class are named where the rule is. The spec of each rotating kind is what
// hf-config.js readConfig builds for a config of that kind's keys, so a single-kind
// model's profile holds exactly readConfig's spec. Imports nothing but hf-config.js:
// runs in node and in the browser (tests/unit/profile.test.mjs).
import { LANGUAGE_MODEL_KEYS, checkLayerCount, checkLayerList, configError, isObject, own, perLayerType, readConfig, shown }
  from './hf-config.js';

// The layer types posenc knows (transformers configuration_utils ALLOWED_LAYER_TYPES, those
// that decide how a layer attends over positions) and the legacy names transformers remaps
// (configuration_utils remap_legacy_layer_types: "attention" -> full, "mamba" -> linear).
const LAYER_TYPES = ['full_attention', 'sliding_attention', 'chunked_attention', 'linear_attention'];
const LEGACY_LAYER_TYPES = { attention: 'full_attention', mamba: 'linear_attention' };

// Layer-type defaults of the configuration classes that derive layer_types from an interval:
// every n-th layer (1-based) is full_attention, the others the second type.
//   Gemma2Config (n 2), Gemma3TextConfig (sliding_window_pattern, default 6), Gemma4TextConfig (6, last layer
//   forced full), Cohere2Config (sliding_window_pattern, default 4), GptOssConfig (2), Qwen3NextConfig
//   (full_attention_interval, default 4; the others linear_attention).
const INTERVAL_RULES = {
  gemma2: { key: null, every: 2, other: 'sliding_attention', source: 'Gemma2Config' },
  gemma3_text: { key: 'sliding_window_pattern', every: 6, other: 'sliding_attention', source: 'Gemma3TextConfig' },
  gemma3: { key: 'sliding_window_pattern', every: 6, other: 'sliding_attention', source: 'Gemma3TextConfig' },
  gemma4_text: { key: null, every: 6, other: 'sliding_attention', source: 'Gemma4TextConfig' },
  gemma4: { key: null, every: 6, other: 'sliding_attention', source: 'Gemma4TextConfig' },
  cohere2: { key: 'sliding_window_pattern', every: 4, other: 'sliding_attention', source: 'Cohere2Config' },
  gpt_oss: { key: null, every: 2, other: 'sliding_attention', source: 'GptOssConfig' },
  qwen3_next: { key: 'full_attention_interval', every: 4, other: 'linear_attention', source: 'Qwen3NextConfig' },
};
// sliding_window when a config that has sliding layers leaves it out (the configuration classes' defaults).
const DEFAULT_WINDOW = { gemma2: 4096, gemma3_text: 4096, gemma3: 4096, gemma4_text: 512, gemma4: 512, cohere2: 4096,
  gpt_oss: 128, qwen2: 4096, qwen2_moe: 4096, qwen2_vl: 4096, qwen2_5_vl: 4096, qwen3: 4096, qwen3_moe: 4096 };
// Models whose no_rope_layers say which layers rotate (1: it rotates): Llama4TextConfig and SmolLM3Config,
// both defaulting to a NoPE layer every no_rope_layer_interval-th (default 4).
const NO_ROPE_MODELS = new Set(['llama4', 'llama4_text', 'smollm3']);

/** "0–4, 6–10, 12" for sorted layer indices. */
function ranges(indices) {
  const parts = [];
  for (let k = 0; k < indices.length;) {
    let j = k;
    while (j + 1 < indices.length && indices[j + 1] === indices[j] + 1) j++;
    parts.push(j === k ? `${indices[k]}` : `${indices[k]}–${indices[j]}`);
    k = j + 1;
  }
  return parts.join(', ');
}

/** The config with the language model's object (text_config..., or the config itself) given other keys; undefined deletes. */
function withKeys(config, nestedKey, overrides) {
  const apply = (object) => {
    const out = { ...object };
    for (const [key, value] of Object.entries(overrides)) {
      if (value === undefined) delete out[key];
      else out[key] = value;
    }
    return out;
  };
  return nestedKey ? { ...config, [nestedKey]: apply(config[nestedKey]) } : apply(config);
}

/**
 * layer_types as the model's configuration class leaves it: given (legacy names remapped, checked
 * against num_hidden_layers), or derived from the class's own keys and defaults.
 * @returns {{types: string[], how: string}}
 */
function layerTypes(c, modelType, n, rotates, read) {
  if (c.layer_types != null) {
    const given = read('layer_types');
    if (!Array.isArray(given)) {
      throw configError(`layer_types = ${shown(given)} is invalid: expected a list of ${n} layer types (${LAYER_TYPES.join(', ')})`);
    }
    checkLayerList('layer_types', given);
    if (given.length !== n) {
      throw configError(`layer_types has ${given.length} entries but num_hidden_layers = ${n}: expected one layer type per layer`);
    }
    const types = given.map((t, i) => {
      const type = own(LEGACY_LAYER_TYPES, t) ?? t;
      if (!LAYER_TYPES.includes(type)) {
        throw configError(`layer_types[${i}] = ${shown(t)} is not a layer type posenc knows: expected one of ${LAYER_TYPES.join(', ')} ` +
          `(or the legacy ${Object.keys(LEGACY_LAYER_TYPES).join(', ')})`);
      }
      return type;
    });
    return { types, how: 'layer_types as given' };
  }
  const rule = own(INTERVAL_RULES, modelType);
  if (rule) {
    const every = rule.key && c[rule.key] != null ? read(rule.key) : rule.every;
    if (!Number.isInteger(every) || every < 1) {
      throw configError(`${rule.key} = ${shown(every)} is invalid: expected a whole number of layers >= 1 (every n-th layer is full_attention)`);
    }
    const types = Array.from({ length: n }, (_, i) => ((i + 1) % every ? rule.other : 'full_attention'));
    const given = rule.key && c[rule.key] != null;
    return { types, how: `layer_types derived as transformers’ ${rule.source} does: every ${every}th layer ` +
      `(${given ? `${rule.key} = ${every}` : (rule.key ? `${rule.key} absent: the class’s default` : 'its fixed pattern')}) ` +
      `is full_attention, the others ${rule.other}` };
  }
  if (modelType === 'llama4' || modelType === 'llama4_text') {
    // Llama4TextConfig: "chunked_attention" if the layer rotates, else "full_attention".
    const types = rotates.map((r) => (r ? 'chunked_attention' : 'full_attention'));
    return { types, how: 'layer_types derived as transformers’ Llama4TextConfig does: the RoPE layers chunked_attention, the NoPE layers full_attention' };
  }
  if (modelType === 'smollm3') {
    // SmolLM3Config: the NoPE layers attend through the sliding window when use_sliding_window and sliding_window are set.
    const on = c.use_sliding_window === true && c.sliding_window != null;
    if (c.use_sliding_window != null) read('use_sliding_window');
    const types = rotates.map((r) => (on && !r ? 'sliding_attention' : 'full_attention'));
    return { types, how: `layer_types derived as transformers’ SmolLM3Config does: ${on ? 'the NoPE layers sliding_attention, the others' : 'every layer'} full_attention` };
  }
  if (c.use_sliding_window !== undefined || c.max_window_layers !== undefined) {
    // Qwen2Config (and Qwen2-VL, Qwen3...): with use_sliding_window, the layers from max_window_layers on are sliding.
    const on = c.use_sliding_window === true && c.sliding_window != null;
    if (c.use_sliding_window != null) read('use_sliding_window');
    if (c.sliding_window != null) read('sliding_window');
    const from = c.max_window_layers != null ? read('max_window_layers') : 28;
    const types = Array.from({ length: n }, (_, i) => (on && i >= from ? 'sliding_attention' : 'full_attention'));
    return { types, how: `layer_types derived as transformers’ Qwen2Config does: ` + (on
      ? `use_sliding_window, so the layers from max_window_layers = ${from} on are sliding_attention`
      : 'use_sliding_window is off, so every layer is full_attention') };
  }
  if (typeof c.sliding_window === 'number') {
    // Mistral, Mixtral, Phi-3, Starcoder2: one sliding_window for every layer (their attention passes it on every layer).
    return { types: Array(n).fill('sliding_attention'), how: 'sliding_window with no layer_types: every layer attends through it (as Mistral’s attention does)' };
  }
  return { types: Array(n).fill('full_attention'), how: 'no layer_types: every layer is full_attention' };
}

/**
 * Which layers rotate: no_rope_layers (Llama 4, SmolLM3: 1 = the layer uses RoPE), Cohere2 (only its
 * sliding layers rotate), linear attention (none rotates); every other layer of a rotary model rotates.
 * @returns {{rotates: boolean[] | null, how: ?string}} null until layer_types are known (then by type)
 */
function noRopeLayers(c, modelType, n, read) {
  const given = c.no_rope_layers;
  // Llama4TextConfig replaces an empty list by the default (`if self.no_rope_layers`); SmolLM3Config only None.
  const useGiven = given != null && !(Array.isArray(given) && given.length === 0 && modelType !== 'smollm3');
  if (useGiven) {
    read('no_rope_layers');
    if (Array.isArray(given)) checkLayerList('no_rope_layers', given);
    if (!Array.isArray(given) || given.length !== n || !given.every((v) => v === 0 || v === 1 || v === true || v === false)) {
      throw configError(`no_rope_layers = ${shown(given)} is invalid: expected a list of ${n} entries of 0 or 1, one per layer ` +
        '(1: the layer uses RoPE, 0: it has no position encoding)');
    }
    return { rotates: given.map((v) => v === 1 || v === true), how: 'no_rope_layers as given (1: the layer rotates)' };
  }
  if (!NO_ROPE_MODELS.has(modelType)) return { rotates: null, how: null };
  const interval = c.no_rope_layer_interval != null ? read('no_rope_layer_interval') : 4;
  if (!Number.isInteger(interval) || interval < 1) {
    throw configError(`no_rope_layer_interval = ${shown(interval)} is invalid: expected a whole number of layers >= 1`);
  }
  const source = modelType === 'smollm3' ? 'SmolLM3Config' : 'Llama4TextConfig';
  return { rotates: Array.from({ length: n }, (_, i) => (i + 1) % interval !== 0),
    how: `no_rope_layers derived as transformers’ ${source} does: every ${interval}th layer (no_rope_layer_interval = ${interval}) has no position encoding` };
}

/**
 * The per-layer positional profile of a Hugging Face config.json: the distinct kinds of layer (what
 * acts on positions in it), in order of their first layer, and the kind of each layer.
 *
 * Rules, each as transformers (v4.5x and v5) reads the keys:
 *   layer_types (configuration_utils: legacy "attention"/"mamba" remapped), or derived:
 *     Gemma-2 (Gemma2Config: even layers sliding), Gemma-3 (Gemma3TextConfig: every sliding_window_pattern-th,
 *     default 6, full), Gemma-4 (Gemma4TextConfig: every 6th full, the last layer forced full), Cohere2
 *     (Cohere2Config: sliding_window_pattern, default 4), gpt-oss (GptOssConfig: alternate, sliding first),
 *     Qwen3-Next (Qwen3NextConfig: every full_attention_interval-th, default 4, full; the others
 *     linear_attention), Qwen2/Qwen2-VL/Qwen2.5-VL/Qwen3 (Qwen2Config: with use_sliding_window, layers
 *     >= max_window_layers sliding), Llama 4 (Llama4TextConfig: RoPE layers chunked_attention, NoPE layers
 *     full_attention), SmolLM3 (SmolLM3Config: NoPE layers sliding when use_sliding_window), Mistral-style
 *     (a sliding_window alone: every layer);
 *   which layers rotate: no_rope_layers (1 = rotates; default every no_rope_layer_interval-th, default 4,
 *     is NoPE: Llama4TextAttention.use_rope, SmolLM3Attention.use_rope), Cohere2 (Cohere2Attention applies
 *     RoPE only when it has a sliding window), linear attention (Qwen3NextGatedDeltaNet: no positions);
 *   each rotating kind's spec: readConfig's, for the kind's own keys: v5 rope_parameters by layer type
 *     (the kind's entry), Gemma-3 v4 sliding layers (Gemma3TextModel's local rotary: rope_local_base_freq,
 *     default 10000, no scaling), Gemma-4 full layers (Gemma4TextRotaryEmbedding: global_head_dim, default
 *     512 (Gemma4TextConfig), rope_type "proportional" with its partial_rotary_factor kept in rope_parameters),
 *     Qwen3-Next (partial_rotary_factor default 0.25);
 *   window: sliding_window (tokens) on sliding_attention layers, attention_chunk_size (tokens, Llama 4
 *     default 8192) on chunked_attention layers; Gemma-3's use_bidirectional_attention halves it (w / 2 + 1);
 *   temperature: Llama 4's NoPE layers with attn_temperature_tuning (default on) scale the query at
 *     position p by log1p(floor((p + 1) / floor_scale)) * attn_scale + 1 (floor_scale default 8192 tokens,
 *     attn_scale 0.1; Llama4TextAttention.forward);
 *   mrope: rope_scaling / rope_parameters' mrope_section [t, h, w] (pairs per axis) and Qwen3-VL's
 *     mrope_interleaved (Qwen2VL/Qwen3VL rotary embeddings); text tokens rotate as the kind's plain spec.
 *
 * @param {object} config  parsed config.json (whole, multimodal with text_config/language_config/llm_config,
 *   or a positional excerpt; anything readConfig accepts)
 * @param {{familyTypes: string[], ropeTypes: string[]}} names  the core's family types and rope_type names (describe())
 * @returns {{
 *   read: {spec: object, sliding: ?object, notes: string[], used: string[], unmodelled: {key: string, why: string}[], ignored: string[]},
 *   num_hidden_layers: ?number,
 *   kinds: {name: string, spec: object, window: {kind: 'global'} | {kind: 'sliding', size: number} | {kind: 'chunked', size: number},
 *     temperature: ?{floor_scale: number, attn_scale: number}, layers: number[]}[],
 *   layers: number[],
 *   mrope: ?{mrope_section: number[], mrope_interleaved: boolean},
 *   notes: string[],
 * }} read: readConfig's result with the keys the profile models moved from unmodelled/ignored to used;
 *   kinds[k].name: the layer type ('full_attention', 'sliding_attention', 'chunked_attention',
 *   'linear_attention') of a rotating kind, 'no_rope' for a kind without position encoding
 *   ('no_rope_<layer type>' when several such kinds differ in layer type); spec {type: 'none'} for
 *   NoPE and linear-attention kinds; window sizes in tokens; layers: layer indices (0-based);
 *   layers[i]: the index into kinds of layer i (length num_hidden_layers; [] when it is absent:
 *   then one kind, readConfig's spec)
 * @throws {RangeError} (.param the key, .code 'bad_param') num_hidden_layers (n_layer, num_layers) not a whole number
 *   in [1, MAX_LAYERS] (1024, hf-config.js), a layer_types or no_rope_layers list of more than MAX_LAYERS entries:
 *   refused before anything is built per layer
 * @throws {Error} (.param 'config') whatever readConfig throws; layer_types not a list, of another length than
 *   num_hidden_layers, or with an unknown layer type; no_rope_layers not a list of num_hidden_layers 0/1;
 *   a sliding_window_pattern / no_rope_layer_interval / full_attention_interval that is not a whole number >= 1;
 *   rope_parameters by layer type without an entry for a layer type whose layers rotate
 */
export function readProfile(config, names) {
  const base = readConfig(config, names);
  const notes = [];
  const nestedKey = isObject(config) ? LANGUAGE_MODEL_KEYS.find((k) => isObject(config[k])) : undefined;
  const c = nestedKey ? config[nestedKey] : config;
  const prefix = nestedKey ? `${nestedKey}.` : '';
  const modelType = c.model_type ?? config.model_type;
  const usedHere = new Set();
  const read = (key) => {
    usedHere.add(key);
    return c[key];
  };

  // The layer count, bounded (MAX_LAYERS) before anything is built per layer.
  let n = null;
  for (const key of ['num_hidden_layers', 'n_layer', 'num_layers']) {
    if (c[key] != null) {
      n = checkLayerCount(key, read(key));
      break;
    }
  }
  if (n == null && Array.isArray(c.layer_types)) {
    n = checkLayerList('layer_types', c.layer_types).length;
    notes.push(`num_hidden_layers absent: ${n}, the length of layer_types`);
  }

  const rope = base.spec.type === 'rope';
  const single = (window) => finish({
    kinds: [{ name: 'full_attention', spec: base.spec, window, temperature: null, layers: [] }], layers: [],
  });
  const finish = ({ kinds, layers }) => {
    const moved = new Set([...usedHere].map((k) => prefix + k));
    const profileRead = {
      ...base,
      used: [...base.used, ...[...moved].filter((k) => !base.used.includes(k))],
      unmodelled: base.unmodelled.filter((u) => !moved.has(u.key)),
      ignored: base.ignored.filter((k) => !moved.has(k)),
    };
    return { read: profileRead, num_hidden_layers: n, kinds, layers, mrope: rope ? mropeOf(c) : null, notes };
  };

  if (!rope) {
    if (n == null) return single({ kind: 'global' });
    notes.push(`${n} layers, all with the ${base.spec.type} encoding`);
    return finish({ kinds: [{ name: 'full_attention', spec: base.spec, window: { kind: 'global' }, temperature: null,
      layers: Array.from({ length: n }, (_, i) => i) }], layers: Array(n).fill(0) });
  }
  if (n == null) {
    if (typeof c.sliding_window === 'number' && c.use_sliding_window !== false) {
      const size = read('sliding_window');
      notes.push(`num_hidden_layers absent: one kind of layer, attending through sliding_window = ${size} tokens`);
      return single({ kind: 'sliding', size });
    }
    notes.push('num_hidden_layers absent: one kind of layer, readConfig’s spec');
    return single({ kind: 'global' });
  }

  // Which layers rotate and how each attends.
  const noRope = noRopeLayers(c, modelType, n, read);
  const { types, how } = layerTypes(c, modelType, n, noRope.rotates ?? Array(n).fill(true), read);
  notes.push(`num_hidden_layers = ${n}; ${how}`);
  if (noRope.how) notes.push(noRope.how);
  if ((modelType === 'gemma4' || modelType === 'gemma4_text') && types[n - 1] !== 'full_attention') {
    types[n - 1] = 'full_attention';
    notes.push('the last layer is full_attention (Gemma4TextConfig forces it)');
  }
  const rotates = types.map((type, i) => {
    if (type === 'linear_attention') return false;
    // Cohere2Attention keeps sliding_window only on sliding layers and rotates only when it has one (so a null
    // sliding_window leaves every layer unrotated).
    if (modelType === 'cohere2' && (type !== 'sliding_attention' || c.sliding_window === null)) return false;
    return noRope.rotates ? noRope.rotates[i] : true;
  });
  if (modelType === 'cohere2' && types.includes('full_attention')) {
    notes.push('Cohere2’s full_attention layers have no position encoding: its attention applies RoPE only on the ' +
      'sliding-window layers (Cohere2Attention)');
  }
  if (types.includes('linear_attention')) {
    notes.push('linear_attention layers (gated DeltaNet) have no position encoding: their order comes from the ' +
      'recurrence, not from positions (shown as type none)');
  }

  // Group the layers into kinds by (layer type, rotates), in order of first layer.
  const keyOf = (i) => `${types[i]}|${rotates[i]}`;
  const order = [];
  const byKey = new Map();
  const layers = types.map((_, i) => {
    const key = keyOf(i);
    if (!byKey.has(key)) {
      byKey.set(key, order.length);
      order.push({ type: types[i], rotates: rotates[i], layers: [] });
    }
    order[byKey.get(key)].layers.push(i);
    return byKey.get(key);
  });
  const noRopeTypes = new Set(order.filter((k) => !k.rotates && k.type !== 'linear_attention').map((k) => k.type));

  const specs = kindSpecs(config, nestedKey, c, modelType, names, base, order, read, notes);
  const kinds = order.map((kind, k) => {
    const name = kind.rotates || kind.type === 'linear_attention' ? kind.type
      : (noRopeTypes.size > 1 ? `no_rope_${kind.type}` : 'no_rope');
    const window = windowOf(kind.type, c, modelType, read, notes);
    const temperature = !kind.rotates && kind.type !== 'linear_attention' ? temperatureOf(c, modelType, read) : null;
    notes.push(`${name}: layers ${ranges(kind.layers)} (${kind.layers.length})` +
      (window.kind === 'global' ? '' : `, ${window.kind} window of ${window.size} tokens`) +
      (temperature ? `, query temperature log1p(floor((pos + 1) / ${temperature.floor_scale})) × ${temperature.attn_scale} + 1` : ''));
    return { name, spec: specs[k], window, temperature, layers: kind.layers };
  });
  if (modelType === 'deepseek_v2' || modelType === 'deepseek_v3' || c.qk_nope_head_dim != null) deepseekNotes(c, read, notes);
  return finish({ kinds, layers });
}

/** Each kind's spec: readConfig's for a config holding that kind's keys; {type: 'none'} where no layer rotates. */
function kindSpecs(config, nestedKey, c, modelType, names, base, order, read, notes) {
  const gemma3 = modelType === 'gemma3' || modelType === 'gemma3_text';
  const gemma4 = modelType === 'gemma4' || modelType === 'gemma4_text';
  let byType = perLayerType(c.rope_parameters);
  if (!byType && gemma4 && c.rope_parameters == null) {
    // Gemma4TextConfig's default rope_parameters.
    byType = { sliding_attention: { rope_type: 'default', rope_theta: 10000 },
      full_attention: { rope_type: 'proportional', partial_rotary_factor: 0.25, rope_theta: 1000000 } };
    notes.push('rope_parameters absent: Gemma4TextConfig’s default (sliding_attention default, rope_theta 10000; ' +
      'full_attention proportional, partial_rotary_factor 0.25, rope_theta 1000000)');
  }
  const specFor = (overrides) => readConfig(withKeys(config, nestedKey, overrides), names).spec;
  return order.map((kind) => {
    if (!kind.rotates) return { type: 'none' };
    const overrides = {};
    if (byType) {
      let block = byType[kind.type];
      if (block == null && gemma3) {
        // Gemma3TextConfig.convert_rope_params_to_dict fills a missing entry.
        block = kind.type === 'sliding_attention'
          ? { rope_type: 'default', rope_theta: c.rope_local_base_freq ?? 10000 }
          : { rope_type: 'default', rope_theta: c.rope_theta ?? 1000000 };
        notes.push(`rope_parameters has no ${kind.type} entry: ${JSON.stringify(block)}, as Gemma3TextConfig fills it`);
      }
      if (block == null) {
        throw configError(`rope_parameters by layer type has no "${kind.type}" entry (it has ${Object.keys(byType).join(', ')}), ` +
          `but layers ${ranges(kind.layers)} are ${kind.type} and rotate: expected one entry per rotating layer type`);
      }
      Object.assign(overrides, { rope_parameters: block, rope_local_base_freq: undefined });
    } else if (gemma3 && kind.type === 'sliding_attention') {
      // Gemma3TextModel (v4): the local rotary is the config with rope_theta = rope_local_base_freq and no scaling.
      const local = c.rope_local_base_freq != null ? read('rope_local_base_freq') : 10000;
      Object.assign(overrides, { rope_theta: local, rope_scaling: undefined, rope_parameters: undefined, rope_local_base_freq: undefined });
      notes.push(`sliding_attention layers rotate with rope_local_base_freq = ${local} and no scaling (Gemma-3’s local rotary embedding)`);
    }
    if (gemma4 && kind.type === 'full_attention') {
      const global = c.global_head_dim != null ? read('global_head_dim') : 512;
      overrides.head_dim = global;
      notes.push(`full_attention layers: head_dim = global_head_dim = ${global}` + (c.global_head_dim != null ? '' : ' (Gemma4TextConfig’s default)') +
        '; a proportional RoPE rotates partial_rotary_factor of its pairs at frequencies over the whole head');
    }
    if (modelType === 'qwen3_next') {
      const block = overrides.rope_parameters ?? c.rope_parameters;
      if (c.partial_rotary_factor != null) read('partial_rotary_factor');
      else if (!(isObject(block) && block.partial_rotary_factor != null)) {
        overrides.partial_rotary_factor = 0.25;
        notes.push('partial_rotary_factor absent: 0.25, Qwen3NextConfig’s default');
      }
    }
    return Object.keys(overrides).length ? specFor(overrides) : structuredClone(base.spec);
  });
}

/** The window of a layer type, in tokens. */
function windowOf(type, c, modelType, read, notes) {
  if (type === 'sliding_attention') {
    // Qwen2Config drops sliding_window when use_sliding_window is off.
    const off = c.use_sliding_window === false && !(modelType === 'smollm3');
    // An explicit null stays null (the class default applies only to an absent key).
    let size = off ? null : (c.sliding_window !== undefined ? read('sliding_window') : own(DEFAULT_WINDOW, modelType) ?? null);
    if (size == null) {
      notes.push('sliding_attention layers without a sliding_window attend to every token (as transformers masks them)');
      return { kind: 'global' };
    }
    if ((modelType === 'gemma3' || modelType === 'gemma3_text') && c.use_bidirectional_attention === true) {
      read('use_bidirectional_attention');
      const halved = Math.floor(size / 2) + 1;
      notes.push(`use_bidirectional_attention: the window is sliding_window / 2 + 1 = ${halved} on each side (Gemma3TextConfig)`);
      size = halved;
    }
    return { kind: 'sliding', size };
  }
  if (type === 'chunked_attention') {
    const llama4 = modelType === 'llama4' || modelType === 'llama4_text';
    const size = c.attention_chunk_size !== undefined ? read('attention_chunk_size') : (llama4 ? 8192 : null);
    if (size == null) {
      notes.push('chunked_attention layers without attention_chunk_size attend to every token');
      return { kind: 'global' };
    }
    return { kind: 'chunked', size };
  }
  return { kind: 'global' };
}

/** Llama 4's attention temperature on its NoPE layers (Llama4TextConfig defaults: on, floor_scale 8192, attn_scale 0.1). */
function temperatureOf(c, modelType, read) {
  if (modelType !== 'llama4' && modelType !== 'llama4_text') return null;
  const on = c.attn_temperature_tuning != null ? read('attn_temperature_tuning') : true;
  if (!on) return null;
  return {
    floor_scale: c.floor_scale != null ? read('floor_scale') : 8192,
    attn_scale: c.attn_scale != null ? read('attn_scale') : 0.1,
  };
}

/** M-RoPE's sections (Qwen2-VL, Qwen2.5-VL, Qwen3-VL, GLM-4V): null unless the scaling block has mrope_section. */
function mropeOf(c) {
  const block = isObject(c.rope_scaling) ? c.rope_scaling : (isObject(c.rope_parameters) ? c.rope_parameters : null);
  if (!block || !Array.isArray(block.mrope_section)) return null;
  return { mrope_section: [...block.mrope_section], mrope_interleaved: block.mrope_interleaved === true };
}

/** DeepSeek's MLA split (DeepseekV3Attention): qk_nope_head_dim channels carry no position; the yarn mscale on the softmax. */
function deepseekNotes(c, read, notes) {
  if (c.qk_nope_head_dim != null) {
    const nope = read('qk_nope_head_dim');
    const ropeDim = c.qk_rope_head_dim;
    notes.push(`MLA: each query/key head is qk_nope_head_dim + qk_rope_head_dim = ${nope} + ${ropeDim} = ${nope + ropeDim} wide; ` +
      `only the ${ropeDim} rotate (the spec’s head_dim), the ${nope} others carry no position`);
  }
  const block = isObject(c.rope_scaling) ? c.rope_scaling : null;
  if (block && (block.rope_type ?? block.type) === 'yarn' && block.mscale_all_dim && block.factor > 1) {
    const m = 0.1 * block.mscale_all_dim * Math.log(block.factor) + 1;
    notes.push(`yarn mscale_all_dim = ${block.mscale_all_dim}: DeepSeek’s attention multiplies its softmax scale by ` +
      `(0.1 × mscale_all_dim × ln factor + 1)² = ${(m * m).toFixed(4)} at every position`);
  }
}
