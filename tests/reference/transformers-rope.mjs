// An independent float64 reading of a Hugging Face config.json's rotary
// embedding, as transformers computes it (modeling_rope_utils.py's
// ROPE_INIT_FUNCTIONS, v5 semantics; each model's config class for its keys).
// It shares no code with posenc's reader or core: tests and
// scripts/realconfigs.mjs compare both against it.

const mscale = (s, m = 1) => (s <= 1 ? 1 : 0.1 * m * Math.log(s) + 1);

/** The text config of a multimodal config. */
function textConfig(c) {
  return c.text_config ?? c.language_config ?? c.llm_config ?? c;
}

/**
 * inv_freq (radians per token) and attention_factor of config c for a sequence of seqLen tokens.
 * @returns {{inv_freq: number[], attention_factor: number, rotary_dim: number}}
 */
export function referenceRope(config, seqLen) {
  const c = textConfig(config);
  let block = c.rope_parameters ?? c.rope_scaling ?? {};
  if (block.full_attention) block = block.full_attention;
  let type = block.rope_type ?? block.type ?? 'default';
  if (type === 'su' || (type === 'yarn' && block.long_factor)) type = 'longrope';  // Phi3Config
  if (type === 'mrope') type = 'default';  // Qwen2-VL's config
  // Gemma-4's full-attention layers read head_dim_key "global_head_dim" (Gemma4TextRotaryEmbedding).
  const headDim = c.qk_rope_head_dim ?? (type === 'proportional' ? c.global_head_dim : undefined) ?? c.head_dim ??
    (c.hidden_size ?? c.n_embd) / (c.num_attention_heads ?? c.n_head);
  const share = c.partial_rotary_factor ?? c.rotary_pct ?? block.partial_rotary_factor ?? 1;
  // Proportional RoPE keeps the whole head; its partial_rotary_factor counts the pairs that turn.
  let dim = type === 'proportional' ? headDim : c.rotary_dim ?? Math.trunc(headDim * share);
  dim -= dim % 2;
  let base = block.rope_theta ?? c.rope_theta ?? c.rotary_emb_base ?? 10000;
  const maxPositions = c.max_position_embeddings ?? c.n_positions;
  const original = c.original_max_position_embeddings ?? block.original_max_position_embeddings ?? maxPositions;
  const factor = block.factor;
  const plain = (b) => Array.from({ length: dim / 2 }, (_, i) => 1 / b ** ((2 * i) / dim));
  let attention = 1;
  let inv;
  switch (type) {
    case 'default': inv = plain(base); break;
    case 'linear': inv = plain(base).map((w) => w / factor); break;
    // Not a transformers type: bloc97's NTK-aware base, theta * s^(d / (d - 2)) (posenc's "ntk").
    case 'ntk': inv = plain(base * factor ** (dim / (dim - 2))); break;
    case 'dynamic': {
      if (seqLen > maxPositions) base *= ((factor * seqLen) / maxPositions - (factor - 1)) ** (dim / (dim - 2));
      inv = plain(base);
      break;
    }
    case 'yarn': {
      const L = original;
      const at = (turns) => (dim * Math.log(L / (turns * 2 * Math.PI))) / (2 * Math.log(base));
      let low = at(block.beta_fast ?? 32);
      let high = at(block.beta_slow ?? 1);
      if (block.truncate !== false) { low = Math.floor(low); high = Math.ceil(high); }
      low = Math.max(low, 0);
      high = Math.min(high, dim - 1);
      if (low === high) high += 0.001;
      inv = plain(base).map((w, i) => {
        const extrapolation = 1 - Math.min(1, Math.max(0, (i - low) / (high - low)));
        return (w / factor) * (1 - extrapolation) + w * extrapolation;
      });
      if (block.attention_factor != null) attention = block.attention_factor;
      else if (block.mscale && block.mscale_all_dim) attention = mscale(factor, block.mscale) / mscale(factor, block.mscale_all_dim);
      else attention = mscale(factor);
      break;
    }
    case 'llama3': {
      const L = block.original_max_position_embeddings;
      inv = plain(base).map((w) => {
        const wavelength = (2 * Math.PI) / w;
        if (wavelength < L / block.high_freq_factor) return w;
        if (wavelength > L / block.low_freq_factor) return w / factor;
        const smooth = (L / wavelength - block.low_freq_factor) / (block.high_freq_factor - block.low_freq_factor);
        return (1 - smooth) * (w / factor) + smooth * w;
      });
      break;
    }
    case 'longrope': {
      const ext = seqLen > original ? block.long_factor : block.short_factor;
      inv = plain(base).map((w, i) => w / ext[i]);
      const s = factor ?? maxPositions / original;
      attention = block.attention_factor ?? (s <= 1 ? 1 : Math.sqrt(1 + Math.log(s) / Math.log(original)));
      break;
    }
    case 'proportional': {
      // _compute_proportional_rope_parameters: rope_angles = int(partial_rotary_factor * head_dim // 2) pairs at
      // base^(-2i / head_dim), zeros for the rest, all divided by factor (default 1).
      const angles = Math.floor((share * headDim) / 2);
      inv = plain(base).map((w, i) => (i < angles ? w / (factor ?? 1) : 0));
      break;
    }
    default: throw new Error(`reference: no rope_type ${type}`);
  }
  return { inv_freq: inv, attention_factor: attention, rotary_dim: dim };
}

/** The largest relative difference |a - b| / |b| over two lists (and their lengths must agree). */
export function maxRelativeError(a, b) {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.abs(b[i]));
  return worst;
}
