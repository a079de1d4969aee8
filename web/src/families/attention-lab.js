// The attention lab, shared by every family: one head over the reader's own
// sentence with the family's encoding in its place, the ablation without
// positions, the word-order pair, and the split of the logits by carrier.

export const ATTENTION_PARAMETERS = [
  { name: 'text', view: true, kind: 'text', default: 'the dog chased the cat', label: 'sentence (attention lab)',
    help: 'Up to 512 tokens: lower-cased words and punctuation.' },
  { name: 'text2', view: true, kind: 'text', default: 'the cat chased the dog', label: 'word order: second sentence' },
  { name: 'projections', view: true, kind: 'choice', default: 'random', choices: ['random', 'identity'], label: 'projections W_q, W_k, W_v',
    choiceLabels: { random: 'random (Xavier, seeded)', identity: 'identity (the derivations’ simplification)' } },
  { name: 'attn_causal', view: true, kind: 'bool', default: false, label: 'causal attention' },
  { name: 'attn_seed', view: true, kind: 'int', default: 0, min: 0, max: 1e9, sliderMax: 100, label: 'attention seed' },
];

/**
 * Result fields (lazy getters) for the attention views.
 * @param {object} engine  the worker's engine (engine-calls.js)
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
    };
  };
  const none = () => ({ type: 'none', d_model: widthsOf().d_model });
  const second = (encoding) => {
    try {
      return engine.attention(request(params.text2, encoding));
    } catch (error) {  // name the second sentence's own control
      throw new RangeError(error.message.replace(/^text = /, 'text2 = '));
    }
  };
  return {
    get attention() { return engine.attention(request(params.text, specOf())); },
    get ablation() { return engine.attention(request(params.text, none())); },
    get wordOrder() {
      const spec = specOf();
      return { a: engine.attention(request(params.text, spec)), b: second(spec),
        a0: engine.attention(request(params.text, none())), b0: second(none()) };
    },
  };
}

/** The worked example's numbers (context 4, d_model 8, "the sky is not") for a base. */
export function workedExample(engine, base) {
  const sinusoid = engine.absolute({ type: 'sinusoidal', d_model: 8, base }, 4);
  const words = engine.embed('the sky is not', 8, 0);
  const rotated = engine.rotate(Array.from(words.data), 4, 8, { type: 'rope', head_dim: 8, rope_theta: base, layout: 'interleaved' }, 0);
  return { base, omega: sinusoid.inv_freq, table: sinusoid.table.data, tokens: words.tokens, words: words.data, rotated };
}

/** The attention views' ids for a carrier ("absolute", "rotary", "bias", "none"), the worked example first where asked. */
export function attentionViews(carrier, withWorkedExample = false) {
  return [
    ...(withWorkedExample ? ['worked'] : []),
    'attention', 'ablation', 'word-order',
    ...(carrier === 'absolute' ? ['terms'] : carrier === 'bias' ? ['panels'] : []),
  ];
}
