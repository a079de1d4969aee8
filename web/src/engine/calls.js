// The worker side of the engine: the only code that calls the wasm module.
// createCalls wraps the module's functions and remembers the last few results
// of each (cache.js), so the views of one change share their work (five
// attention views, one attention call); the labs' training jobs are
// lab-jobs.js's; server.js answers the page's requests with them.
import { COMPUTE_NAMES, computeOf } from '../families/compute.js';
import { createComparison } from '../families/comparison.js';
import { badParam } from '../errors.js';
import { seededRandom } from '../lib/random.js';
import { tracking } from '../lib/reads.js';
import { CACHE_BYTES, memoizeJobStored, memoizeStored, resultStore } from './cache.js';
import { shippedHead } from '../families/heads.js';
import { TRAINED_HEAD_FIELDS } from './modules.js';

/** The seeds engine.trainedHead tries, in turn, for a head that learns its task. */
const HEAD_SEEDS = 4;

// The decay comparison's reference curves, one per family (families/comparison.js; loadCompute loads every family for it).
const COMPARISON = createComparison(computeOf);

/**
 * The wasm module's calls as the families use them, memoised.
 * @param {object} pe  the instantiated module (createPosenc())
 * @param {{corpus?: () => Promise<string>, spawnArm?: () => Worker}} [options]  the shipped corpus's text (the
 *   language-model lab; absent: that lab's views say so) and a new arm worker (engine/arm-worker.js; absent: arms
 *   train one after the other in this instance)
 */
export function createCalls(pe, { corpus = null, spawnArm = null } = {}) {
  const store = resultStore(CACHE_BYTES);
  const memoize = (fn, size) => memoizeStored(store, fn, size);
  const memoizeJob = (job, size) => memoizeJobStored(store, job, size);
  const rotary = memoize((spec, seqLen) => pe.ropeInvFreq(spec, seqLen));
  let corpusText = null;  // the shipped text, fetched once (a failed fetch is tried again next time)
  const loadCorpus = () => {
    corpusText ??= corpus().catch((error) => {
      corpusText = null;
      throw error;
    });
    return corpusText;
  };

  /**
   * pe.trainer(request), its work limits said as the experiment's controls: one step
   * (train_length) or the test at 1 to 8 x L_train (eval_lengths, no control of its own) above
   * the work of one call is named on the L_train control, with what to lower.
   */
  const explained = (error, request) => {
    if (error?.param !== 'eval_lengths' && error?.param !== 'train_length') return error;
    const what = error.param === 'eval_lengths' ? `testing at up to 8 × L_train = ${8 * request.train_length} tokens` : 'one training step';
    return badParam('train_length', request.train_length, `a training length whose work fits one call: with d_model ${request.d_model} ` +
      `and ${request.layers} layer${request.layers > 1 ? 's' : ''}, ${what} is too much (${error.message.replace(/^train \([a-z_]+\): /, '')}); ` +
      'lower L_train or d_model');
  };
  const trainerFor = (request) => {
    try {
      return pe.trainer(request);
    } catch (error) {
      throw explained(error, request);
    }
  };
  // The labs' training jobs (lab-jobs.js), a module the worker loads on a lab's first request, not before a view's figure.
  let jobs = null;
  const labJob = (name) => function* job(...args) {
    const { labJobs } = yield { wait: import('./lab-jobs.js') };
    jobs ??= labJobs({ pe, spawnArm, corpus, loadCorpus, trainerFor, explained });
    return yield* jobs[name](...args);
  };
  const calls = {
    /** The build's version string, e.g. "posenc 0.1.0 (wasm, SIMD on)". */
    version: () => pe.version(),

    /**
     * What the instance holds: its wasm memory and the typed arrays and strings its memoised calls keep (at most CACHE_BYTES,
     * and the newest value).
     * @returns {{wasmBytes: number, cachedBytes: number}}
     */
    memory: () => ({ wasmBytes: pe.HEAPU8.buffer.byteLength, cachedBytes: store.bytes() }),

    /**
     * The decay comparison with spec's curve in place of its family's reference (null: none of its own).
     * @returns {{comparison: {label, values: Float32Array, scale: number}[], currentLabel: string|null}}
     */
    comparison: (spec, maxDistance) => COMPARISON.comparison(calls, spec, maxDistance),

    /** Spec's decay curve as the comparison draws it, or null for a family without one. */
    curveOf: (spec, maxDistance) => COMPARISON.curveOf(calls, spec, maxDistance),

    /**
     * An absolute encoding's table and frequencies.
     * @param {object} spec  e.g. {type: 'sinusoidal', d_model, base, layout, timescales}
     * @param {number} n     positions 0..n-1
     * @returns {{spec, table: {data: Float32Array, rows, cols}, inv_freq: Float32Array,
     *   wavelength: Float32Array, sin_column: Int32Array, cos_column: Int32Array}}
     *   frequencies in radians per token, wavelengths in tokens, [d_model/2] each;
     *   sin_column[i] / cos_column[i] is the table column of pair i's sine / cosine
     * @throws {Error} the core's message naming the parameter, value and allowed range
     */
    absolute: memoize((spec, n) => ({ spec, table: pe.positionTable(spec, n), ...pe.positionFrequencies(spec) })),

    /**
     * A rotary spec's frequencies for a sequence of seqLen tokens (ropeInvFreq).
     * @returns {{inv_freq: Float32Array, attention_factor: number, logit_scale: number,
     *   head_dim: number, rotary_dim: number, first_column: Int32Array, second_column: Int32Array,
     *   ramp_low?: number, ramp_high?: number}}
     */
    rotary,

    /**
     * Llama 4's attention temperature (its NoPE layers, attn_temperature_tuning): the query at position p is scaled by
     * log1p(floor((p + 1) / floorScale)) * attnScale + 1 (attentionTemperature; the core's nope::attention_temperature).
     * @param {number} floorScale   tokens per step, in [1, 2^40] (Llama4TextConfig.floor_scale, 8192)
     * @param {number} attnScale    in [-1e6, 1e6] (attn_scale, 0.1)
     * @param {number} maxPosition  the last position drawn, an integer in [1, 2^40]
     * @returns {{positions: Float64Array, scale: Float32Array, sampled: boolean}} the step points: 0, each position
     *   where the scale steps up, maxPosition (at most 4096; sampled: more steps than that, some skipped)
     * @throws {RangeError} with .param 'floor_scale', 'attn_scale' or 'max_position'
     */
    temperature: memoize((floorScale, attnScale, maxPosition) => pe.attentionTemperature(floorScale, attnScale, maxPosition)),

    /**
     * M-RoPE: the position id that drives each rotary pair (mropePairAxes; Qwen2-VL sectioned, Qwen3-VL interleaved).
     * @param {number[]} sections    mrope_section [t, h, w], sum = head_dim / 2
     * @param {boolean} interleaved  mrope_interleaved (Qwen3-VL)
     * @returns {Int32Array} one per pair: 0 t, 1 h, 2 w
     * @throws {RangeError} with .param 'sections' or 'interleaved'
     */
    mropeAxes: memoize((sections, interleaved) => pe.mropePairAxes(sections, interleaved)),

    /**
     * M-RoPE's three position ids of textBefore text tokens, one gridH x gridW image and textAfter text tokens, as
     * Qwen2VLModel.get_rope_index (mropePositions).
     * @returns {{t: Int32Array, h: Int32Array, w: Int32Array, kind: Int32Array}} n = textBefore + gridH * gridW + textAfter
     *   each; kind 0 text, 1 image
     * @throws {RangeError} with .param 'textBefore', 'gridH', 'gridW' or 'textAfter'
     */
    mropePositions: memoize((textBefore, gridH, gridW, textAfter) => pe.mropePositions(textBefore, gridH, gridW, textAfter)),

    /**
     * The decay curves over distance 0..maxDistance (see the core's decay).
     * @returns {{distance: Float32Array, upper_bound: Float32Array, ones: Float32Array, random: Float32Array}}
     */
    decay: memoize((spec, maxDistance, seed = 0) => pe.decay(spec, maxDistance, seed), 16),

    /**
     * The first n rows of an absolute encoding's table (positionTable).
     * @returns {{data: Float32Array, rows: number, cols: number}}
     */
    table: memoize((spec, n) => pe.positionTable(spec, n)),

    /**
     * p_i . p_j or their cosine over positions 0..n-1 (positionSimilarity).
     * @param {'dot'|'cosine'} metric
     * @returns {{data: Float32Array, rows: number, cols: number}}
     */
    similarity: memoize((spec, n, metric) => ({ data: pe.positionSimilarity(spec, n, metric), rows: n, cols: n })),

    /**
     * A bias family's b(i, j) (attentionBias); -Infinity where masked.
     * @returns {{data: Float32Array, rows: number, cols: number}}
     */
    bias: memoize((spec, n) => ({ data: pe.attentionBias(spec, n), rows: n, cols: n })),

    /**
     * ALiBi's slope of every head (alibiSlopes).
     * @returns {Float32Array}
     */
    alibiSlopes: memoize((nHeads) => pe.alibiSlopes(nHeads)),

    /**
     * ALiBi's heads: every head's slope, and the [n, n] bias of the first `shown` heads.
     * @returns {{slopes: Float32Array, maps: Float32Array[]}}
     */
    alibiHeads: memoize((n, nHeads, causal, shown = nHeads) => ({
      slopes: calls.alibiSlopes(nHeads),
      maps: Array.from({ length: Math.min(shown, nHeads) }, (_, h) => pe.alibiBias(n, nHeads, h, causal)),
    })),

    /**
     * One attention head over a sentence (attention(request)).
     * @returns {{tokens: string[], n: number, d_head: number, logits: Float32Array, weights: Float32Array,
     *   output: Float32Array, terms: object}}
     */
    attention: memoize((request) => pe.attention(request), 12),

    /**
     * T5's bucket of every relative position in [-span, span] (t5Bucket).
     * @returns {{positions: Int32Array, buckets: Int32Array}}
     */
    t5Buckets: memoize((bidirectional, numBuckets, maxDistance, span) => {
      const positions = Int32Array.from({ length: 2 * span + 1 }, (_, k) => k - span);
      return { positions, buckets: pe.t5Bucket(positions, bidirectional, numBuckets, maxDistance) };
    }),

    /**
     * DeBERTa's bucket of every relative position i - j (query minus key) in [-span, span]
     * (debertaRelativePosition, one column and one row).
     * @returns {{positions: Int32Array, buckets: Int32Array}}
     */
    debertaBuckets: memoize((positionBuckets, maxRelativePositions, span) => {
      const after = pe.debertaRelativePosition(span + 1, 1, positionBuckets, maxRelativePositions);  // i - 0 = 0 .. span
      const before = pe.debertaRelativePosition(1, span + 1, positionBuckets, maxRelativePositions);  // 0 - j = 0 .. -span
      const positions = Int32Array.from({ length: 2 * span + 1 }, (_, k) => k - span);
      const buckets = Int32Array.from(positions, (r) => (r >= 0 ? after[r] : before[-r]));
      return { positions, buckets };
    }),

    /**
     * CoPE counting what its gates fire on, in the typed sentence (cope()): a one-dimensional
     * head whose gates are set by hand, q_i = 1 and k_j = +8 on a counted token (sentence ends
     * . ! ?, or `word`), -8 elsewhere, so g_ij is 0.9997 or 0.0003 and p_ij counts the counted
     * tokens from key j to query i; position embeddings e[target] = 4, 0 elsewhere, so the
     * CoPE term is 4 on the keys whose count back is `target`.
     * @returns {{tokens: string[], counted: boolean[], n, target, gates, positions, bias: Float32Array(n * n)}}
     * @throws {RangeError} target outside [0, npos_max - 1]
     */
    copeCount: memoize((text, word, nposMax, target) => {
      if (!Number.isInteger(target) || target < 0 || target > nposMax - 1) {
        throw badParam('target', target, `an integer in [0, ${nposMax - 1}] (npos_max − 1: the largest count)`);
      }
      const { tokens } = pe.embedTokens(text, 1, 0);
      const n = tokens.length;
      const counted = tokens.map((t) => (word === null ? /^[.!?]$/.test(t) : t === word.toLowerCase()));
      const posEmb = new Float32Array(nposMax);
      posEmb[target] = 4;
      const maps = pe.cope({ q: new Float32Array(n).fill(1), k: Float32Array.from(counted, (c) => (c ? 8 : -8)),
        n, d_head: 1, npos_max: nposMax, pos_emb: posEmb });
      return { tokens, counted, countWord: word, n, target, ...maps };
    }),

    /** Train short, test long: lab-jobs.js experiment. */
    experiment: memoizeJob(labJob('experiment'), 2),
    /** The language-model lab: lab-jobs.js languageModel. */
    languageModel: memoizeJob(labJob('languageModel'), 2),


    /**
     * A trained head for the attention lab: a one-layer model with the family's spec (its width
     * set to 32) trained on `task` as the experiment's defaults train it (L_train 32, 400 steps,
     * d_model 32, vocabulary 16), sized for sentences up to 128 tokens. A head this small can stall in a poor optimum
     * at one seed (RoPE on copy: accuracy 0.56-0.59 at 3 of seeds 0-7, however long it trains, 1.00 at the others), so
     * seeds 0, 1, ... up to HEAD_SEEDS are tried in turn: the first head that reaches 0.9 at L_train (a stalled one stays
     * near 0.56; ALiBi's heads learn to 0.89-0.95), else the best. A head takes about 125 ms in Node. The head of each
     * family at its defaults ships (families/heads.js, trained by this call at build time): where spec and task are a
     * loaded shipped head's, it is returned as it is, and nothing trains (posenc-view.wasm has no trainer).
     * @returns {{vocab: number, d_model: number, E: Float32Array, embeddingScale: number, layer: {Wq, Wk, Wv: Float32Array,
     *   encoding: object}, accuracy: number, seed: number}}  E [vocab, d_model] (the model reads embeddingScale E: the
     *   core's params.embedding_scale) and W [d_model, d_model] row-major; encoding the layer's
     *   spec with its trained parameters; accuracy at L_train; seed the one it trained at
     */
    trainedHead: memoize((spec, task) => {
      const shipped = shippedHead(spec, task);
      if (shipped) return shipped;
      const vocab = 16;
      let best = null;
      for (let seed = 0; seed < HEAD_SEEDS && !(best?.accuracy >= 0.9); seed++) {
        const r = pe.train({ task, encoding: spec, layers: 1, d_model: 32, vocab, train_length: 32, steps: 400, seed,
          eval_lengths: [32, 128], eval_examples: 4 });
        if (!best || r.eval[0].accuracy > best.accuracy) {
          best = { vocab, d_model: 32, E: r.params.E, embeddingScale: r.params.embedding_scale, layer: r.params.layers[0].heads[0],
            accuracy: r.eval[0].accuracy, seed };
        }
      }
      return best;
    }, 4),

    /**
     * A pasted config.json read into its family's spec (config/model-config.js readConfigText), here rather than
     * on the page's thread: a 12 MB paste takes a few hundred ms to parse. The reader is loaded on the first paste.
     * @returns {Promise<{spec, sliding, notes, used, unmodelled, ignored, ignoredCount}>}
     * @throws {Error} .param 'config'
     */
    readConfig: async (text) => (await import('../config/model-config.js')).readConfigText(text),

    /**
     * A pasted config.json's per-layer profile (config/profile-text.js profileFromText): which layers rotate and how, their
     * windows, NoPE layers and their temperature, M-RoPE's sections. A job: the reader is loaded on first use.
     * @returns {{read, num_hidden_layers: ?number, kinds: {name, spec, window, temperature, layers: number[]}[],
     *   layers: number[], mrope: ?{mrope_section: number[], mrope_interleaved: boolean}, notes: string[], model: string}}
     * @throws {Error} .param 'config'
     */
    profile: memoizeJob(function* profile(text) {
      const reader = yield { progress: { done: 0, total: 1, label: 'loading the config reader…' }, wait: import('../config/profile-text.js') };
      return reader.profileFromText(text);
    }, 4),

    /**
     * A GGUF file's header read into a config.json-like object (config/gguf.js): only the header's bytes are read
     * (Blob.slice), never a multi-GB file whole. The reader is loaded on first use.
     * @param {Blob} file
     * @returns {Promise<{config: object, keysRead: {key, value, mappedTo}[], notes: string[], ropeType: ?string}>}
     * @throws {Error} .param 'gguf': not a GGUF file, truncated, lengths past the end, a header over the cap
     */
    readGguf: async (file) => {
      const gguf = await import('../config/gguf.js');
      const header = await gguf.readGgufHeader(file);
      return gguf.configFromGguf(header.metadata, { tensorNames: header.tensorNames });
    },

    /**
     * A rope spec as transformers, llama.cpp and vLLM compute it, and where they differ (the core's ropeStacks).
     * @returns {ReturnType<import('../../wasm/posenc.d.ts').Posenc['ropeStacks']>}
     */
    stacks: memoize((spec, seqLen) => pe.ropeStacks(spec, seqLen), 16),

    /** The attention head's tokens of a text (lower-cased words and punctuation, as attention() splits it). */
    tokens: memoize((text) => pe.embedTokens(text, 1, 0).tokens, 8),

    /** The trained head's reading of a sentence (tokenIds): {tokens: string[], ids: Int32Array}, each word's id among vocab. */
    tokenIds: memoize((text, vocab) => pe.tokenIds(text, vocab), 8),

    /**
     * One pair of a vector, (1, 0) in pair `pair` and 0 elsewhere, as the core
     * rotates it at positions start .. start + count - 1.
     * @returns {{positions: number[], a: Float32Array, b: Float32Array, inv_freq: number, attention_factor: number}}
     *   (a, b): the pair's two components at each position
     * @throws {RangeError} "pair = ... is invalid" when pair >= rotary_dim / 2
     */
    pairTrajectory: memoize((spec, pair, start, count) => {
      const f = rotary(spec, start + count);
      const half = f.rotary_dim / 2;
      if (!Number.isInteger(pair) || pair < 0 || pair >= half) {
        throw badParam('pair', pair, `an integer in [0, ${half - 1}] (rotary_dim / 2 = ${half} pairs)`);
      }
      const d = f.head_dim;
      const ca = f.first_column[pair], cb = f.second_column[pair];  // the columns the core pairs in the spec's layout
      const x = new Float32Array(count * d);
      for (let r = 0; r < count; r++) x[r * d + ca] = 1;
      const y = pe.applyRope(x, count, d, spec, start);
      return {
        positions: Array.from({ length: count }, (_, r) => start + r),
        a: Float32Array.from({ length: count }, (_, r) => y[r * d + ca]),
        b: Float32Array.from({ length: count }, (_, r) => y[r * d + cb]),
        inv_freq: f.inv_freq[pair],
        attention_factor: f.attention_factor,
        ramp_low: f.ramp_low,
        ramp_high: f.ramp_high,
      };
    }, 8),

    /**
     * A query [n, head_dim] of all ones or of seeded N(0, 1) entries, rotated
     * at positions 0..n-1.
     * @param {'ones'|'random'} input
     * @returns {{data: Float32Array, rows: number, cols: number, rotary: object}}
     */
    rotatedInput: memoize((spec, n, input) => {
      const f = rotary(spec, n);
      const d = f.head_dim;
      if (!Number.isInteger(n) || n < 1 || n * d > 1 << 22) {
        throw badParam('n', n, `an integer in [1, ${Math.floor((1 << 22) / d)}] for head_dim ${d}`);
      }
      const random = seededRandom(1);
      const x = Float32Array.from({ length: n * d }, (_, k) => (input === 'ones' ? 1 : random.normal()));
      if (input === 'random') for (let r = 1; r < n; r++) x.copyWithin(r * d, 0, d);  // one vector at every position
      return { data: pe.applyRope(x, n, d, spec, 0), rows: n, cols: d, rotary: f };
    }),
  };
  return calls;
}

/**
 * The fields `needs` of family `name` for params (and its formulaNeeds), and the parameters they read. A lab's fields
 * are loaded first (families/compute.js loadCompute; the server does).
 * @returns {{data: object, reads: Set<string>}} reads: the names read so far; a job among the fields (a lab's, which
 *   reads params as it runs) adds the names it reads to the same set, so read it once the jobs are done
 * @throws {Error} the core's or the family's message, with .reads
 */
export function computeFields(calls, name, params, needs) {
  const family = typeof name === 'string' ? computeOf(name) : null;
  if (!family) throw badParam('encoding', JSON.stringify(name), `one of ${COMPUTE_NAMES.join(', ')}`);
  const { proxy, reads } = tracking(params);
  try {
    const result = family.fields(calls, proxy);
    const data = {};
    // A family's formulaNeeds: what every view's formula shows of the core's (ALiBi's slopes).
    for (const field of [...needs, ...(family.formulaNeeds ?? [])]) data[field] = result[field];
    return { data, reads };
  } catch (error) {
    error.reads = [...reads];
    throw error;
  }
}

/**
 * The trained head a view request would ask for (calls.trainedHead's arguments), found without computing anything:
 * the request's trained-head fields (modules.js TRAINED_HEAD_FIELDS) run on calls that only record trainedHead's
 * arguments and stop there. The server asks it to know, before it computes, whether a shipped head answers the
 * request (families/heads.js) or posenc.wasm must train one.
 * @param {string} name  the family (families/compute.js; its fields loaded)
 * @param {object} params
 * @param {string[]} needs
 * @returns {{spec: object, task: string} | null}  null when no field asks for a head, or a field calls anything else first
 */
export function askedHead(name, params, needs) {
  const stop = new Error('askedHead: stopped at the first call');
  let asked = null;
  const recording = new Proxy({}, {
    get: (target, method) => (...args) => {
      if (method === 'trainedHead') asked = { spec: args[0], task: args[1] };
      throw stop;
    },
  });
  for (const need of needs.filter((n) => TRAINED_HEAD_FIELDS.includes(n))) {
    try {
      computeFields(recording, name, params, [need]);
    } catch {
      // stopped (or the request's own error, which computing it will say)
    }
    if (asked) return asked;
  }
  return null;
}
