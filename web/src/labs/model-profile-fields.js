// The model lab's fields as the engine's worker computes them (labs/model-profile.js is the page's side: its controls and
// ready-made models, which the worker does not load). The config's profile is read in the worker (engine/calls.js
// profile, the reader loaded on first use); the core computes every number.
import { mapJob } from '../lib/map-job.js';


/**
 * The config's profile (engine/calls.js profile), its errors named for the lab's control (config_json): the reader's
 * .param 'config', and the key it names for a refused layer count or per-layer list (num_hidden_layers, layer_types).
 */
function* profileOf(engine, text) {
  try {
    return yield* engine.profile(text);
  } catch (error) {
    if (typeof error?.param === 'string') error.param = 'config_json';
    throw error;
  }
}

/** A short text of what acts on positions in a layer kind: "RoPE θ 1e+6, proportional, 64 of 256 pairs turn" or "no position (NoPE)". */
function describeKind(kind, rope) {
  if (!rope) return kind.name === 'linear_attention' ? 'no position (linear attention)' : 'no position (NoPE)';
  const block = kind.spec.rope_parameters ?? kind.spec.rope_scaling ?? {};
  const type = block.rope_type ?? block.type ?? 'default';
  const theta = block.rope_theta ?? kind.spec.rope_theta ?? 10000;
  const turning = Array.from(rope.inv_freq).filter((f) => f > 0).length;
  const pairs = rope.head_dim / 2;
  return `RoPE θ ${theta.toLocaleString('en')}${type === 'default' ? '' : `, ${type}${block.factor ? ` ×${block.factor}` : ''}`}` +
    `, ${turning === pairs ? `all ${pairs}` : `${turning} of ${pairs}`} pairs turn`;
}

/**
 * The lab's fields, shared by its views (each reads what its needs name):
 *   layers: {model, n, kinds: [{name, index, label, spec, window, temperature, layers, rope: ?ropeInvFreq's result}],
 *     layers: number[] (kind index per layer), mrope, notes, read}
 *   kindDecay: {maxDistance, kinds: [{name, index, label, distance: Float32Array, value: Float32Array (q·k for all-ones q = k,
 *     divided by its value at distance 0), window}]}
 *   stacks: {kind: {name, index, label}, seqLen, chosen, ...the core's ropeStacks result} or {kind, none: why} for a kind
 *   without RoPE; layer_kind unset: the kind where the most pairs of stacks disagree (chosen says so)
 *   temperatureCurve, mropeLayout: see views/profile-temperature.js and views/profile-mrope.js
 */
export function fields(engine, params) {
  const layers = () => mapJob(profileOf(engine, params.config_json), (profile) => {
    const kinds = profile.kinds.map((kind, index) => {
      const rope = kind.spec.type === 'rope' ? engine.rotary(kind.spec, params.seq_len) : null;
      return { ...kind, index, rope, label: describeKind(kind, rope) };
    });
    return { model: profile.model, n: profile.num_hidden_layers, kinds, layers: profile.layers, mrope: profile.mrope,
      notes: profile.notes, read: profile.read };
  });
  return {
    get layers() { return layers(); },
    get seqLen() { return params.seq_len; },
    get version() { return engine.version(); },
    get kindDecay() {
      return mapJob(layers(), (l) => ({ maxDistance: params.max_distance, model: l.model,
        kinds: l.kinds.filter((k) => k.name !== 'linear_attention').map((k) => {
          if (!k.rope) {
            // q·k of a layer without position encoding does not change with distance: 1 after normalising.
            const distance = Float32Array.from({ length: params.max_distance + 1 }, (_, m) => m);
            return { name: k.name, index: k.index, label: k.label, window: k.window, distance, value: new Float32Array(distance.length).fill(1) };
          }
          const d = engine.decay(k.spec, params.max_distance);
          const first = d.ones[0];
          return { name: k.name, index: k.index, label: k.label, window: k.window, distance: d.distance, value: d.ones.map((v) => v / first) };
        }) }));
    },
    get stacks() {
      return mapJob(layers(), (l) => {
        if (params.layer_kind !== null && params.layer_kind >= l.kinds.length) {
          throw Object.assign(new RangeError(`layer_kind = ${params.layer_kind} is invalid: expected an integer in [0, ${l.kinds.length - 1}] ` +
            `(this model has ${l.kinds.length} kind${l.kinds.length === 1 ? '' : 's'} of layer)`), { param: 'layer_kind' });
        }
        const ofKind = (k) => ({ kind: { name: k.name, index: k.index, label: k.label }, model: l.model, seqLen: params.seq_len,
          ...(k.rope ? engine.stacks(k.spec, params.seq_len) : { none: `${k.name} layers carry no position: there is no rotation to compare` }),
          chosen: params.layer_kind === null ? 'where the stacks differ most' : null });
        if (params.layer_kind !== null) return ofKind(l.kinds[params.layer_kind]);
        // Unset: the kind with the most pairs of stacks that disagree (the core's comparisons), the first of equals.
        const disagreements = (s) => (s.none ? -1 : s.comparisons.filter((c) => !c.agree).length);
        return l.kinds.map(ofKind).reduce((best, s) => (disagreements(s) > disagreements(best) ? s : best));
      });
    },
    get temperatureCurve() {
      return mapJob(layers(), (l) => {
        const k = l.kinds.find((kind) => kind.temperature);
        if (!k) return null;
        const curve = engine.temperature(k.temperature.floor_scale, k.temperature.attn_scale, Math.max(params.seq_len, 4 * k.temperature.floor_scale));
        return { ...k.temperature, ...curve, layers: k.layers, model: l.model };
      });
    },
    get mropeLayout() {
      return mapJob(layers(), (l) => {
        if (!l.mrope) return null;
        const grid = { h: 2, w: 3 };
        return { ...l.mrope, axes: engine.mropeAxes(l.mrope.mrope_section, l.mrope.mrope_interleaved),
          positions: engine.mropePositions(3, grid.h, grid.w, 3), grid, model: l.model };
      });
    },
  };
}
