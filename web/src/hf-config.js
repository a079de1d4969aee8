// Reads the positional part of a Hugging Face config.json into a posenc rope
// spec (DESIGN.md spec format). Keys are mapped by the conventions of the
// transformers configuration classes; the core then validates the spec.

const ROPE_TYPES = ['default', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope'];
// Model types whose attention rotates interleaved pairs (rotate_every_two):
// GPT-J and CodeGen, and DeepSeek-V2/V3 (rope_interleave in transformers).
const INTERLEAVED_MODELS = new Set(['gptj', 'codegen', 'deepseek_v2', 'deepseek_v3']);
// Keys that mark a whole config.json: its other keys are not positional and are ignored.
const FULL_CONFIG_MARKERS = ['model_type', 'architectures', 'vocab_size', 'num_hidden_layers', 'n_layer', 'transformers_version'];
// Every key this reader maps, for the message about an unknown one.
const POSITIONAL_KEYS = ['head_dim', 'hidden_size', 'num_attention_heads', 'n_embd', 'n_head', 'qk_rope_head_dim',
  'rope_theta', 'rotary_emb_base', 'partial_rotary_factor', 'rotary_pct', 'rotary_dim', 'max_position_embeddings',
  'n_positions', 'original_max_position_embeddings', 'rope_scaling', 'rope_parameters', 'rope_interleave', 'layout'];

function isObject(x) {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

/**
 * Parses pasted text as JSON, with a message that says where it failed.
 * @throws {Error} "config: not valid JSON (...)"
 */
export function parseConfigText(text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`config: not valid JSON (${error.message})`);
  }
}

/**
 * Maps a config.json object, or just its positional part, to a rope spec.
 *   head_dim <- head_dim, else qk_rope_head_dim (DeepSeek), else hidden_size /
 *     num_attention_heads (n_embd / n_head for GPT-J);
 *   rope_theta <- rope_theta, else rotary_emb_base (GPT-NeoX);
 *   partial_rotary_factor <- partial_rotary_factor, else rotary_pct (GPT-NeoX);
 *   rotary_dim (GPT-J), max_position_embeddings (n_positions for GPT-J),
 *   original_max_position_embeddings, rope_scaling / rope_parameters as they are;
 *   layout: interleaved for GPT-J, CodeGen, DeepSeek-V2/V3 (or rope_interleave), else half.
 * A bare scaling block ({rope_type | type: 'yarn', factor, ...}) is read as rope_scaling.
 * @param {object} config  parsed JSON
 * @returns {{spec: object, ignored: string[], notes: string[]}} ignored: keys of a
 *   whole config.json that carry no position information
 * @throws {Error} for a non-object, a key of a positional excerpt that is not
 *   positional, or head_dim that cannot be derived
 */
export function ropeSpecFromConfig(config) {
  if (!isObject(config)) throw new Error('config: expected a JSON object such as {"rope_theta": 10000, "head_dim": 64}');
  if (config.type === 'rope') return { spec: { ...config }, ignored: [], notes: [] };
  const bareType = config.rope_type ?? config.type;
  if (ROPE_TYPES.includes(bareType) && !('rope_scaling' in config) && !('rope_parameters' in config)) {
    return ropeSpecFromConfig({ rope_scaling: config });
  }
  const full = FULL_CONFIG_MARKERS.some((k) => k in config);
  const ignored = Object.keys(config).filter((k) => !POSITIONAL_KEYS.includes(k));
  if (!full && ignored.length) {
    throw new Error(`config: unknown key "${ignored[0]}"; positional keys: ${POSITIONAL_KEYS.join(', ')} ` +
      '(paste a whole config.json to have its other keys ignored)');
  }
  const notes = [];
  const spec = { type: 'rope' };
  if (config.head_dim != null) {
    spec.head_dim = config.head_dim;
  } else if (config.qk_rope_head_dim != null) {
    spec.head_dim = config.qk_rope_head_dim;
    notes.push(`head_dim = qk_rope_head_dim = ${config.qk_rope_head_dim}: only this slice of each head rotates`);
  } else {
    const width = config.hidden_size ?? config.n_embd;
    const heads = config.num_attention_heads ?? config.n_head;
    if (width != null && heads != null) {
      if (!Number.isInteger(width / heads)) {
        throw new Error(`config: hidden_size = ${width} is not a multiple of num_attention_heads = ${heads}; give head_dim`);
      }
      spec.head_dim = width / heads;
      notes.push(`head_dim = ${width} / ${heads} = ${spec.head_dim}`);
    }
  }
  const theta = config.rope_theta ?? config.rotary_emb_base;
  if (theta != null) spec.rope_theta = theta;
  const partial = config.partial_rotary_factor ?? config.rotary_pct;
  if (partial != null) spec.partial_rotary_factor = partial;
  if (config.rotary_dim != null) spec.rotary_dim = config.rotary_dim;
  const maxPositions = config.max_position_embeddings ?? config.n_positions;
  if (maxPositions != null) spec.max_position_embeddings = maxPositions;
  if (config.original_max_position_embeddings != null) spec.original_max_position_embeddings = config.original_max_position_embeddings;
  if (config.rope_scaling != null) spec.rope_scaling = config.rope_scaling;
  if (config.rope_parameters != null) spec.rope_parameters = config.rope_parameters;
  if (config.layout != null) spec.layout = config.layout;
  else if (config.rope_interleave === true || INTERLEAVED_MODELS.has(config.model_type)) spec.layout = 'interleaved';
  else if (config.rope_interleave === false || config.model_type != null) spec.layout = 'half';
  if (spec.layout === 'interleaved' && config.layout == null) notes.push(`interleaved pairs (${config.model_type ?? 'rope_interleave'})`);
  return { spec, ignored: full ? ignored : [], notes };
}
