// Reads a Hugging Face config.json, pasted whole or as its positional part, into
// a posenc spec of the family the model uses (DESIGN.md spec format). Each key is
// mapped as the transformers configuration and modeling classes use it; the core
// then validates the spec. The family and rope-type names come from the core's
// describe() (web/generated/describe.json), the one list of them: model-config.js
// hands them in (specFromConfig), so this module imports nothing but errors.js (a
// leaf) and runs anywhere, before any build (tests/unit/hf-config.test.mjs).
// Every table here is looked up by its own keys only (own(), Sets): a model_type of
// "constructor" or "__proto__" is an unknown name, not Object.prototype's.
import { badParam } from '../errors.js';

// Model types whose attention rotates interleaved pairs (rotate_every_two):
// GPT-J and CodeGen, DeepSeek-V2/V3 (rope_interleave in transformers), Llama 4
// (modeling_llama4.py apply_rotary_emb: view_as_complex over adjacent pairs) and
// Cohere / Cohere2 (modeling_cohere2.py rotate_half over x[..., ::2], x[..., 1::2]).
const INTERLEAVED_MODELS = new Set(['gptj', 'codegen', 'deepseek_v2', 'deepseek_v3', 'llama4', 'llama4_text', 'cohere',
  'cohere2']);
// Keys that mark a whole config.json: its keys that carry no position
// information are then listed as ignored rather than refused.
const FULL_CONFIG_MARKERS = ['model_type', 'architectures', 'vocab_size', 'num_hidden_layers', 'n_layer', 'num_layers',
  'transformers_version'];
// Where multimodal configs keep their language model's keys.
export const LANGUAGE_MODEL_KEYS = ['text_config', 'language_config', 'llm_config'];
const NESTED = LANGUAGE_MODEL_KEYS;
// The keys of the rotary reader, for a positional excerpt's unknown-key message.
const ROTARY_KEYS = ['head_dim', 'global_head_dim', 'hidden_size', 'num_attention_heads', 'n_embd', 'n_head', 'qk_rope_head_dim',
  'rope_theta', 'rotary_emb_base', 'partial_rotary_factor', 'rotary_pct', 'rotary_dim', 'max_position_embeddings',
  'n_positions', 'original_max_position_embeddings', 'rope_scaling', 'rope_parameters', 'rope_interleave', 'layout',
  'rope_local_base_freq', 'sliding_window'];
// Keys only a rotary config has.
const ROPE_MARKERS = ['rope_theta', 'rotary_emb_base', 'partial_rotary_factor', 'rotary_pct', 'rotary_dim', 'rope_scaling',
  'rope_parameters', 'qk_rope_head_dim', 'rope_interleave', 'original_max_position_embeddings', 'rope_local_base_freq'];
// Model types that add a learned absolute table to the token embeddings, and the
// row their first position reads (OPT and BART offset it by 2).
const LEARNED_MODELS = {
  gpt2: 0, gpt_bigcode: 0, gpt_neo: 0, bert: 0, distilbert: 0, electra: 0, albert: 0, 'xlm-roberta': 'pad', roberta: 'pad',
  camembert: 'pad', opt: 2, bart: 2, mbart: 2, biogpt: 0, imagegpt: 0,
};
// Positional keys posenc reads but does not model, and what they do.
const UNMODELLED = {
  sliding_window: 'the window of sliding-window attention layers (posenc’s head attends to every token)',
  sliding_window_size: 'the window of sliding-window attention layers',
  sliding_window_pattern: 'which layers use the sliding window (every n-th is global)',
  use_sliding_window: 'whether sliding-window attention is on',
  max_window_layers: 'how many layers use sliding-window attention',
  layer_types: 'which layers use sliding-window and which full attention',
  attention_chunk_size: 'chunked local attention of the RoPE layers (Llama 4)',
  no_rope_layer_interval: 'every n-th layer has no position encoding at all (NoPE, Llama 4)',
  no_rope_layers: 'which layers have no position encoding (NoPE, Llama 4)',
  window_size: 'the window of GPT-Neo’s local attention layers',
  attention_types: 'which GPT-Neo layers use local attention',
  attention_layers: 'which GPT-Neo layers use local attention',
  offset_alibi: 'a legacy BLOOM key that transformers does not read',
  qk_nope_head_dim: 'the part of each DeepSeek head that does not rotate',
  initial_context_length: 'gpt-oss’s pre-training context (its rope_scaling gives the same L)',
  mrope_section: 'M-RoPE’s split of the pairs among time, height and width',
  use_qk_norm: 'normalises q and k before RoPE (Llama 4), which does not change the rotation',
};
// Keys whose values are numbers.
const NUMERIC_KEYS = new Set(['head_dim', 'global_head_dim', 'hidden_size', 'num_attention_heads', 'n_embd', 'n_head', 'n_heads', 'num_heads', 'd_model',
  'qk_rope_head_dim', 'rope_theta', 'rotary_emb_base', 'partial_rotary_factor', 'rotary_pct', 'rotary_dim',
  'max_position_embeddings', 'n_positions', 'original_max_position_embeddings', 'rope_local_base_freq', 'sliding_window',
  'relative_attention_num_buckets', 'relative_attention_max_distance', 'initializer_range', 'init_std', 'pad_token_id',
  'position_buckets', 'max_relative_positions', 'layer_norm_eps', 'attention_head_size']);
const POSITIONAL_PATTERN = /rope|rotary|position|alibi|relative|window|bucket|chunk|pos_att/i;

/** Whether x is a plain JSON object (not null, not an array). */
export function isObject(x) {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

/**
 * table[key] when it is the table's own entry, else undefined: the one lookup of a table by a name from the input
 * (model types, architectures, layer types), so "constructor", "__proto__", "toString" are names no table has.
 */
export function own(table, key) {
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * A config value as a message shows it: its JSON, at most `max` characters ("..." where cut). A long list, object
 * or string is cut while it is written, so a list of a million entries costs no more than a short one.
 * @param {*} value
 * @param {number} [max]
 * @returns {string}
 */
export function shown(value, max = 60) {
  let text = '';
  // Appends JSON of v to text; false once text is longer than max (the caller stops writing).
  const write = (v) => {
    if (text.length > max) return false;
    if (Array.isArray(v)) {
      text += '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) text += ',';
        if (!write(v[i])) return false;
      }
      text += ']';
    } else if (isObject(v)) {
      text += '{';
      let first = true;
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        if (!first) text += ',';
        first = false;
        text += `${JSON.stringify(key.slice(0, max + 1))}:`;
        if (!write(v[key])) return false;
      }
      text += '}';
    } else if (typeof v === 'string') text += JSON.stringify(v.slice(0, max + 1));
    else if (typeof v === 'bigint') text += String(v);
    else text += JSON.stringify(v) ?? String(v);
    return text.length <= max;
  };
  write(value);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** An Error whose .param names the control it belongs to (the page shows it there): "config: <message>", .param 'config'. */
export function configError(message) {
  return Object.assign(new Error(`config: ${message}`), { param: 'config' });
}

// How deep a pasted config may nest objects and arrays: a model's config.json nests three or four levels
// (text_config.rope_scaling.long_factor); a deeper paste is refused before it is parsed, so it never reaches
// a recursive copy (postMessage's structured clone overflows the stack at a few thousand levels).
export const MAX_CONFIG_DEPTH = 32;

// How many layers a model's config may declare: num_hidden_layers (n_layer, num_layers), a GGUF file's block_count,
// and every per-layer list (layer_types, no_rope_layers, a GGUF file's per-layer head counts). The largest published
// models have a few hundred layers; a count above this is refused by its key before anything is built per layer (the
// readers build a few entries per layer: 10^7 layers took 600 MB). describe().limits.max_layers reports the same number
// (core/src/describe.cpp; tests/wasm/page-agreement.test.mjs checks they agree).
export const MAX_LAYERS = 1024;

/**
 * A layer count read from `key`, checked: a whole number in [1, MAX_LAYERS].
 * @param {string} key  the config key it was read from (num_hidden_layers, n_layer, num_layers, block_count)
 * @param {*} n
 * @returns {number} n
 * @throws {RangeError} .param key, .code 'bad_param': "<key> = <n> is invalid: expected a whole number of layers in [1, 1024] ..."
 */
export function checkLayerCount(key, n) {
  if (!Number.isInteger(n) || n < 1 || n > MAX_LAYERS) {
    throw badParam(key, typeof n === 'number' ? String(n) : shown(n), `a whole number of layers in [1, ${MAX_LAYERS}] ` +
      `(posenc reads models of up to ${MAX_LAYERS} layers)`);
  }
  return n;
}

/**
 * A per-layer list read from `key`, checked to have at most MAX_LAYERS entries (before any entry is read).
 * @param {string} key  the config key (layer_types, no_rope_layers, ...)
 * @param {Array} list
 * @returns {Array} list
 * @throws {RangeError} .param key, .code 'bad_param'
 */
export function checkLayerList(key, list) {
  if (list.length > MAX_LAYERS) {
    throw badParam(key, `a list of ${list.length} entries`, `one entry per layer, at most ${MAX_LAYERS} ` +
      `(posenc reads models of up to ${MAX_LAYERS} layers)`);
  }
  return list;
}

/** The character at which text's objects and arrays first nest deeper than `limit` (outside strings), or -1. */
function tooDeepAt(text, limit) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;  // \ escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {  // { [
      if (++depth > limit) return i;
    } else if (c === 125 || c === 93) depth--;  // } ]
  }
  return -1;
}

/**
 * Parses pasted text as JSON, with a message that says where it failed.
 * @throws {Error} "config: not valid JSON (...)" or "config: nested more than 32 levels deep ...", .param = 'config'
 */
export function parseConfigText(text) {
  const deep = tooDeepAt(text, MAX_CONFIG_DEPTH);
  if (deep >= 0) {
    throw configError(`nested more than ${MAX_CONFIG_DEPTH} levels deep (at character ${deep}); a model's config.json nests three or four`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw configError(`not valid JSON (${error.message})`);
  }
}

/** The keys of one config object as a reader uses them: each read is recorded under its path. */
function reader(object, prefix, used) {
  return {
    object,
    has: (key) => object[key] !== undefined && object[key] !== null,
    get(key) {
      if (object[key] === undefined) return undefined;
      used.push(prefix + key);
      const value = object[key];
      // A number written as text ("4096") is not one: transformers would fail on it too.
      if (typeof value === 'string' && NUMERIC_KEYS.has(key)) {
        throw configError(`${prefix}${key} = ${JSON.stringify(value).slice(0, 40)} is invalid: expected a number, not a string`);
      }
      return value;
    },
  };
}

/** `a ?? b` over keys: the first present one (each read recorded). */
function first(r, ...keys) {
  for (const key of keys) if (r.has(key)) return r.get(key);
  return undefined;
}

/** head_dim: given, else hidden_size / num_attention_heads (or GPT-style n_embd / n_head). */
function headDim(r, notes) {
  if (r.has('head_dim')) return r.get('head_dim');
  const width = first(r, 'hidden_size', 'n_embd', 'd_model');
  const heads = first(r, 'num_attention_heads', 'n_head', 'n_heads', 'num_heads');
  if (width == null || heads == null) return undefined;
  if (!Number.isInteger(width / heads)) {
    throw configError(`hidden_size = ${width} is not a multiple of num_attention_heads = ${heads}; give head_dim`);
  }
  notes.push(`head_dim = ${width} / ${heads} = ${width / heads}`);
  return width / heads;
}

/**
 * A scaling block as transformers reads it: Phi-3's legacy type names "su" and
 * "yarn" become "longrope" (Phi3Config._rope_scaling_adjustment), Qwen2-VL's
 * "mrope" becomes "default" (its text tokens rotate as plain RoPE), and
 * mrope_section is not a key of the rotation.
 */
function standardScaling(block, modelType, notes) {
  if (!isObject(block)) return block;
  const out = { ...block };
  const name = out.rope_type ?? out.type;
  const phi3 = /^phi3/.test(modelType ?? '') || (out.short_factor != null && out.long_factor != null);
  if (name === 'su' || (name === 'yarn' && phi3)) {
    notes.push(`rope_scaling type "${name}" is the legacy name of "longrope" (transformers renames it)`);
    if ('type' in out) out.type = 'longrope';
    if ('rope_type' in out) out.rope_type = 'longrope';
  }
  if (name === 'mrope' || out.mrope_section != null) {
    notes.push(`M-RoPE (mrope_section ${shown(out.mrope_section)}): text tokens have equal time, height ` +
      'and width positions, so they rotate as the plain RoPE shown here; the 3-D positions of image and video ' +
      'tokens, whose pairs the sections split among time, height and width, are not shown');
    if (name === 'mrope') {
      if ('type' in out) out.type = 'default';
      if ('rope_type' in out) out.rope_type = 'default';
    }
    delete out.mrope_section;
    // Qwen3-VL's flag: the sections interleave over the pairs (t h w t h w ...) instead of lying in three runs;
    // a text token has equal t, h and w, so this does not change its rotation either.
    delete out.mrope_interleaved;
  }
  if ((out.rope_type ?? out.type) === 'default' && Object.keys(out).every((k) => ['type', 'rope_type', 'rope_theta'].includes(k))) {
    return out.rope_theta != null ? out : null;
  }
  return out;
}

/** v5's per-layer-type rope_parameters ({full_attention: {...}, sliding_attention: {...}}), or null. */
export function perLayerType(block) {
  if (!isObject(block)) return null;
  const values = Object.values(block);
  return values.length > 0 && values.every(isObject) ? block : null;
}

/** The rotary family: RoPE and its scalings, as transformers' ROPE_INIT_FUNCTIONS read the config. */
function readRotary(r, modelType, notes) {
  const spec = { type: 'rope' };
  if (r.has('qk_rope_head_dim')) {
    spec.head_dim = r.get('qk_rope_head_dim');
    notes.push(`head_dim = qk_rope_head_dim = ${spec.head_dim}: only this slice of each head rotates`);
  } else {
    const d = headDim(r, notes);
    if (d != null) spec.head_dim = d;
  }
  const theta = first(r, 'rope_theta', 'rotary_emb_base');
  if (theta != null) spec.rope_theta = theta;
  const partial = first(r, 'partial_rotary_factor', 'rotary_pct');
  if (partial != null) spec.partial_rotary_factor = partial;
  if (r.has('rotary_dim')) spec.rotary_dim = r.get('rotary_dim');
  r.get('rotary');  // GPT-J's flag: it always rotates
  const maxPositions = first(r, 'max_position_embeddings', 'n_positions');
  if (maxPositions != null) spec.max_position_embeddings = maxPositions;
  if (r.has('original_max_position_embeddings')) spec.original_max_position_embeddings = r.get('original_max_position_embeddings');

  let local = null;
  if (r.object.rope_scaling !== undefined) {
    const block = standardScaling(r.get('rope_scaling'), modelType, notes);
    if (block != null) spec.rope_scaling = block;
  }
  if (r.has('rope_parameters')) {
    const raw = r.get('rope_parameters');
    const byLayer = perLayerType(raw);
    if (byLayer) {
      const full = byLayer.full_attention;
      if (!full) throw configError(`rope_parameters by layer type has no "full_attention" entry (has ${Object.keys(byLayer).join(', ')})`);
      spec.rope_parameters = standardScaling(full, modelType, notes);
      // Gemma-4's full-attention layers have heads of their own width (Gemma4TextRotaryEmbedding reads
      // head_dim_key "global_head_dim" for them): its sliding layers' pairs are not the full layers', so they are not
      // drawn as a second spectrum over them but as a layer kind of their own (config/profile.js).
      const ownWidth = r.has('global_head_dim') ? r.get('global_head_dim') : null;
      const sliding = ownWidth == null ? byLayer.sliding_attention : null;
      if (sliding) local = sliding;
      notes.push(`rope_parameters by layer type: full_attention is shown${sliding ? '; sliding_attention as the sliding-window layers’ spectrum' : ''}`);
      if (ownWidth != null) {
        notes.push(`head_dim = global_head_dim = ${ownWidth}: the full_attention layers’ heads (the sliding_attention layers’ ` +
          `heads are ${spec.head_dim ?? 'head_dim'} wide: pick them as a layer kind of their own)`);
        spec.head_dim = ownWidth;
      }
    } else {
      spec.rope_parameters = standardScaling(raw, modelType, notes);
    }
  }
  if (r.has('rope_local_base_freq')) local = { rope_theta: r.get('rope_local_base_freq') };
  const sliding = {};
  if (local) {
    if ((local.rope_type ?? 'default') !== 'default') {
      throw configError(`the sliding-window layers’ rope_type "${local.rope_type}" is not shown; posenc shows them with rope_theta alone`);
    }
    sliding.rope_theta = local.rope_theta;
  }
  if (r.has('sliding_window') && r.object.use_sliding_window !== false) {
    sliding.window = r.get('sliding_window');
    notes.push(`sliding_window = ${sliding.window}: marked on the spectrum (posenc’s head attends to every token)`);
  }

  // longrope without a factor: transformers uses max_position_embeddings / original_max_position_embeddings.
  const block = spec.rope_scaling ?? spec.rope_parameters;
  if (isObject(block) && (block.rope_type ?? block.type) === 'longrope' && block.factor == null) {
    const original = spec.original_max_position_embeddings ?? block.original_max_position_embeddings;
    if (spec.max_position_embeddings != null && original != null) {
      block.factor = spec.max_position_embeddings / original;
      notes.push(`longrope factor = max_position_embeddings / original_max_position_embeddings = ${spec.max_position_embeddings} / ${original} = ${block.factor}`);
    }
  }
  if (r.has('layout')) spec.layout = r.get('layout');
  else if (r.has('rope_interleave')) spec.layout = r.get('rope_interleave') ? 'interleaved' : 'half';
  else if (INTERLEAVED_MODELS.has(modelType)) spec.layout = 'interleaved';
  else if (modelType != null) spec.layout = 'half';
  if (spec.layout === 'interleaved' && !r.has('layout')) notes.push(`interleaved pairs (${modelType ?? 'rope_interleave'})`);
  return { spec, sliding: Object.keys(sliding).length ? sliding : null };
}

/** ALiBi: BLOOM (n_head), MPT (attn_config.alibi, n_heads), Falcon-RW (alibi, num_attention_heads). */
function readAlibi(r, notes) {
  const heads = first(r, 'n_head', 'num_attention_heads', 'n_heads', 'num_heads');
  if (heads == null) throw configError('an ALiBi model needs its number of heads (n_head or num_attention_heads)');
  notes.push(`${heads} heads: each has its own slope; head 0 is shown (change it with "head")`);
  return { type: 'alibi', n_heads: heads, head: 0, causal: true };
}

/** T5's relative buckets: encoder self-attention (bidirectional); the decoder's are unidirectional. */
function readT5(r, notes) {
  const spec = { type: 't5', num_buckets: r.get('relative_attention_num_buckets'), max_distance: 128, head: 0, bidirectional: true };
  if (r.has('relative_attention_max_distance')) spec.max_distance = r.get('relative_attention_max_distance');
  else notes.push('relative_attention_max_distance absent: 128, transformers’ default');
  const heads = first(r, 'num_heads', 'num_attention_heads', 'n_head');
  if (heads != null) spec.n_heads = heads;
  notes.push('the encoder’s self-attention (bidirectional buckets) is shown; its decoder’s uses unidirectional ' +
    'buckets (turn bidirectional off); the bias values are learned, so an untrained (seeded) table is drawn');
  if (r.has('is_encoder_decoder')) r.get('is_encoder_decoder');
  return spec;
}

/** A learned absolute table: GPT-2 (n_positions, n_embd), GPT-Neo, BERT, RoBERTa, OPT, BART. */
function readLearned(r, modelType, notes) {
  const spec = { type: 'learned' };
  const width = first(r, 'n_embd', 'hidden_size', 'd_model');
  if (width != null) spec.d_model = width;
  let rows = first(r, 'n_positions', 'max_position_embeddings');
  const offset = own(LEARNED_MODELS, modelType);
  if (offset === 'pad' && rows != null) {
    const pad = r.has('pad_token_id') ? r.get('pad_token_id') : 1;
    notes.push(`${modelType} numbers positions from pad_token_id + 1 = ${pad + 1}: of its ${rows} rows, ${rows - pad - 1} hold positions`);
    rows -= pad + 1;
  } else if (offset === 2) {
    notes.push(`${modelType}’s table has max_position_embeddings + 2 rows; positions read rows 2 onwards (offset 2)`);
  }
  if (rows != null) spec.max_position_embeddings = rows;
  if (r.has('initializer_range')) spec.std = r.get('initializer_range');
  if (r.has('init_std')) spec.std = r.get('init_std');
  notes.push('a learned table is trained: posenc draws it at its initialisation, N(0, std²)');
  return spec;
}

/** BERT's relative_key / relative_key_query: a Shaw-style table of 2·max_position_embeddings − 1 relative embeddings. */
function readBertRelative(r, kind, notes) {
  const d = headDim(r, notes);
  const maxPositions = r.get('max_position_embeddings') ?? 512;
  notes.push(`position_embedding_type "${kind}" (Huang et al. 2020): a learned embedding per distance up to ` +
    `max_position_embeddings − 1 = ${maxPositions - 1}, dotted with the query as in Shaw et al.` +
    (kind === 'relative_key_query' ? '; the key-side term of relative_key_query is not shown' : ''));
  return { type: 'shaw', head_dim: d, max_relative_position: maxPositions - 1 };
}

/**
 * DeBERTa-v2/v3 (DebertaV2Config, read as modeling_deberta_v2.py reads it: keys the
 * config class does not declare come with getattr defaults, position_buckets -1,
 * share_att_key false, norm_rel_ebd "none"; relative_attention defaults to false).
 */
function readDeberta(r, notes) {
  const spec = { type: 'deberta' };
  const head = r.has('attention_head_size') ? r.get('attention_head_size') : headDim(r, notes);
  if (head != null) spec.head_dim = head;
  if (r.has('hidden_size')) spec.hidden_size = r.get('hidden_size');
  spec.relative_attention = r.has('relative_attention') ? r.get('relative_attention') === true : false;
  spec.position_buckets = r.has('position_buckets') ? r.get('position_buckets') : -1;
  spec.max_relative_positions = r.has('max_relative_positions') ? r.get('max_relative_positions') : -1;
  if (r.has('max_position_embeddings')) spec.max_position_embeddings = r.get('max_position_embeddings');
  // "p2c|c2p" is split on | (lower-cased, trimmed); a list is kept; none is [].
  const types = r.has('pos_att_type') ? r.get('pos_att_type') : [];
  spec.pos_att_type = typeof types === 'string' ? types.toLowerCase().split('|').map((t) => t.trim()) : types;
  spec.share_att_key = r.has('share_att_key') ? r.get('share_att_key') === true : false;
  const norm = r.has('norm_rel_ebd') ? String(r.get('norm_rel_ebd')).toLowerCase().split('|').map((t) => t.trim()) : ['none'];
  spec.norm_rel_ebd = norm.includes('layer_norm') ? 'layer_norm' : 'none';
  if (r.has('layer_norm_eps')) spec.layer_norm_eps = r.get('layer_norm_eps');
  if (r.has('position_biased_input') && r.get('position_biased_input') === true) {
    notes.push('position_biased_input: the model also adds a learned absolute table to its token embeddings, which this view does not add');
  }
  const span = spec.position_buckets > 0 ? spec.position_buckets
    : (spec.max_relative_positions < 1 ? (spec.max_position_embeddings ?? 512) : spec.max_relative_positions);
  notes.push(`relative embeddings: ${2 * span} rows (2 × att_span ${span}), trained in the model: posenc draws them ` +
    '(N(0, 1), then the LayerNorm when norm_rel_ebd is layer_norm)');
  if (!spec.relative_attention) notes.push('relative_attention is false: no c2p or p2c term, only the content scores');
  return spec;
}

/** Which family a config is, or a refusal that says why. */
function familyOf(c, modelType) {
  const has = (key) => c[key] !== undefined && c[key] !== null;
  if (/^deberta/.test(modelType ?? '') || has('position_buckets') || has('pos_att_type')) return 'deberta';
  if (modelType === 'chatglm' || has('rope_ratio') || has('original_rope')) {
    throw configError(`model_type "${modelType}" runs its own modeling code (trust_remote_code), whose rotary ` +
      'keys (kv_channels, original_rope, rope_ratio, seq_length) transformers does not define; posenc reads the ' +
      'transformers forms only');
  }
  if (has('relative_attention_num_buckets')) return 't5';
  if (modelType === 'bloom' || c.alibi === true || (isObject(c.attn_config) && c.attn_config.alibi === true)) return 'alibi';
  const embeddingType = c.position_embedding_type;
  if (embeddingType === 'relative_key' || embeddingType === 'relative_key_query') return 'shaw';
  if (embeddingType === 'rotary') return 'rope';
  if (ROPE_MARKERS.some((k) => c[k] !== undefined)) return 'rope';
  if (own(LEARNED_MODELS, modelType) !== undefined || embeddingType === 'absolute') return 'learned';
  if (modelType == null) return 'rope';  // a positional excerpt such as {"head_dim": 128}
  // Every other transformers decoder with heads rotates (LLaMA-2, Falcon, OLMo...): an absent rope_theta is 10000.
  if (has('head_dim') || ((has('hidden_size') || has('n_embd')) && (has('num_attention_heads') || has('n_head')))) return 'rope';
  throw configError(`model_type "${modelType}": none of its keys says how it encodes positions ` +
    `(looked for rope_theta, rope_scaling, rotary_*, relative_attention_num_buckets, alibi, position_embedding_type)`);
}

/**
 * Maps a config.json object (or just its positional part) to a posenc spec of
 * the model's own family, as transformers reads each key:
 *   rope: head_dim (or qk_rope_head_dim, or hidden_size / num_attention_heads,
 *     n_embd / n_head), rope_theta (rotary_emb_base), partial_rotary_factor
 *     (rotary_pct), rotary_dim (GPT-J), max_position_embeddings (n_positions),
 *     original_max_position_embeddings, rope_scaling / rope_parameters (v5, also
 *     by layer type), legacy "su"/"yarn" (Phi-3) -> longrope, "mrope" -> default,
 *     longrope's factor from max_position_embeddings / original_max_position_embeddings,
 *     rope_local_base_freq (Gemma-3's sliding-window layers), layout interleaved
 *     for GPT-J, CodeGen, DeepSeek-V2/V3 (or rope_interleave);
 *   alibi: BLOOM, MPT (attn_config.alibi), Falcon (alibi);
 *   t5: relative_attention_num_buckets, relative_attention_max_distance, num_heads;
 *   learned: GPT-2 (n_positions, n_embd), GPT-Neo, BERT/RoBERTa
 *     (position_embedding_type "absolute"; RoBERTa's pad offset), OPT/BART (offset 2);
 *   shaw: BERT's position_embedding_type "relative_key" / "relative_key_query";
 *   deberta: DeBERTa-v2/v3 (model_type deberta*, or position_buckets / pos_att_type):
 *     attention_head_size (or hidden_size / num_attention_heads), hidden_size,
 *     relative_attention, position_buckets, max_relative_positions, max_position_embeddings,
 *     pos_att_type (a list or "p2c|c2p"), share_att_key, norm_rel_ebd, layer_norm_eps.
 * Multimodal configs are read from text_config / language_config / llm_config.
 * A spec object ({type: 'alibi', ...}) and a bare scaling block ({rope_type: 'yarn', ...}) are accepted too.
 * @param {object} config  parsed JSON
 * @param {{familyTypes: string[], ropeTypes: string[]}} names  the core's family types and rope_type names
 *   (describe(); model-config.js specFromConfig passes them)
 * @returns {{spec: object, sliding: ?{rope_theta?: number, window?: number}, notes: string[], used: string[],
 *   unmodelled: {key: string, why: string}[], ignored: string[]}} sliding: a rope model's sliding-window
 *   layers (their own base, Gemma-3's rope_local_base_freq; their window); used: the keys read
 *   (nested ones as "text_config.rope_theta");
 *   unmodelled: positional keys posenc does not model, and what they do; ignored: the
 *   other keys of a whole config.json (they carry no position information)
 * @throws {Error} (.param 'config') for a non-object, a key of a positional excerpt that
 *   is not positional, a model posenc cannot show (custom-code models), or a head_dim that
 *   cannot be derived
 */
export function readConfig(config, { familyTypes, ropeTypes }) {
  if (!isObject(config)) throw configError('expected a JSON object such as {"rope_theta": 10000, "head_dim": 64}');
  if (familyTypes.includes(config.type)) {
    return { spec: { ...config }, sliding: null, notes: [], used: Object.keys(config), unmodelled: [], ignored: [] };
  }
  const bareType = config.rope_type ?? config.type;
  if ((ropeTypes.includes(bareType) || bareType === 'su' || bareType === 'mrope') &&
      !('rope_scaling' in config) && !('rope_parameters' in config)) {
    return readConfig({ rope_scaling: config }, { familyTypes, ropeTypes });
  }
  const notes = [];
  const used = [];
  let c = config;
  let prefix = '';
  const nestedKey = NESTED.find((k) => isObject(config[k]));
  if (nestedKey) {
    c = config[nestedKey];
    prefix = `${nestedKey}.`;
    used.push(nestedKey);
    notes.push(`read ${nestedKey}, the language model of this multimodal ${config.model_type ?? ''} config`);
  }
  const modelType = c.model_type ?? config.model_type;
  const full = FULL_CONFIG_MARKERS.some((k) => k in c || k in config);
  if (!full) {
    const unknown = Object.keys(c).filter((k) => !ROTARY_KEYS.includes(k));
    if (unknown.length) {
      throw configError(`unknown key "${unknown[0]}"; positional keys: ${ROTARY_KEYS.join(', ')} ` +
        '(paste a whole config.json to have its other keys ignored)');
    }
  }
  const r = reader(c, prefix, used);
  if (c.model_type !== undefined) r.get('model_type');
  const family = familyOf(c, modelType);
  let spec;
  let sliding = null;
  if (family === 'rope') ({ spec, sliding } = readRotary(r, modelType, notes));
  else if (family === 'alibi') {
    if (r.has('alibi')) r.get('alibi');
    if (isObject(c.attn_config)) {
      used.push(`${prefix}attn_config.alibi`);
      const max = c.attn_config.alibi_bias_max ?? 8;
      if (max !== 8) throw configError(`attn_config.alibi_bias_max = ${max}: posenc's slopes are the paper's (alibi_bias_max 8)`);
    }
    spec = readAlibi(r, notes);
  } else if (family === 't5') spec = readT5(r, notes);
  else if (family === 'deberta') spec = readDeberta(r, notes);
  else if (family === 'shaw') spec = readBertRelative(r, r.get('position_embedding_type'), notes);
  else {
    if (r.has('position_embedding_type')) r.get('position_embedding_type');
    spec = readLearned(r, modelType, notes);
  }
  const usedHere = new Set(used.filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length)));
  const unmodelled = [];
  const ignored = [];
  const place = (key, value, path) => {
    if (value === null || value === undefined) return;
    if (own(UNMODELLED, key)) unmodelled.push({ key: path, why: own(UNMODELLED, key) });
    else if (POSITIONAL_PATTERN.test(key)) unmodelled.push({ key: path, why: 'a positional key posenc does not model' });
    else ignored.push(path);
  };
  for (const [key, value] of Object.entries(c)) if (!usedHere.has(key)) place(key, value, prefix + key);
  if (nestedKey) for (const [key, value] of Object.entries(config)) if (key !== nestedKey) place(key, value, key);
  return { spec, sliding, notes, used, unmodelled, ignored: full ? ignored : [] };
}
