// DeBERTa's disentangled attention on the page: the stand-in head's position
// terms, the bucket map of relative positions, and in the attention lab the
// content, c2p and p2c scores of the typed sentence.
import { biasFamily } from '../bias.js';
import { coreParameter } from '../../describe.js';
import { format } from '../../lib/format.js';

// pos_att_type as one control: the core's list, written as transformers' string form.
const POS_ATT = { 'p2c|c2p': ['p2c', 'c2p'], c2p: ['c2p'], p2c: ['p2c'], none: [] };

/** The pos_att control's value for a list of "c2p" / "p2c". */
function posAttOf(types) {
  const has = (t) => types.includes(t);
  return has('c2p') && has('p2c') ? 'p2c|c2p' : has('c2p') ? 'c2p' : has('p2c') ? 'p2c' : 'none';
}

/** att_span: position_buckets when > 0, else max_relative_positions (< 1: max_position_embeddings). */
function spanOf(p) {
  const maxRelative = p.max_relative_positions < 1 ? p.max_position_embeddings : p.max_relative_positions;
  return { span: p.position_buckets > 0 ? p.position_buckets : maxRelative, maxRelative };
}

export const { parameters, spec, fields, views, rawFromSpec } = biasFamily({
  type: 'deberta',
  parameters: [
    coreParameter('deberta', 'head_dim', { sliderMin: 1, sliderMax: 256 }),
    coreParameter('deberta', 'hidden_size', { pageDefault: 64, why: 'the core reads an absent hidden_size as head_dim; a control shows a number, head_dim’s default',
      sliderMin: 1, sliderMax: 1024, label: 'hidden_size (the head’s d_model)',
      help: 'The width of the relative embeddings, projected by W_q and W_k into position queries and keys.' }),
    coreParameter('deberta', 'position_buckets', { sliderMin: -1, sliderMax: 512,
      help: 'Distances up to half of it get their own bucket, farther ones log buckets; ≤ 0: no buckets.' }),
    // The slider: from past position_buckets / 2 + 1 (the core's rule for a log-bucket end); -1 (take
    // max_position_embeddings) is typed in the box, as the values between are refused.
    coreParameter('deberta', 'max_relative_positions', { sliderMin: -1, sliderMax: 2048,
      sliderRange: (raw) => (Number(raw.position_buckets) > 0 ? { min: Math.floor(Number(raw.position_buckets) / 2) + 2 } : {}),
      help: 'Where the log buckets end; < 1 (type -1) takes max_position_embeddings.' }),
    // Read as the log buckets' end when max_relative_positions < 1: then past position_buckets / 2 + 1 (the core's rule).
    coreParameter('deberta', 'max_position_embeddings', { sliderMin: 1, sliderMax: 4096,
      sliderRange: (raw) => (Number(raw.max_relative_positions) < 1 && Number(raw.position_buckets) > 0
        ? { min: Math.floor(Number(raw.position_buckets) / 2) + 2 } : {}) }),
    { name: 'pos_att', kind: 'choice', default: 'p2c|c2p', choices: Object.keys(POS_ATT), label: 'pos_att_type',
      choiceLabels: { 'p2c|c2p': 'c2p and p2c (DeBERTa-v3)', c2p: 'content → position only', p2c: 'position → content only', none: 'none' } },
    coreParameter('deberta', 'relative_attention'),
    coreParameter('deberta', 'share_att_key', {
      help: 'Project the relative embeddings with the head’s own W_q, W_k (else with their own, drawn).' }),
    coreParameter('deberta', 'norm_rel_ebd'),
    coreParameter('deberta', 'layer_norm_eps', { sliderMin: 1e-12, sliderMax: 1e-3, log: true }),
    coreParameter('deberta', 'seed', { sliderMin: 0, sliderMax: 100, label: 'seed (untrained embeddings)' }),
  ],
  widths: (p) => ({ d_model: p.hidden_size, d_head: p.head_dim }),
  spec: (p) => ({
    type: 'deberta', head_dim: p.head_dim, hidden_size: p.hidden_size, position_buckets: p.position_buckets,
    max_relative_positions: p.max_relative_positions, max_position_embeddings: p.max_position_embeddings,
    pos_att_type: POS_ATT[p.pos_att], relative_attention: p.relative_attention, share_att_key: p.share_att_key,
    norm_rel_ebd: p.norm_rel_ebd, layer_norm_eps: p.layer_norm_eps, seed: p.seed, causal: p.causal,
  }),
  rawFromSpec: (s) => {
    const names = new Set(parameters.map((p) => p.name));
    const raw = Object.fromEntries(Object.entries(s).filter(([k]) => names.has(k)).map(([k, v]) => [k, format(v)]));
    if (Array.isArray(s.pos_att_type)) raw.pos_att = posAttOf(s.pos_att_type);
    return raw;
  },
  views: ['deberta-buckets'],
  fields: (engine, p) => ({
    get debertaBuckets() {
      const { span, maxRelative } = spanOf(p);
      const reach = Math.max(8, Math.min(4096, Math.ceil(1.5 * (p.position_buckets > 0 ? maxRelative : span))));
      return { ...engine.debertaBuckets(p.position_buckets, p.max_relative_positions < 1 ? p.max_position_embeddings : p.max_relative_positions, reach),
        mid: p.position_buckets > 0 ? Math.floor(p.position_buckets / 2) : span, span, max_relative: maxRelative };
    },
  }),
});
