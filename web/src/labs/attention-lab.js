// The attention lab, shared by every family: one head over the reader's own
// sentence with the family's encoding in its place, the ablation without
// positions, the word-order pair, and the split of the logits by carrier.
import { familyDescription } from '../describe.js';
import { TRAINED_TENSORS } from '../families/trained.js';

const untrained = (p) => !p.trained_head;

export const ATTENTION_PARAMETERS = [
  { name: 'text', view: true, kind: 'text', default: 'the dog chased the cat', label: 'sentence (attention lab)',
    help: 'Up to 2048 tokens: lower-cased words and punctuation.' },
  { name: 'text2', view: true, kind: 'text', default: 'the cat chased the dog', label: 'word order: second sentence' },
  { name: 'trained_head', view: true, kind: 'bool', default: true, label: 'trained head (train(): this encoding, 32 tokens)',
    help: 'On: one causal layer with this encoding learns the task below at 32 tokens (400 steps, d_model 32, ' +
      '16 token ids), and the views show it; each word of the sentence is read as one of its 16 ids (a hash of the word). ' +
      'Off: an untrained head (random or identity W): its maps look random, because nothing has taught it where to look.' },
  { name: 'trained_task', view: true, kind: 'choice', default: 'copy', choices: ['copy', 'induction', 'first_marker'],
    label: 'the trained head’s task', when: (p) => p.trained_head,
    choiceLabels: { copy: 'copy: the previous token', induction: 'induction: what followed this token last time',
      first_marker: 'first_marker: where the first marker was' } },
  { name: 'projections', view: true, when: untrained, kind: 'choice', default: 'random', choices: ['random', 'identity'], label: 'projections W_q, W_k, W_v',
    choiceLabels: { random: 'random (Xavier, seeded)', identity: 'identity (the derivations’ simplification)' } },
  { name: 'attn_causal', view: true, when: untrained, kind: 'bool', default: false, label: 'causal attention' },
  { name: 'attn_seed', view: true, when: untrained, kind: 'int', default: 0, min: 0, max: 1e9, sliderMax: 100, label: 'attention seed' },
  { name: 'sharpness', view: true, when: untrained, kind: 'number', default: 1, min: 0, max: 1000, sliderMin: 0.05, sliderMax: 20, log: true,
    label: 'sharpness s (word embeddings × s·√d_model)',
    help: 'Vaswani et al. (§3.4) scale embeddings by √d_model (s = 1): logits of order 1, so the pattern shows. ' +
      'Smaller s flattens every row towards uniform; 0 leaves only the positions.' },
  { name: 'weight_scale', view: true, kind: 'choice', default: 'uniform', choices: ['uniform', 'row', 'absolute'],
    label: 'weight colours', choiceLabels: { uniform: 'above / below uniform (1/n per row)', row: 'each row’s own range',
      absolute: 'absolute, 0 to the largest weight' } },
  { name: 'panels_scale', view: true, kind: 'choice', default: 'shared', choices: ['shared', 'own'], label: 'bias panels: colour scale',
    choiceLabels: { shared: 'shared: panels and heads', own: 'own: each panel its range' },
    help: 'Shared: one colour scale for the three panels, the same for every head (a gentle head’s bias looks pale). ' +
      'Own: each panel normalised to its own range.',
    when: (p) => familyDescription(p.encoding)?.acts === 'bias' },
  { name: 'terms_scale', view: true, kind: 'choice', default: 'own', choices: ['own', 'shared'], label: 'four terms: colour scale',
    choiceLabels: { own: 'each term its own symmetric scale', shared: 'one scale for all five' },
    when: (p) => familyDescription(p.encoding)?.acts === 'absolute' },
];

/** The word-embedding scale the head uses: sharpness × √d_model (Vaswani et al. 2017, §3.4, at sharpness 1). */
export function embeddingScale(params, dModel) {
  return params.sharpness * Math.sqrt(dModel);
}

/**
 * Result fields (lazy getters) for the attention views.
 * @param {object} engine  the worker's engine (engine/calls.js)
 * @param {object} params
 * @param {() => object} specOf  the family's spec (called lazily, so only views that use it read its keys)
 * @param {() => {d_model: number, d_head: number}} widthsOf  the head's widths for this family
 */
export function attentionFields(engine, params, specOf, widthsOf) {
  const request = (text, encoding) => {
    const widths = widthsOf();
    return {
      text, encoding, d_model: widths.d_model, d_head: params.projections === 'identity' ? widths.d_model : widths.d_head,
      causal: params.attn_causal, seed: params.attn_seed, projections: params.projections,
      embedding_scale: embeddingScale(params, widths.d_model),
    };
  };
  const none = () => ({ type: 'none', d_model: widthsOf().d_model });
  // The maps need the weights, logits and terms; the head's inputs and projections stay in the worker.
  const maps = ({ x, positions, q, k, v, q_unrotated, k_unrotated, ...rest }) => rest;  // eslint-disable-line no-unused-vars
  const run = (text, encoding) => {
    try {
      if (params.trained_head) {
        try {
          return maps(trainedRun(engine, params, text, encoding, specOf));
        } catch (error) {
          // The trained head is one layer of d_model 32: a spec sized for another width (a longrope factor list of
          // head_dim / 2 numbers) cannot train. The untrained head is shown, and the note says why.
          if (error.code !== 'bad_param' || error.param === 'text') throw error;
          return { ...maps(engine.attention(request(text, encoding))), untrainedBecause: error.message };
        }
      }
      return maps(engine.attention(request(text, encoding)));
    } catch (error) {
      // The sentence's own limits stay with its box; the head's (its width up to 4096) are said as the head's,
      // beside the same control (.param kept: the page shows one message there, not one per view).
      if (error.param === 'text') throw error;
      const { param, code, value, allowed } = error;
      throw Object.assign(new RangeError(`attention head: ${error.message}`), { param, code, value, allowed });
    }
  };
  const second = (encoding) => {
    try {
      return run(params.text2, encoding);
    } catch (error) {  // name the second sentence's own control
      if (error.param !== 'text') throw error;
      throw Object.assign(new RangeError(error.message.replace(/^text = /, 'text2 = ')), { param: 'text2' });
    }
  };
  return {
    get attention() { return run(params.text, specOf()); },
    get ablation() { return run(params.text, none()); },
    get wordOrder() {
      const spec = specOf();
      return { a: run(params.text, spec), b: second(spec), a0: run(params.text, none()), b0: second(none()) };
    },
  };
}

/**
 * The trained head (engine.trainedHead: this family's spec trained on params.trained_task) over a
 * sentence: each word read as its id, x = embeddingScale E[id] [n, 32]; the layer's trained W and spec, causal.
 * `encoding` none (the ablation) keeps the trained W and drops the positions.
 */
function trainedRun(engine, params, text, encoding, specOf) {
  // The head learns its own position parameters: a shipped set's tensors (families/trained.js, a d_model 64 model's)
  // are left out of the spec it trains with, as they would not fit its width.
  const shipped = Object.keys(params[TRAINED_TENSORS] ?? {});
  const spec = Object.fromEntries(Object.entries(specOf()).filter(([key]) => !shipped.includes(key)));
  const head = engine.trainedHead(spec, params.trained_task);
  const { tokens, ids } = engine.tokenIds(text, head.vocab);  // each word's id: the core's (tokenIds)
  const d = head.d_model;
  const x = new Float32Array(tokens.length * d);
  // The model's input: embeddingScale E[id] (the core's factor: sqrt(d_model) for sinusoidal, else 1).
  ids.forEach((id, t) => x.set(head.E.subarray(id * d, (id + 1) * d).map((e) => e * head.embeddingScale), t * d));
  const result = engine.attention({ x, encoding: encoding.type === 'none' ? { type: 'none', d_model: d } : head.layer.encoding,
    d_model: d, d_head: d, causal: true, wq: head.layer.Wq, wk: head.layer.Wk, wv: head.layer.Wv });
  return { ...result, tokens, ids, trainedAccuracy: head.accuracy, trainedSeed: head.seed };
}

export const WORKED_TEXT = 'the sky is not';

/**
 * The worked example: the page's head (projections, seed, sharpness, causal mask) on "the sky is not"
 * with d_model = d_head = 8 and a sinusoidal or RoPE encoding of the given base. Every number is the
 * head's own (attention()): x, P, q, k (before and after rotation for RoPE), v, logits, weights, output.
 * @param {'sinusoidal'|'rope'} type
 * @param {number} base  the sinusoid's base or rope_theta
 * @param {'half'|'interleaved'} [layout]  RoPE's pairing
 * @returns {{type, base, layout, omega: Float32Array, head: object, scale: number}}
 */
export function workedExample(engine, params, type, base, layout = 'interleaved') {
  const d = 8;
  const encoding = type === 'rope' ? { type, head_dim: d, rope_theta: base, layout } : { type, d_model: d, base };
  const omega = type === 'rope' ? engine.rotary(encoding, 4).inv_freq : engine.absolute(encoding, 4).inv_freq;
  const scale = embeddingScale(params, d);
  const head = engine.attention({ text: WORKED_TEXT, encoding, d_model: d, d_head: d, causal: params.attn_causal,
    seed: params.attn_seed, projections: params.projections, embedding_scale: scale });
  return { type, base, layout, omega, head, scale };
}

/** The attention views' ids for a carrier ("absolute", "rotary", "bias", "none"), the worked example first where asked. */
export function attentionViews(carrier, withWorkedExample = false) {
  return [
    ...(withWorkedExample ? ['worked'] : []),
    'attention', 'ablation', 'word-order',
    ...(carrier === 'absolute' ? ['terms'] : carrier === 'bias' ? ['panels'] : []),
  ];
}
