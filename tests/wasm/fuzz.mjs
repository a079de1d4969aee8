// The property-based fuzz of the JS API (tests/wasm/fuzz.test.mjs runs it in
// npm test, scripts/fuzz.mjs runs it longer): seeded random calls of every
// function of wasm/post.js, with valid and invalid values, each classified.
// A call must either return a result whose numbers are finite (-Infinity only
// where a causal mask hides a key: above the diagonal of an [n, n] matrix), or
// throw an Error whose .param is named in its message; it must finish within
// the per-call limit; after it the instance must still answer
// alibiSlopes(4) = [1/4, 1/16, 1/64, 1/256] and its stack pointer must be
// where it was.
//
// Call k is drawn from its own generator, seeded by (seed, k), so a call the
// runner reports (or a worker that hung on it) is rebuilt from its index alone.
import fs from 'node:fs';

/** The functions of the JS API as wasm/post.js defines them (define(...) and Module[...] = ...). */
export function apiFunctions() {
  const source = fs.readFileSync(new URL('../../wasm/post.js', import.meta.url), 'utf8');
  const defined = [...source.matchAll(/define\('(\w+)'/g)].map((m) => m[1]);
  const assigned = [...source.matchAll(/Module\['(\w+)'\] = function/g)].map((m) => m[1]);
  return [...defined, ...assigned];
}

/** mulberry32 seeded by two integers: a function returning uniform numbers in [0, 1). */
export function rng(seed, index) {
  let a = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const THROWN_BY_FUZZ = 'thrown by the fuzz';
export const SLOPES = [0.25, 0.0625, 0.015625, 0.00390625];

/**
 * The generator of one call: `random` from rng(), `d` describe(), `aggressive`
 * lets legal values reach the core's limits (calls may then be slow; npm run fuzz).
 */
class Draw {
  constructor(random, d, aggressive) {
    this.random = random;
    this.d = d;
    this.aggressive = aggressive;
    this.limits = d.limits;
  }
  chance(p) { return this.random() < p; }
  int(lo, hi) { return lo + Math.floor(this.random() * (hi - lo + 1)); }
  pick(list) { return list[Math.floor(this.random() * list.length)]; }

  /** A value of the wrong type (or a number no argument accepts). */
  wrongType() {
    const r = this.int(0, 17);
    switch (r) {
      case 0: return 'abc';
      case 1: return '';
      case 2: return '16';
      case 3: return null;
      case 4: return undefined;
      case 5: return {};
      case 6: return [];
      case 7: return [4];
      case 8: return this.chance(0.5);
      case 9: return 4n;
      case 10: return Symbol('fuzz');
      case 11: return () => 4;
      case 12: return { valueOf: () => 4, toString: () => '4' };
      case 13: return new Proxy({}, {});
      case 14: return { nested: { deeper: { a: [1, { b: 2 }] } } };
      case 15: return new Date(0);
      case 16: return Number.NaN;
      default: return this.pick([Infinity, -Infinity]);
    }
  }

  /** A number at an edge: zero, negative, fractional, huge, tiny. */
  edgeNumber() {
    // (4096, the largest n of an [n, n] matrix, makes some legal calls take seconds: only with aggressive sizes.)
    const edges = [0, -0, -1, 1, 2, 0.5, 1.5, -2.5, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 31, 2 ** 32, -(2 ** 31),
      2 ** 24 + 1, 2 ** 40 + 1, 1e-300, Number.MIN_VALUE, Number.EPSILON, NaN, Infinity, -Infinity, 4097, 65537, 1e6 + 1];
    if (this.aggressive) edges.push(4096, 2 ** 24, 2 ** 40, 1e6);
    return this.pick(edges);
  }

  /** An item of an input array: moderate and finite (typed arrays are not checked item by item; huge ones only when aggressive). */
  floatItem() {
    if (this.chance(0.995)) return 2 * this.random() - 1;
    return this.pick(this.aggressive ? [0, -0, 1e4, -1e4, 1e-40, 3e38, -3e38] : [0, -0, 1e4, -1e4, 1e-40]);
  }

  /** An integer argument: mostly legal in [lo, cap], sometimes an edge or a wrong type. */
  integer(lo, cap, hi = cap) {
    const r = this.random();
    if (r < 0.75) return this.int(lo, this.aggressive && this.chance(0.1) ? hi : cap);
    if (r < 0.92) return this.edgeNumber();
    return this.wrongType();
  }

  /** A legal value of a described key (kind, min/exclusive_min, max, choices), kept small unless aggressive. */
  legalKey(key) {
    switch (key.kind) {
      case 'integer': {
        const lo = key.min ?? 0;
        const hi = key.max ?? lo + 64;
        const cap = this.aggressive && this.chance(0.05) ? hi : Math.min(hi, lo + 48);
        let value = this.int(lo, cap);
        if (/even/.test(key.allowed) && value % 2) value = value + 1 <= hi ? value + 1 : value - 1;
        return value;
      }
      case 'number': {
        const lo = key.min ?? key.exclusive_min ?? 0;
        const above = key.exclusive_min !== undefined || /> /.test(key.allowed);
        const hi = key.max ?? 1e6;
        const r = this.random();
        if (r < 0.6) return lo + (Math.min(hi, lo + 100) - lo) * this.random() + (above ? 1e-9 : 0);
        if (r < 0.7 && !above) return lo;
        if (r < 0.8) return Math.min(hi, this.pick([1e300, 1.7976931348623157e308, 1e30, 1e12]));
        return Math.min(hi, lo + this.pick([1e-300, Number.MIN_VALUE, 1e-12, 1e-6]) + (above && lo === 0 ? Number.MIN_VALUE : 0));
      }
      case 'boolean': return this.chance(0.5);
      case 'choice': return this.pick(key.choices);
      default: return undefined;
    }
  }

  /** A value for a key: usually legal, sometimes an edge, a wrong type or a nested object. */
  keyValue(key) {
    const r = this.random();
    if (r < 0.8) return this.legalKey(key);
    if (r < 0.92) return this.edgeNumber();
    return this.wrongType();
  }

  /** rope_scaling: a described rope_type with its keys (the required ones usually), or a broken one. */
  ropeScaling(halfDim) {
    const type = this.chance(0.95) ? this.pick(this.d.rope_types) : { name: this.pick(['bogus', '', 'su', 'yarn2']), keys: [] };
    const scaling = { [this.chance(0.8) ? 'rope_type' : 'type']: type.name };
    for (const key of type.keys) {
      const required = type.required && type.required.includes(key.name);
      if (!(required ? this.chance(0.95) : this.chance(0.4))) continue;
      if (key.kind === 'list') {
        const length = this.chance(0.85) ? halfDim : this.int(0, halfDim + 2);
        scaling[key.name] = Array.from({ length }, () => (this.chance(0.97) ? 0.5 + 4 * this.random() : this.edgeNumber()));
      } else {
        scaling[key.name] = this.keyValue(key);
      }
    }
    if (this.chance(0.05)) scaling.unknown_key = 1;
    return scaling;
  }

  /** A spec of a family that lists `fn` in computes (or, now and then, of any family, or broken). */
  spec(fn) {
    const r = this.random();
    if (r < 0.03) return this.wrongType();
    if (r < 0.05) return { type: this.pick(['bogus', '', 'ROPE', 'rope ']) };
    const families = this.d.families.filter((f) => fn === undefined || f.computes.includes(fn));
    const family = this.chance(0.93) && families.length ? this.pick(families) : this.pick(this.d.families);
    const spec = this.chance(0.98) ? { type: family.type } : {};
    for (const key of family.keys) {
      if (!this.chance(0.55)) continue;
      if (key.kind === 'object') {
        if (key.name === 'rope_parameters' && spec.rope_scaling !== undefined) continue;
        const head = typeof spec.head_dim === 'number' ? spec.head_dim : 128;
        spec[key.name] = this.chance(0.9) ? this.ropeScaling(Math.max(1, Math.min(64, Math.floor(head / 2)))) : this.wrongType();
        continue;
      }
      spec[key.name] = this.keyValue(key);
    }
    if (this.chance(0.04)) spec[this.pick(['unknown', 'dmodel', 'rope_scaling_', 'Type'])] = this.pick([1, 'x', {}]);
    if (this.chance(0.02)) spec.nested = { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } };
    return spec;
  }

  /** A float array of `length` (a plain array, a Float32Array, or broken). */
  floats(length) {
    const r = this.random();
    const values = () => Array.from({ length }, () => this.floatItem());
    if (r < 0.45) return Float32Array.from(values());
    if (r < 0.8) return values();
    if (r < 0.85) {  // a plain array with a non-finite or wrong item: refused
      const list = values();
      if (list.length) list[this.int(0, list.length - 1)] = this.pick([NaN, Infinity, -Infinity, 1e308]);
      return list;
    }
    if (r < 0.9) return Array.from({ length: Math.max(0, length + this.int(-2, 2)) }, () => 0.5);
    if (r < 0.93) {
      const list = values();
      if (list.length) list[this.int(0, list.length - 1)] = this.pick([1n, 'a', null, undefined, {}]);
      return list;
    }
    if (r < 0.95) {
      const list = values();
      if (list.length) Object.defineProperty(list, list.length - 1, { get() { throw new Error(THROWN_BY_FUZZ); } });
      return list;
    }
    return this.wrongType();
  }

  /** A small text of words and punctuation (or not a string). */
  text() {
    if (this.chance(0.05)) return this.wrongType();
    if (this.chance(0.03)) return this.pick(['', '   ', '\u0000', '😀 café', '.,;']);
    const words = ['the', 'cat', 'sat', 'on', 'a', 'mat', '.', ',', 'dog', 'chased', 'über', '😀'];
    return Array.from({ length: this.int(1, this.aggressive ? 64 : 16) }, () => this.pick(words)).join(' ');
  }

  /** The optional `out` argument: mostly absent, sometimes a buffer of the right or wrong length, or junk. */
  out(pe, length, made) {
    const r = this.random();
    if (r < 0.8) return undefined;
    if (r < 0.95 && Number.isInteger(length) && length > 0 && length <= 1 << 20) {
      const buffer = pe.allocFloat32(this.chance(0.8) ? length : length + 1);
      made.push(buffer);
      return buffer;
    }
    return this.pick([null, {}, new Float32Array(4), 'out']);
  }
}

/**
 * A train() request of toy size (a few steps on short sequences, so a call stays far below the
 * time limit), its keys drawn as the other calls draw theirs: now and then out of range or of
 * the wrong type. valid: only legal values (a live experiment for trainerStep and trainerFinish).
 */
function trainRequest(g, valid = false) {
  const int = (lo, cap, hi) => (valid ? g.int(lo, cap) : g.integer(lo, cap, hi));
  const request = {
    task: valid || g.chance(0.95) ? g.pick(['copy', 'induction', 'first_marker']) : g.pick(['sort', '', 3]),
    encoding: valid ? { type: g.pick(g.d.families.map((f) => f.type)) } : g.spec(),
    layers: int(1, 2, 3), d_model: int(2, 12, 256), vocab: int(2, 12, 1024), train_length: int(2, 12, 1024),
    steps: int(1, 12, 100000), seed: int(0, 1000, 2 ** 53),
    eval_lengths: Array.from({ length: g.int(1, 3) }, () => int(2, 40, 4096)),
  };
  if (g.chance(0.3)) request.recalibration_steps = int(0, 6, 100000);
  if (g.chance(0.3)) request.eval_examples = int(1, 3, 1024);
  if (g.chance(0.2)) request.eval_encoding = valid ? request.encoding : g.spec();
  return request;
}

/**
 * Call `index` of the run seeded `seed`: {name, args, made (allocFloat32
 * buffers to free after it), text (how to read it again)}. `functions`: the API's
 * function names to draw from (default: wasm/post.js's, in its order).
 */
export function makeCall(pe, d, seed, index, aggressive, functions = apiFunctions()) {
  const g = new Draw(rng(seed, index), d, aggressive);
  const fns = functions.filter((f) => f !== 'heapBytesInUse');
  const name = g.pick(fns);
  const made = [];
  const small = aggressive ? 4096 : 64;
  const L = d.limits;
  let args;
  switch (name) {
    case 'positionTable': {
      const spec = g.spec(name);
      const n = g.integer(1, small, L.max_table_elements);
      const width = spec && (spec.d_model ?? 512);
      args = [spec, n, g.out(pe, typeof n === 'number' && typeof width === 'number' ? n * width : 0, made)];
      break;
    }
    case 'positionFrequencies': args = [g.spec(name)]; break;
    case 'ropeInvFreq': args = [g.spec(name), g.integer(1, 1 << 20, L.max_position)]; break;
    case 'applyRope': {
      const spec = g.spec(name);
      const n = g.integer(1, 16, L.max_table_elements);
      const width = spec && typeof spec.head_dim === 'number' && g.chance(0.85) ? spec.head_dim : g.integer(1, 128, L.max_table_elements);
      const length = Number.isInteger(n) && Number.isInteger(width) && n > 0 && width > 0 && n * width <= 1 << 16 ? n * width : g.int(0, 64);
      args = [g.floats(length), n, width, spec, g.integer(0, 1 << 20, L.max_position), g.out(pe, length, made)];
      break;
    }
    case 'decay': args = [g.spec(name), g.integer(0, aggressive ? L.max_distance : 512, L.max_distance), g.chance(0.3) ? undefined : g.integer(0, 2 ** 53)]; break;
    case 'alibiSlopes': args = [g.integer(1, 64, L.max_heads)]; break;
    case 'alibiBias': {
      const heads = g.integer(1, 32, L.max_heads);
      args = [g.integer(1, small, L.max_matrix_n), heads, g.integer(0, Number.isInteger(heads) && heads > 0 ? heads - 1 : 8), g.chance(0.9) ? g.chance(0.5) : g.wrongType()];
      break;
    }
    case 't5Bucket': {
      const count = g.int(0, 32);
      const positions = g.chance(0.2) ? Int32Array.from({ length: count }, () => g.int(-1000, 1000))
        : g.chance(0.9) ? Array.from({ length: count }, () => (g.chance(0.97) ? g.int(-(2 ** 20), 2 ** 20) : g.edgeNumber())) : g.wrongType();
      args = [positions, g.chance(0.9) ? g.chance(0.5) : g.wrongType(), g.chance(0.7) ? 2 * g.int(1, 64) : g.integer(2, 256, L.max_buckets), g.integer(1, 4096, L.max_position)];
      break;
    }
    case 'attentionBias': args = [g.spec(name), g.integer(1, small, L.max_matrix_n)]; break;
    case 'positionSimilarity': args = [g.spec(name), g.integer(1, aggressive ? 512 : 32, L.max_matrix_n), g.chance(0.9) ? g.pick(['dot', 'cosine']) : g.pick(['l2', '', 'DOT', 3, null])]; break;
    case 'attention': {
      const request = {};
      const dModel = g.chance(0.85) ? 2 * g.int(1, 16) : g.integer(1, 64, L.max_model_dim);
      if (g.chance(0.9)) request.d_model = dModel;
      if (g.chance(0.6)) request.d_head = g.chance(0.8) ? 2 * g.int(1, 16) : g.integer(1, 64, L.max_model_dim);
      const inputs = g.random();
      if (inputs < 0.7) request.text = g.text();
      else if (inputs < 0.85) request.tokens = g.chance(0.9) ? Array.from({ length: g.int(0, 12) }, () => g.pick(['a', 'b', 'cat', '😀'])) : g.wrongType();
      else if (inputs < 0.97) request.x = g.floats(g.int(1, 8) * (Number.isInteger(dModel) && dModel > 0 && dModel <= 4096 ? dModel : 4));
      if (g.chance(0.7)) request.encoding = g.spec('attention');
      for (const [key, value] of [['causal', () => (g.chance(0.9) ? g.chance(0.5) : g.wrongType())], ['seed', () => g.integer(0, 1000, 2 ** 53)],
        ['projections', () => (g.chance(0.9) ? g.pick(['random', 'identity']) : g.wrongType())], ['position_offset', () => g.integer(0, 1 << 20, L.max_position)],
        ['embedding_scale', () => (g.chance(0.8) ? 10 * g.random() : g.edgeNumber())]]) if (g.chance(0.3)) request[key] = value();
      if (g.chance(0.03)) request.temperature = 1;
      args = [g.chance(0.97) ? request : g.wrongType()];
      break;
    }
    case 'attentionForward': {
      const n = g.chance(0.9) ? g.int(1, 12) : g.integer(1, 12, L.max_forward_tokens);
      const dModel = g.chance(0.9) ? g.int(1, 16) : g.integer(1, 16, L.max_model_dim);
      const dHead = g.chance(0.9) ? 2 * g.int(1, 8) : g.integer(1, 16, L.max_forward_head_dim);
      const ok = (v) => Number.isInteger(v) && v > 0 && v <= 64;
      const size = (a, b) => (ok(a) && ok(b) ? a * b : g.int(0, 16));
      const request = { n, d_model: dModel, d_head: dHead, x: g.floats(size(n, dModel)), wq: g.floats(size(dModel, dHead)),
        wk: g.floats(size(dModel, dHead)), wv: g.floats(size(dModel, dHead)) };
      if (g.chance(0.5)) request.causal = g.chance(0.9) ? g.chance(0.5) : g.wrongType();
      if (g.chance(0.6)) request.encoding = g.spec('attentionForward');
      if (g.chance(0.3)) request.position_offset = g.integer(0, 1 << 20, L.max_position);
      if (g.chance(0.1)) request.out = g.out(pe, size(n, dHead), made);
      for (const key of ['n', 'd_model', 'd_head', 'x', 'wq']) if (g.chance(0.02)) delete request[key];
      args = [g.chance(0.97) ? request : g.wrongType()];
      break;
    }
    case 'cope': {
      const n = g.integer(1, aggressive ? 512 : 16, 4096);
      const d = g.integer(1, 16, 4096);
      const npos = g.integer(1, 32, 4096);
      const length = (a, b) => (Number.isInteger(a) && Number.isInteger(b) && a * b <= 1 << 20 ? a * b + (g.chance(0.9) ? 0 : 1) : 4);
      const request = { q: g.floats(length(n, d)), k: g.floats(length(n, d)), n, d_head: d, npos_max: npos, pos_emb: g.floats(length(npos, d)) };
      if (g.chance(0.1)) request.causal = g.chance(0.5) ? false : g.wrongType();
      args = [g.chance(0.97) ? request : g.wrongType()];
      break;
    }
    case 'debertaRelativePosition': {
      const buckets = g.chance(0.3) ? -1 : g.integer(2, 512, 4096);
      args = [g.integer(1, small, 4096), g.integer(1, small, 4096), buckets,
        g.chance(0.5) ? g.integer(-1, 1024, 65536) : (Number.isInteger(buckets) ? Math.floor(buckets / 2) + 2 + g.int(0, 1000) : 512)];
      break;
    }
    case 'train': case 'trainer': case 'trainerStart': args = [g.chance(0.97) ? trainRequest(g) : g.wrongType()]; break;
    case 'trainerStep': case 'trainerFinish': {
      // A live experiment (freed after the call) or a handle that is not one.
      let handle = g.integer(0, 4, 2 ** 53);
      if (g.chance(0.7)) {
        try {
          handle = pe.trainerStart(trainRequest(g, true)).handle;
          const live = handle;
          made.push({ free: () => pe.trainerFree(live) });
        } catch { /* a request the draw made invalid: the handle stays drawn */ }
      }
      args = name === 'trainerStep' ? [handle, g.integer(1, 8, 100000)] : [handle];
      break;
    }
    case 'embedTokens': args = [g.text(), g.integer(1, 64, L.max_model_dim), g.integer(0, 1000, 2 ** 53)]; break;
    case 'tokenIds': args = [g.text(), g.integer(1, 64, 1024)]; break;
    case 'allocFloat32': args = [g.integer(1, 1024, 1 << 20)]; break;
    default: args = [];  // describe, version
  }
  if (g.chance(0.01)) args.push(g.wrongType());  // one argument too many: a TypeError naming the arity
  return { name, args, made };
}

/** A short text of a value, for reports. */
export function show(value, depth = 0) {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol' || typeof value === 'function') return String(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'undefined';
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${value.length})`;
  if (depth > 2) return '{...}';
  if (Array.isArray(value)) {
    if (value.length > 6) return `Array(${value.length})`;
    return `[${Array.from({ length: value.length }, (_, i) => {
      const descriptor = Object.getOwnPropertyDescriptor(value, i);
      return descriptor && descriptor.get ? '<getter>' : show(value[i], depth + 1);
    }).join(', ')}]`;
  }
  if (typeof value.free === 'function' && 'length' in value) return `allocFloat32(${value.length})`;
  try {
    return `{${Object.keys(value).map((k) => `${k}: ${show(value[k], depth + 1)}`).join(', ')}}`;
  } catch (error) {
    return '<object>';
  }
}

/** The non-finite numbers of a result, except -Infinity above the diagonal of an [n, n] array (a causal mask). */
function nonFinite(value, path, found, n) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) found.push(`${path} = ${value}`);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (ArrayBuffer.isView(value) || Array.isArray(value)) {
    const side = n !== undefined && value.length === n * n ? n : Math.sqrt(value.length);
    for (let k = 0; k < value.length; k++) {
      const x = value[k];
      if (typeof x !== 'number' || Number.isFinite(x)) continue;
      const masked = x === -Infinity && Number.isInteger(side) && k % side > Math.floor(k / side);
      if (!masked) {
        found.push(`${path}[${k}] = ${x}`);
        return;
      }
    }
    return;
  }
  for (const key of Object.keys(value)) nonFinite(value[key], `${path}.${key}`, found, value.n ?? n);
}

/**
 * Runs call `call` on `pe` and classifies it: {category, detail}. Categories:
 * ok, refused (an Error with .param named in its message), arity (TypeError
 * naming the arity), propagated (the fuzz's own getter's error), and the failures
 * hang, nan, vague, non-error, broken, stack.
 */
export function classify(pe, call, limitMs) {
  const stack = pe.stackSave();
  const start = performance.now();
  let result;
  let error;
  let threw = false;
  try {
    result = pe[call.name](...call.args);
  } catch (e) {
    threw = true;
    error = e;
  }
  const ms = performance.now() - start;
  for (const buffer of call.made) buffer.free();
  if (call.name === 'allocFloat32' && !threw) result.free();
  if (call.name === 'trainer' && !threw) result.free();  // the model it holds in the heap
  if (call.name === 'trainerStart' && !threw) pe.trainerFree(result.handle);
  let verdict;
  if (ms > limitMs) verdict = { category: 'hang', detail: `${ms.toFixed(0)} ms` };
  else if (!threw) {
    const found = [];
    if (call.name !== 'allocFloat32') nonFinite(result, 'result', found);
    verdict = found.length ? { category: 'nan', detail: found[0] } : { category: 'ok' };
  } else if (!(error instanceof Error)) verdict = { category: 'non-error', detail: show(error) };
  else if (error.message === THROWN_BY_FUZZ) verdict = { category: 'propagated' };
  else if (error instanceof TypeError && /takes \d+ arguments, got \d+/.test(error.message)) verdict = { category: 'arity' };
  else if (typeof error.param !== 'string' || error.param === '' || !error.message.includes(error.param))
    verdict = { category: 'vague', detail: `${error.name}: ${error.message} (param ${error.param})` };
  else verdict = { category: 'refused', detail: error.param };
  if (pe.stackSave() !== stack) return { category: 'stack', detail: `${pe.stackSave() - stack} bytes`, ms };
  if (threw) {
    let slopes;
    try {
      slopes = Array.from(pe.alibiSlopes(4));
    } catch (e) {
      slopes = String(e);
    }
    if (JSON.stringify(slopes) !== JSON.stringify(SLOPES)) return { category: 'broken', detail: `alibiSlopes(4) = ${show(slopes)}`, ms };
  }
  verdict.ms = ms;
  return verdict;
}

export const FAILURES = ['hang', 'nan', 'vague', 'non-error', 'broken', 'stack'];

/**
 * Runs calls [from, to) of the run seeded `seed`; `progress(index)` before each,
 * `snapshot(partial report)` every 1000.
 * Returns {counts: {category: n}, byFunction: {name: n}, findings: [{index, category, detail, call}], ms}.
 */
export function runFuzz(pe, { seed, from = 0, to, aggressive = false, limitMs = 2000, progress = () => {}, maxFindings = 50,
  snapshot = () => {} }) {
  const d = pe.describe();
  const counts = {};
  const byFunction = {};
  const findings = [];
  const seen = new Set();
  const start = performance.now();
  for (let index = from; index < to; index++) {
    progress(index);
    if ((index - from) % 1000 === 999) snapshot({ counts, byFunction, findings });
    const call = makeCall(pe, d, seed, index, aggressive);
    const verdict = classify(pe, call, limitMs);
    counts[verdict.category] = (counts[verdict.category] || 0) + 1;
    byFunction[call.name] = (byFunction[call.name] || 0) + 1;
    if (FAILURES.includes(verdict.category)) {
      // One finding per (function, category, detail shape) keeps the report readable.
      const key = `${call.name} ${verdict.category} ${String(verdict.detail).replace(/\d+/g, '#')}`;
      if (!seen.has(key) && findings.length < maxFindings) {
        seen.add(key);
        findings.push({ index, category: verdict.category, detail: verdict.detail, call: `${call.name}(${call.args.map((a) => show(a)).join(', ')})` });
      }
    }
  }
  return { counts, byFunction, findings, ms: performance.now() - start };
}
