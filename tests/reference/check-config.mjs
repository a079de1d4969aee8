// Reads one config.json as the page does and checks what comes out: the core's
// rotary numbers against the independent transformers reference
// (transformers-rope.mjs), directly and after the page's control round-trip
// (spec -> control values -> parsed controls -> spec); for the other families,
// that the round-trip keeps every spec key. Shared by tests/wasm/config.test.mjs
// and scripts/realconfigs.mjs.
import { specFromConfig } from '../../web/src/config/model-config.js';
import { FAMILIES, parametersOf, rawFromSpec } from '../../web/src/families/index.js';
import { defaultsOf, parse } from '../../web/src/state.js';
import { maxRelativeError, referenceRope } from './transformers-rope.mjs';
import { referenceRelativePosition } from './transformers-deberta.mjs';

/** The spec the page sends after filling its controls from `read` (specFromConfig's result). */
export function roundTrip(read) {
  const family = FAMILIES[read.spec.type];
  const parameters = parametersOf(read.spec.type).filter((p) => p.name !== 'encoding');
  const raw = { ...defaultsOf(parameters), ...rawFromSpec(read.spec, read.sliding) };
  const { params, errors } = parse(parameters, raw);
  const first = Object.entries(errors)[0];
  if (first) throw new Error(`round-trip: control ${first[0]} refused: ${first[1]}`);
  return { spec: family.spec(params), params };
}

/**
 * @param {object} pe  the loaded posenc module
 * @param {object} config  a parsed config.json
 * @returns {{read: object, page: object, worst: number, problems: string[]}} worst: the largest
 *   relative difference of inv_freq / attention_factor from the reference (rope only)
 */
export function checkConfig(pe, config) {
  const read = specFromConfig(config);
  const page = roundTrip(read);
  const problems = [];
  let worst = 0;
  if (read.spec.type === 'rope') {
    const max = read.spec.max_position_embeddings ?? 4096;
    for (const [what, spec] of [['read', read.spec], ['round-trip', page.spec]]) {
      for (const seqLen of [1, max, max + 1]) {
        const core = pe.ropeInvFreq(spec, seqLen);
        const ref = referenceRope(config, seqLen);
        const error = Math.max(maxRelativeError(core.inv_freq, ref.inv_freq),
          Math.abs(core.attention_factor - ref.attention_factor) / ref.attention_factor);
        worst = Math.max(worst, error);
        if (!(error <= 1e-6)) problems.push(`${what} at seq_len ${seqLen}: relative error ${error}`);
      }
    }
    if (read.sliding?.rope_theta != null && page.params.rope_local_base_freq !== read.sliding.rope_theta) {
      problems.push('round-trip lost rope_local_base_freq');
    }
  } else {
    if (read.spec.type === 'deberta') {  // the relative positions of a max_position_embeddings-token input, as transformers buckets them
      const L = Math.min(1024, read.spec.max_position_embeddings ?? 512);
      const buckets = read.spec.position_buckets;
      const maxRelative = read.spec.max_relative_positions < 1 ? (read.spec.max_position_embeddings ?? 512) : read.spec.max_relative_positions;
      const core = pe.debertaRelativePosition(L, L, buckets, maxRelative);
      const ref = referenceRelativePosition(L, L, buckets, maxRelative);
      const wrong = core.findIndex((b, k) => b !== ref[k]);
      if (wrong >= 0) problems.push(`relative position (${Math.floor(wrong / L)}, ${wrong % L}): ${core[wrong]}, transformers ${ref[wrong]}`);
    }
    for (const [key, value] of Object.entries(read.spec)) {
      if (JSON.stringify(page.spec[key]) !== JSON.stringify(value)) {
        problems.push(`round-trip changed ${key}: ${JSON.stringify(value)} -> ${JSON.stringify(page.spec[key])}`);
      }
    }
  }
  return { read, page, worst, problems };
}
