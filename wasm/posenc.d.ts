// wasm/posenc.d.ts: the JS API of the posenc module (web/generated/posenc.mjs +
// posenc.wasm, built by `npm run build:wasm`), the contract that the page, the
// tests and a user's own code read. wasm/post.js implements it over the embind
// functions of wasm/bindings.cpp.
//
// Conventions, for every function:
//  - Matrices are flat and row-major: `[n, d]` is a Float32Array of n * d items,
//    item (i, j) at i * d + j. Positions and distances are in tokens; angles,
//    inv_freq and frequencies in radians (per token); wavelengths in tokens.
//  - Every array result is a fresh typed array that stays valid after later calls,
//    except `out` results, which are the allocFloat32 buffer's own `array`.
//  - Spec objects (`Spec`) select a family with `type`; their other keys are the
//    Hugging Face config keys (describe() lists each family's keys, defaults and ranges).
//  - Arguments are read once, in JS, before the module is entered (a getter,
//    Proxy trap or toJSON of the caller's runs then, never during the call).
//  - Errors: a `PosencError` (RangeError for a bad value, Error otherwise) whose
//    message names the parameter, the value and the allowed range; a TypeError
//    for a call with more arguments than the function takes. Every item of an
//    input array is checked finite first: a NaN is named where it is (`wk[17] = NaN`).
//  - Memory: what a caller must free is a `Trainer` (free() or finish()) and a
//    `Float32Buffer` (free()); nothing else holds wasm memory past its call. One
//    dropped without free() is freed when the JS garbage collector reclaims it (a
//    FinalizationRegistry; a buffer's `array` view keeps its buffer alive), but
//    free() gives the memory back at once: the heap may grow to 2 GiB, never shrinks.
//    The module also keeps parsed specs for reuse, at most 256 and 16 MiB of them (a spec over 1 MiB,
//    a trainer's text, is not kept; a trainer's request goes when the trainer does).

/** A thrown error of the API. Callers read these fields; they never parse the message. */
export interface PosencError extends Error {
  /** 'bad_param' (a bad value, with .param), 'bad_request' (a combination refused without one
   *  parameter to blame), 'out_of_memory' (.param: the function that asked), 'freed' (a Trainer or
   *  Float32Buffer used after free(), a raw trainer handle after trainerFree or trainerFinish: .param 'handle'), 'bad_call' (too many arguments), 'reentrant', 'internal' (a bug),
   *  'unavailable' (a function posenc-view.wasm was built without: the trainer, ropeStacks, attentionTemperature,
   *  mropePairAxes, mropePositions, attentionForward; .param the function; posenc.wasm has it; and in a family
   *  group's posenc-view-<group>.wasm, another group's family's own function (alibiSlopes, alibiBias, t5Bucket,
   *  debertaRelativePosition, cope), or a spec of a family it lacks: .param 'type'; posenc-view.wasm has those). */
  code: 'bad_param' | 'bad_request' | 'out_of_memory' | 'freed' | 'bad_call' | 'reentrant' | 'internal' | 'unavailable';
  /** The parameter: a spec key ('d_model', 'factor') or an argument ('n', 'seqLen', 'x', 'out'), without index;
   *  for an error about no one input, the function ('positionTable'), 'trainer', 'buffer' or 'arguments'. */
  param: string;
  /** The value as the message writes it: '7', '"concat"', 'NaN', 'string', 'undefined' for a missing key. */
  value: string;
  /** What was expected: 'an even integer in [2, 16777216]'. */
  allowed: string;
}

/**
 * Every family's spec `type`, in the core's order (describe().families[k].type; the core's one list is
 * core/include/posenc/family_list.hpp): the union `npm run build:wasm` writes from describe() beside the module
 * (scripts/describe.mjs), so a new family needs no line here.
 */
export type { FamilyType } from '../web/generated/families';
import type { FamilyType } from '../web/generated/families';

/** An encoding: `type` names the family; the rest are its keys (describe().families[k].keys). */
export interface Spec {
  type: FamilyType;
  [key: string]: unknown;
}

/** A float32 buffer in the wasm heap (allocFloat32): read in place where an array goes, written in place as `out`. */
export interface Float32Buffer {
  /** Its address in the heap (bytes); throws after free(). */
  readonly ptr: number;
  readonly length: number;
  /** A view on it: take it again after any call (a growing heap detaches old views); throws after free(). */
  readonly array: Float32Array;
  /** Frees it; a second call does nothing. (A buffer dropped unfreed is freed when collected, once no view of it is left.) */
  free(): void;
}

/** An input array of float32: a Float32Array (taken as it is), a plain array of finite numbers (checked, copied), or a buffer. */
export type Floats = Float32Array | number[] | Float32Buffer;

export interface TrainRequest {
  /** 'copy' | 'induction' | 'first_marker' | 'text' (train.hpp documents each with an example; 'text': a language model
   *  on `text`, one token per character, its last validation_fraction held out). */
  task: string;
  /** The family trained (a Spec); eval_encoding, if given, replaces it at test time (e.g. a RoPE scaling). */
  encoding: Spec;
  eval_encoding?: Spec;
  /** layers 1..6; d_model 2..256; vocab 2..1024 (task 'text': the text's distinct characters); lengths in tokens. */
  layers?: number; d_model?: number; vocab?: number; train_length?: number; steps?: number; seed?: number;
  eval_lengths?: number[]; eval_examples?: number; lr?: number; recalibration_steps?: number;
  /** Sequences per step (1..256, default 1): the gradient is the mean of theirs, the step's loss their mean loss. */
  batch_size?: number;
  /** The transformer: heads per layer (dividing d_model; W_o with several), the MLP's width (0: none), RMSNorm
   *  before each part ('rms_norm') or none. Defaults: 1, 0, 'none' (the attention-only model). */
  n_heads?: number; intermediate_size?: number; norm?: 'none' | 'rms_norm';
  /** The schedule: lr after a linear warm-up, then constant or a half cosine to lr / 10; the gradient clipped to
   *  this global L2 norm (0: not clipped). */
  warmup_steps?: number; lr_decay?: 'none' | 'cosine'; grad_clip?: number;
  /** Every this many steps, the validation loss at train_length (0: never), on a cheap fixed subset: eval_examples
   *  windows (task 'text': spread evenly over the held-out part) or fixed examples, not what `eval` reads. */
  validation_every?: number;
  /** task 'text': the corpus (UTF-8 text of 1000+ characters, at most 1024 distinct), the share held out (0.01..0.5,
   *  default 0.1), and samples (0..8) of sample_length characters (1..512) generated after validation prompts. */
  text?: string; validation_fraction?: number; samples?: number; sample_length?: number;
  /** task 'text': the evaluation at each length reads the held-out part's non-overlapping windows, every one when
   *  absent, else ceil(eval_characters / length) of them (all, if fewer) spread evenly: at least this many characters
   *  (1..2^30). eval_examples then sets only the validation subset. A synthetic task refuses it (.param 'eval_characters'). */
  eval_characters?: number;
}

/** One head's trained parameters: W [d_model, head_dim] and its encoding with the trained parameters under the
 *  family's own explicit keys. */
export interface TrainedHead { Wq: Float32Array; Wk: Float32Array; Wv: Float32Array; encoding: Spec }

export interface TrainResult {
  /** Float32Array(steps + recalibration_steps): the cross-entropy of each step (the mean over its batch), in nats. */
  loss: Float32Array;
  /** Per evaluated length, over every position read (task 'text': the held-out part's non-overlapping windows of
   *  `length`, all floor((held-out characters - 1) / length) of them or eval_characters' worth; a synthetic task:
   *  eval_examples fresh examples): accuracy of the most likely class, the mean cross-entropy `loss` (nats per token),
   *  perplexity = exp(loss); loss_se: the standard error of loss over windows (nats: the sample standard deviation of
   *  the windows' own mean losses / sqrt(windows); 0 with one window); windows read, and characters = windows x length. */
  eval: { length: number; accuracy: number; loss: number; perplexity: number; loss_se: number; windows: number;
          characters: number }[];
  /** The validation loss after `step` steps (validation_every). */
  validation: { step: number; loss: number }[];
  /** E [vocab, d_model] and embedding_scale, the factor of E in the model's input x = embedding_scale E[token] (+ the
   *  absolute family's table): sqrt(d_model) for sinusoidal (Vaswani et al. 2017, section 3.4), 1 for every other family;
   *  per layer its heads, and where the model has them Wo [d_model, d_model], the RMSNorm gains
   *  norm1, norm2 [d_model], the MLP's W1 [d_model, m], b1 [m], W2 [m, d_model], b2 [d_model]; the final norm [d_model];
   *  Wout [d_model, classes], c [classes]. */
  params: { E: Float32Array; embedding_scale: number; layers: { heads: TrainedHead[]; Wo?: Float32Array; norm1?: Float32Array; norm2?: Float32Array;
            W1?: Float32Array; b1?: Float32Array; W2?: Float32Array; b2?: Float32Array }[];
            norm?: Float32Array; Wout: Float32Array; c: Float32Array };
  /** Per evaluated length: one example's tokens, targets (Int32Array(length)) and each layer's weights [length, length]
   *  (head 0's). */
  maps: { length: number; tokens: Int32Array; targets: Int32Array; weights: Float32Array[] }[];
  /** task 'text': generated samples (the prompt and what followed it), and the vocabulary (token k = characters[k]). */
  samples?: { prompt: string; generated: string }[];
  characters?: string;
}

export interface Trainer {
  /** steps + recalibration_steps. */
  readonly total: number;
  /** Steps done so far. */
  readonly done: number;
  /** Runs up to `count` more steps (1..100000); returns the steps done. Throws RangeError (.param 'count') for more
   *  steps than one call's work budget holds (never for stepsPerCall or fewer: every request trainer() accepts can
   *  step), Error (.code 'freed') after finish() or free(). */
  step(count: number): number;
  /** The most steps one step() call takes within the work budget (their batches and validations): at least 1. */
  readonly stepsPerCall: number;
  /** The evaluation's units: one per evaluated window (task 'text': every held-out window of each length, thousands
   *  at short lengths) or example, attention map and sampled character. */
  readonly evaluationTotal: number;
  readonly evaluated: number;
  /** After the steps: runs up to `count` more units of the evaluation (within one call's work budget: a RangeError
   *  .param 'count' above it, never for one unit); returns those done. */
  evaluate(count: number): number;
  /** The training curves so far, as finish() will return them: `loss` the training loss (nats) of each step after
   *  `from` (default 0; an integer in [0, done]: the steps a caller has not read yet, so reading between chunks copies
   *  only the new ones), Float32Array(done - from); `validation` every validation point so far. A RangeError (.param
   *  'from') outside [0, done], Error (.code 'freed') after finish() or free(). */
  losses(from?: number): { loss: Float32Array; validation: { step: number; loss: number }[] };
  /** The rest of the steps, then the rest of the evaluation: train()'s result, bit for bit; frees the model. Held to
   *  the budget of one call as train() is: a RangeError (.param 'steps') when what is left is above it, the trainer
   *  kept (step and evaluate it in chunks first). */
  finish(): TrainResult;
  /** Frees the model (the heap it holds) without finishing. */
  free(): void;
}

/** The micro-kernels' path: fused multiply-add (relaxed SIMD) or the C++ SIMD128 code (Posenc.kernelPath). */
export type KernelPath = 'relaxed-simd' | 'simd128';

export interface Posenc {
  /** The table P [n, d_model] of an absolute family (sinusoidal: Vaswani et al. 2017 §3.5; learned: the table;
   *  none: zeros): {data: Float32Array(n * d_model) or out.array, rows: n, cols: d_model}. n in [1, 16777216],
   *  n * d_model <= describe().limits.max_table_elements. Throws for a non-absolute family or a bad key. */
  positionTable(spec: Spec, n: number, out?: Float32Buffer): { data: Float32Array; rows: number; cols: number };

  /** The pairs of an absolute sinusoidal table: inv_freq (radians per token) and wavelength (tokens), Float32Array(d_model / 2)
   *  each; sin_column and cos_column (Int32Array(d_model / 2)): the columns of pair i in the layout. */
  positionFrequencies(spec: Spec): { inv_freq: Float32Array; wavelength: Float32Array; sin_column: Int32Array; cos_column: Int32Array };

  /** RoPE's or xPos's frequencies at sequence length seqLen (tokens; dynamic scaling reads it) as transformers'
   *  ROPE_INIT_FUNCTIONS compute them: inv_freq Float32Array(rotary_dim / 2) in radians per token, attention_factor
   *  (YaRN/LongRoPE's cos/sin scale), logit_scale, head_dim, rotary_dim; first_column and second_column
   *  (Int32Array(rotary_dim / 2)): the columns of q that pair i rotates in the spec's layout ((2i, 2i + 1) interleaved,
   *  (i, i + rotary_dim / 2) half); for yarn, ramp_low and ramp_high: the pair indices where its ramp from keeping a
   *  frequency to dividing it by factor starts and ends (transformers' find_correction_range). seqLen in [1, 2^40].
   *  Every number is finite: keys valid alone that combine into a frequency not > 0 or past float32's range, or a factor
   *  outside (0, 1e4], are refused with .param 'rope_scaling' (the message names the value). */
  ropeInvFreq(spec: Spec, seqLen: number): { inv_freq: Float32Array; attention_factor: number; logit_scale: number; head_dim: number;
    rotary_dim: number; first_column: Int32Array; second_column: Int32Array; ramp_low?: number; ramp_high?: number };

  /** One rope spec as three inference stacks compute it (core/src/rope_stacks.cpp: transformers' modeling_rope_utils.py,
   *  llama.cpp's ggml rope_yarn / ggml_rope_cache_init in float32 with its theta chain, vLLM's rotary_embedding classes):
   *  per stack its inv_freq (Float32Array(rotary_dim / 2), radians per token; empty when posenc does not model that stack
   *  for the rope_type: modelled false and note says why), attention_factor, logit_scale, layout and a note; per pair the
   *  largest relative difference between two modelled stacks (max_relative) and which two (first, second: indices into
   *  stacks); agreement: the relative difference under which two values count as equal (float32 rounding); comparisons:
   *  each two modelled stacks (indices into stacks) and whether they agree on every value. A stack's float32 arithmetic
   *  or its own formula can give NaN or Infinity for keys transformers takes (yarn's factor past 3.4e38 in llama.cpp's
   *  GGUF float, longrope's ln L = 0 at original_max_position_embeddings 1): that stack's nonfinite then names the values
   *  and, where traced, how the key leads there ('' when every value is finite), nonfinite_param the key ('rope_scaling'
   *  where untraced); such a value is never compared: max_relative is Infinity at its pair, its comparisons do not agree,
   *  and attention_factors_differ / logit_scales_differ are true for it. transformers' values are always finite (a spec
   *  whose frequencies are not, or pass float32's range, is refused, .param 'rope_scaling'). seqLen (tokens, [1, 2^40])
   *  matters for transformers' dynamic and longrope. Throws with .param 'type' for a spec that is not rope. */
  ropeStacks(spec: Spec, seqLen: number): { stacks: { name: 'transformers' | 'llama.cpp' | 'vllm'; modelled: boolean;
    inv_freq: Float32Array; attention_factor: number; logit_scale: number; layout: 'half' | 'interleaved'; note: string;
    nonfinite: string; nonfinite_param: string }[];
    max_relative: Float32Array; first: Int32Array; second: Int32Array; overall_max_relative: number; agreement: number;
    comparisons: { first: number; second: number; agree: boolean }[];
    attention_factors_differ: boolean; logit_scales_differ: boolean };

  /** x [n, d] with each row i rotated at position positionOffset + i (RoFormer eq. 34; layout 'half' is GPT-NeoX's
   *  rotate_half, 'interleaved' GPT-J's pairs): a fresh Float32Array(n * d), or written into out (which may be x). */
  applyRope(x: Floats, n: number, d: number, spec: Spec, positionOffset: number, out?: Float32Buffer): Float32Array;

  /** Curves against relative distance 0..maxDistance (tokens): {distance, <curve>...}, Float32Array(maxDistance + 1)
   *  each; the curves depend on the family (rope: ones, random, upper_bound; bias families: bias; ...). seed draws
   *  the random vectors (default 0). */
  decay(spec: Spec, maxDistance: number, seed?: number): { distance: Float32Array; [curve: string]: Float32Array };

  /** Llama 4's query scale on its NoPE layers (transformers modeling_llama4.py, Llama4TextAttention, with
   *  attn_temperature_tuning): scale(p) = log1p(floor((p + 1) / floorScale)) * attnScale + 1 at position p (0-based,
   *  tokens), over p = 0..maxPosition, as step points: positions (Float64Array, tokens) 0, each p >= 1 where the floor
   *  changes, and maxPosition; scale (Float32Array) at each. At most 4096 points: past that (sampled: true) the starts
   *  of the steps holding positions spaced geometrically. floorScale in [1, 2^40] (tokens; Llama 4: 8192), attnScale
   *  in [-1e6, 1e6] (0.1), maxPosition an integer in [1, 2^40]; errors' param: floor_scale, attn_scale, max_position. */
  attentionTemperature(floorScale: number, attnScale: number, maxPosition: number):
    { positions: Float64Array; scale: Float32Array; sampled: boolean };

  /** M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): the position id (0 t, 1 h, 2 w) that drives each rotary pair,
   *  Int32Array(t + h + w) for sections [t, h, w] (mrope_section; sum = head_dim / 2). Sectioned (interleaved false,
   *  Qwen2-VL's apply_multimodal_rotary_pos_emb): t pairs, then h, then w. Interleaved (Qwen3-VL's
   *  apply_interleaved_mrope): pair i is h when i % 3 == 1 and i < 3h, w when i % 3 == 2 and i < 3w, else t. */
  mropePairAxes(sections: Int32Array | number[], interleaved: boolean): Int32Array;

  /** M-RoPE's three position ids of textBefore text tokens ([0, 256]), one image of gridH x gridW tokens ([1, 64] each,
   *  after the spatial merge) and textAfter text tokens, as Qwen2VLModel.get_rope_index: text t = h = w = running
   *  index; image token (row r, col c): t = textBefore, h = textBefore + r, w = textBefore + c; the text after starts
   *  at textBefore + max(gridH, gridW). Int32Array(n) each; kind 0 text, 1 image. */
  mropePositions(textBefore: number, gridH: number, gridW: number, textAfter: number):
    { t: Int32Array; h: Int32Array; w: Int32Array; kind: Int32Array };

  /** ALiBi's slope m_h of each head (Press et al. 2021, §3; the non-power-of-two rule of their code): Float32Array(nHeads). */
  alibiSlopes(nHeads: number): Float32Array;

  /** ALiBi's bias -m_head |i - j| [n, n] (-Infinity above the diagonal when causal). */
  alibiBias(n: number, nHeads: number, head: number, causal: boolean): Float32Array;

  /** T5's bucket of each relative position (key - query; Raffel et al. 2020, transformers' _relative_position_bucket):
   *  Int32Array of the same length. numBuckets even when bidirectional. */
  t5Bucket(relativePositions: Int32Array | number[] | Float32Buffer, bidirectional: boolean, numBuckets: number, maxDistance: number): Int32Array;

  /** DeBERTa's relative position of each (query, key) pair [queryLength, keyLength] (transformers'
   *  build_relative_position: query minus key, log-bucketed when position_buckets > 0). */
  debertaRelativePosition(queryLength: number, keyLength: number, position_buckets: number, max_relative_positions: number): Int32Array;

  /** The bias b(i, j) [n, n] of a bias family (one whose describe().families[k].acts is 'bias'). */
  attentionBias(spec: Spec, n: number): Float32Array;

  /** p_i . p_j, or their cosine, of an absolute family's table [n, n]. metric: 'dot' | 'cosine'. */
  positionSimilarity(spec: Spec, n: number, metric: 'dot' | 'cosine'): Float32Array;

  /** The page's attention head on a sentence (text or tokens) or given inputs x [n, d_model]: logits, weights [n, n],
   *  output [n, d_head], x, q, k, v, the terms of the logit, and with wq, wk, wv a trained head. wasm/README.md documents the keys. */
  attention(request: { text?: string; tokens?: string[]; x?: Floats; encoding?: Spec; d_model?: number; d_head?: number;
    causal?: boolean; seed?: number; projections?: 'random' | 'identity'; position_offset?: number; embedding_scale?: number;
    wq?: Floats; wk?: Floats; wv?: Floats }): {
    tokens: string[]; n: number; d_head: number; logits: Float32Array; weights: Float32Array; output: Float32Array;
    x: Float32Array; q: Float32Array; k: Float32Array; v: Float32Array; positions?: Float32Array;
    q_unrotated?: Float32Array; k_unrotated?: Float32Array; terms: { carrier: string; scale: number; [term: string]: Float32Array | string | number };
  };

  /** One head with the caller's weights: softmax(Q K^T / sqrt(d_head) (+ b(i, j), causal mask)) V, Q = X Wq;
   *  x [n, d_model], wq, wk, wv [d_model, d_head]: Float32Array(n * d_head) or out.array. Blockwise (online softmax). */
  attentionForward(request: { x: Floats; wq: Floats; wk: Floats; wv: Floats; n: number; d_model: number; d_head: number;
    causal?: boolean; encoding?: Spec; position_offset?: number; out?: Float32Buffer }): Float32Array;

  /** CoPE (Golovneva et al. 2024, eq. 3-5) on given q, k [n, d_head] and pos_emb [npos_max, d_head]: the gates
   *  sigmoid(q_i . k_j / sqrt(d_head)), the contextual positions, and the bias [n, n] each. */
  cope(request: { q: Floats; k: Floats; n: number; d_head: number; npos_max: number; pos_emb: Floats; causal?: boolean }):
    { gates: Float32Array; positions: Float32Array; bias: Float32Array };

  /** Trains a tiny attention-only model (float32, Adam, seeded) on a task, then evaluates it at eval_lengths. One call:
   *  a RangeError .param 'steps' when the steps and the evaluation together are above its work budget (trainer() runs
   *  them in chunks); for one step (its whole batch) above it, 'train_length' or 'batch_size'; for one evaluated
   *  example, 'eval_lengths'; a key of the request (n_heads, d_model, text, eval_encoding...) for any other refusal. */
  train(request: TrainRequest): TrainResult;
  /** train(request) a chunk of steps at a time (for progress and cancel); the same result bit for bit. */
  trainer(request: TrainRequest): Trainer;
  /** The raw steps of trainer(): {handle, total, evaluationTotal, stepsPerCall}; trainerStep(handle, count) -> steps
   *  done; trainerEvaluate(handle, count) -> evaluation units done; trainerFinish(handle) -> TrainResult (frees it);
   *  trainerFree(handle) drops it (nothing for a stale handle). A handle names one trainer for its life (its slot and
   *  the slot's generation): once that trainer is finished or freed, the handle is refused (.code 'freed', .param
   *  'handle'), even after a new trainer takes the slot. Prefer trainer(). */
  trainerStart(request: TrainRequest): { handle: number; total: number; evaluationTotal: number; stepsPerCall: number };
  trainerStep(handle: number, count: number): number;
  trainerEvaluate(handle: number, count: number): number;
  trainerFinish(handle: number): TrainResult;
  trainerFree(handle: number): void;
  /** Trainer.losses() by handle: trainerLosses(handle, from). */
  trainerLosses(handle: number, from: number): { loss: Float32Array; validation: { step: number; loss: number }[] };

  /** The head's tokenizer and token embeddings: {tokens, data: Float32Array(tokens.length * dModel)}. */
  embedTokens(text: string, dModel: number, seed: number): { tokens: string[]; data: Float32Array };

  /** The trained head's reading of a sentence: its tokens (embedTokens's) and each one's id among vocab (1..1024):
   *  the FNV-1a hash of the token's UTF-16 code units, mod vocab (the same word, the same id). */
  tokenIds(text: string, vocab: number): { tokens: string[]; ids: Int32Array };

  /** The core's one list: every family with its keys (default, min, max, allowed text), where it acts, its label,
   *  source, formula (TeX) and formula_note, whether train() learns position parameters of it (learns), the functions
   *  that accept it; every rope_type with its required and
   *  optional keys; the limits. posenc.wasm only (posenc-view.wasm throws code 'unavailable'; the page reads
   *  web/generated/describe.json, and the formulas from web/generated/family-formulas.json). */
  describe(): { version: string; limits: Record<string, number>; families: object[]; rope_types: object[] };

  /** "posenc <version> (wasm, SIMD on)" (or off). */
  version(): string;

  /** A zero-filled float32 buffer of `length` (1..2^28) items in the wasm heap. */
  allocFloat32(length: number): Float32Buffer;

  /** Bytes of wasm heap allocated by malloc: a diagnostic for leak tests. */
  heapBytesInUse(): number;

  /** The path the hot micro-kernels (every matrix product's 4 x 8 tile, attention's scores and P.V update) take
   *  now: 'relaxed-simd', wasm/relaxed-kernels.wat's fused multiply-add (f32x4.relaxed_madd), the default where
   *  the engine validates relaxed SIMD (current Chromium; Node 20 with --experimental-wasm-relaxed-simd); or
   *  'simd128', the C++ code (a separate multiply and add, the native build's numbers bit for bit). The two differ
   *  in the last bits, within the same error bounds against a float64 reference. */
  kernelPath(): KernelPath;

  /** Switches the micro-kernels for every later call; returns the path now in use. RangeError with .param 'path',
   *  .value and .allowed for a path not in KernelPath, or 'relaxed-simd' where this engine has no relaxed SIMD. */
  useKernels(path: KernelPath): KernelPath;
}

/** The module factory: `const pe = await createPosenc()` (in Node, pass {wasmBinary: the .wasm's bytes}). */
export default function createPosenc(options?: { wasmBinary?: ArrayBuffer | Uint8Array; locateFile?: (path: string) => string }): Promise<Posenc>;
