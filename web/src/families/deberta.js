// DeBERTa's disentangled attention on the page: the stand-in head's position
// terms, the bucket map of relative positions, and in the attention lab the
// content, c2p and p2c scores of the typed sentence.
import { biasFamily } from './bias.js';
import { coreChoices } from '../describe.js';
import { format } from '../lib/format.js';

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

export const { label, parameters, spec, fields, views, rawFromSpec } = biasFamily({
  label: 'DeBERTa disentangled',
  parameters: [
    { name: 'head_dim', kind: 'int', default: 64, sliderMin: 1, sliderMax: 256, label: 'head_dim' },
    { name: 'hidden_size', kind: 'int', default: 64, sliderMin: 1, sliderMax: 1024, label: 'hidden_size (the head’s d_model)',
      help: 'The width of the relative embeddings, projected by W_q and W_k into position queries and keys.' },
    { name: 'position_buckets', kind: 'int', default: 256, sliderMin: -1, sliderMax: 512, label: 'position_buckets',
      help: 'Distances up to half of it get their own bucket, farther ones log buckets; ≤ 0: no buckets.' },
    { name: 'max_relative_positions', kind: 'int', default: -1, sliderMin: -1, sliderMax: 2048, label: 'max_relative_positions',
      help: 'Where the log buckets end; < 1 takes max_position_embeddings.' },
    { name: 'max_position_embeddings', kind: 'int', default: 512, sliderMin: 1, sliderMax: 4096, label: 'max_position_embeddings' },
    { name: 'pos_att', kind: 'choice', default: 'p2c|c2p', choices: Object.keys(POS_ATT), label: 'pos_att_type',
      choiceLabels: { 'p2c|c2p': 'c2p and p2c (DeBERTa-v3)', c2p: 'content → position only', p2c: 'position → content only', none: 'none' } },
    { name: 'relative_attention', kind: 'bool', default: true, label: 'relative_attention' },
    { name: 'share_att_key', kind: 'bool', default: true, label: 'share_att_key',
      help: 'Project the relative embeddings with the head’s own W_q, W_k (else with their own, drawn).' },
    { name: 'norm_rel_ebd', kind: 'choice', default: 'layer_norm', choices: coreChoices('deberta', 'norm_rel_ebd'), label: 'norm_rel_ebd' },
    { name: 'layer_norm_eps', kind: 'number', default: 1e-7, sliderMin: 1e-12, sliderMax: 1e-3, log: true, label: 'layer_norm_eps' },
    { name: 'seed', kind: 'int', default: 0, sliderMin: 0, sliderMax: 100, label: 'seed (untrained embeddings)' },
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
