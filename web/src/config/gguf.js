// Reads a llama.cpp GGUF file's header in the browser (only its first bytes, never
// the tensor data) and maps its rope metadata to a Hugging Face-style config
// object that hf-config.js readConfig accepts (issue 26).
//
// The header is parsed by @huggingface/gguf (MIT), whose only entry point is
// gguf(url, {fetch}): it reads a file in 2 MB Range requests as it needs them.
// blobFetch below answers those requests from Blob.slice, so a local File is read
// the same way, chunk by chunk, and no further than the metadata and tensor list.
// What the library does not check (a length that runs past the end of the file:
// it reads the missing bytes as zeros) is checked here.
// Bundle size: the package declares no "sideEffects", so a bundler keeps all of
// @huggingface/tasks that its index re-exports (measured with Vite 8: 74 kB gzip for
// this module); with build.rollupOptions.treeshake.moduleSideEffects returning false
// for @huggingface/(gguf|tasks) it is 9.8 kB gzip (the parser alone 4.7 kB).
//
// Key names and their meaning: llama.cpp (ggml-org/llama.cpp) gguf-py/gguf/constants.py
// Keys.LLM / Keys.Attention / Keys.Rope and MODEL_ARCH_NAMES (commit 0024aa74),
// src/llama-model.cpp llama_model::load_hparams (defaults) and llama_model_rope_type
// (which architectures rotate adjacent pairs, NORM, or halves, NEOX; commit 00342301),
// convert_hf_to_gguf.py TextModel.set_gguf_parameters (how each HF key is written).
import { gguf } from '@huggingface/gguf';
import { invalid } from '../errors.js';
import { checkLayerCount, checkLayerList, own, shown } from './hf-config.js';

/** How much of a file readGgufHeader reads at most, by default: real metadata (a 256k-token vocabulary) is 5-20 MB. */
export const GGUF_DEFAULT_MAX_BYTES = 32 * 2 ** 20;
/** The largest cap: the library's buffer holds at most 50 MB (HTTP_TOTAL_MAX_SIZE). */
export const GGUF_MAX_BYTES_LIMIT = 48_000_000;
// Any URL will do: blobFetch answers it, nothing goes to the network. It must be
// http(s): in Node the library otherwise treats it as a local path.
const BLOB_URL = 'https://gguf.invalid/local-file.gguf';
// The smallest key-value pair (u64 key length, empty key, u32 type, one byte) and tensor info.
const MIN_KV_BYTES = 13;
const MIN_TENSOR_INFO_BYTES = 24;
const VALUE_TYPES = ['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'float32', 'bool', 'string', 'array',
  'uint64', 'int64', 'float64'];
const FIXED_SIZE = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

/** An Error whose .param names the control it belongs to (the page shows it there). */
function ggufError(message) {
  return Object.assign(new Error(`gguf: ${message}`), { param: 'gguf' });
}

/**
 * A refused value of key `<arch>.<name>`: a RangeError "gguf: <arch>.<name> = <value> is invalid: expected <allowed>",
 * .param `name` (the key without its architecture: 'block_count'), .code 'bad_param'.
 */
function ggufBadValue(arch, name, value, allowed) {
  return Object.assign(new RangeError(`gguf: ${invalid(`${arch}.${name}`, value, allowed)}`),
    { code: 'bad_param', param: name, value: String(value), allowed });
}

const utf8Length = (text) => new TextEncoder().encode(text).length;

function hexPreview(bytes) {
  const shown = [...bytes.slice(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  const text = [...bytes.slice(0, 8)].map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
  return `${shown} ("${text}")`;
}

/**
 * A fetch over a Blob's slices, for the library: honours `Range: bytes=a-b`, never
 * slices past `limit` (the cap, or the file's end), and answers a range past it with
 * no bytes (the library asks for the next chunk while 500 kB are left, even at the
 * end of a file). A second range past it can only come from a length that runs
 * past the end, and is refused at once.
 * @param {Blob} file
 * @param {number} limit  bytes that may be read: min(file.size, maxBytes)
 * @param {{start: number, end: number}[]} slices  each slice taken is recorded here
 * @param {() => Error} pastLimit  the error for a read past the limit
 */
function blobFetch(file, limit, slices, pastLimit) {
  let pastCount = 0;
  return async (_url, init) => {
    const range = /bytes=(\d+)-(\d+)/.exec(init?.headers?.Range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = Math.min(range ? Number(range[2]) + 1 : limit, limit);
    if (start >= limit) {
      if (++pastCount > 1) throw pastLimit();
      return new Response(new Uint8Array(0), { status: 206 });
    }
    slices.push({ start, end });
    const bytes = await file.slice(start, end).arrayBuffer();
    return new Response(bytes, { status: 206, headers: { 'Content-Range': `bytes ${start}-${end - 1}/${file.size}` } });
  };
}

/** Bytes a value of GGUF type `type` takes as the library decoded it (strings re-encoded as UTF-8). */
function valueBytes(type, value, subType) {
  if (Object.hasOwn(FIXED_SIZE, type)) return FIXED_SIZE[type];
  if (type === 8) return 8 + utf8Length(value);
  if (type === 9 && subType !== 9) return 12 + value.reduce((sum, v) => sum + valueBytes(subType, v), 0);
  return NaN;  // an array of arrays: its inner types are not reported
}

/**
 * Which key-value pair crosses byte `limit`: the entries' extents, recomputed in
 * file order from what the library decoded (it reads the bytes past the end as zeros,
 * so a string or array whose length lies decodes to that length).
 */
function crossingEntry(typed, limit) {
  let offset = 24;
  for (const [key, entry] of Object.entries(typed)) {
    if (key === 'version' || key === 'tensor_count' || key === 'kv_count') continue;
    const keyEnd = offset + 8 + utf8Length(key);
    const valueStart = keyEnd + 4;
    const size = valueBytes(entry.type, entry.value, entry.subType);
    if (!Number.isFinite(size)) return null;
    const end = valueStart + size;
    if (end > limit) {
      const type = VALUE_TYPES[entry.type] ?? `type ${entry.type}`;
      let what = `a ${type}`;
      if (entry.type === 8) what = `a string declared ${size - 8} bytes long`;
      if (entry.type === 9) what = `an array of ${entry.value.length} ${VALUE_TYPES[entry.subType] ?? ''} items`;
      return keyEnd > limit ? `the key at byte ${offset} ("${key.slice(0, 40)}…")` : `"${key}" (${what}, bytes ${valueStart}-${end})`;
    }
    offset = end;
  }
  return null;
}

/**
 * Reads a GGUF file's header: its metadata key-value pairs (and tensor names),
 * never its tensor data. Only slices of the first `maxBytes` bytes are read, 2 MB at
 * a time as the parser asks for them: a 10 GB file costs one or a few slices.
 * @param {Blob} file  a File or Blob (anything with .size and .slice(start, end).arrayBuffer())
 * @param {{maxBytes?: number}} [options]  the cap on bytes read (default 32 MiB, at most 48 MB)
 * @returns {Promise<{version: number, tensorCount: number, kvCount: number, metadata: object,
 *   types: object, tensorNames: string[], headerBytes: number, bytesRead: number}>}
 *   metadata: {key: value} (u64/i64 values as BigInt, arrays as arrays); types: {key: 'uint32' | ...};
 *   headerBytes: where the tensor list ends; bytesRead: bytes sliced from the file
 * @throws {Error} (.param 'gguf') a file that is not GGUF (bad magic), an unsupported version,
 *   counts that cannot fit in the file, a string or array length past the file's end, a
 *   truncated file, a header that does not end within maxBytes
 */
export async function readGgufHeader(file, { maxBytes = GGUF_DEFAULT_MAX_BYTES } = {}) {
  if (!file || typeof file.slice !== 'function' || !Number.isFinite(file.size)) {
    throw ggufError('expected a File or Blob');
  }
  if (!Number.isFinite(maxBytes) || maxBytes < 1024 || maxBytes > GGUF_MAX_BYTES_LIMIT) {
    throw ggufError(`maxBytes = ${maxBytes}: expected 1024 to ${GGUF_MAX_BYTES_LIMIT} bytes`);
  }
  const size = file.size;
  const prelude = new Uint8Array(await file.slice(0, Math.min(24, size)).arrayBuffer());
  if (prelude.length < 4 || String.fromCharCode(...prelude.slice(0, 4)) !== 'GGUF') {
    const hint = prelude[0] === 0x7b ? ' (it looks like JSON: paste a config.json as text instead)' : '';
    throw ggufError(`not a GGUF file: it starts with ${hexPreview(prelude)}, a GGUF file with "GGUF"${hint}`);
  }
  if (prelude.length < 24) throw ggufError(`truncated: the file has ${size} bytes, fewer than a GGUF header's 24`);
  const view = new DataView(prelude.buffer);
  const version = view.getUint32(4, true);
  if (version !== 2 && version !== 3) {
    const endian = (version & 0xffff) === 0 && [2, 3].includes(view.getUint32(4, false)) ? ' (a big-endian file)' : '';
    throw ggufError(`unsupported GGUF version ${version}${endian}: llama.cpp writes version 3 and reads 2 and 3, little-endian`);
  }
  const tensorCount = view.getBigUint64(8, true);
  const kvCount = view.getBigUint64(16, true);
  if (kvCount * BigInt(MIN_KV_BYTES) + 24n > BigInt(size)) {
    throw ggufError(`the header declares ${kvCount} key-value pairs, which cannot fit in a file of ${size} bytes ` +
      `(each takes at least ${MIN_KV_BYTES})`);
  }
  if (tensorCount * BigInt(MIN_TENSOR_INFO_BYTES) + kvCount * BigInt(MIN_KV_BYTES) + 24n > BigInt(size)) {
    throw ggufError(`the header declares ${tensorCount} tensors, which cannot fit in a file of ${size} bytes`);
  }

  const limit = Math.min(size, maxBytes);
  const capped = limit < size;
  const beyond = (where) => ggufError(capped
    ? `the header does not end within the first ${maxBytes} bytes (the cap on what is read)${where ? `: ${where} runs past it` : ''}`
    : `the header runs past the end of the file (${size} bytes)${where ? `: ${where}` : ''}; the file is truncated ` +
      'or a length in its header is wrong');
  const slices = [];
  let parsed;
  try {
    parsed = await gguf(BLOB_URL, { fetch: blobFetch(file, limit, slices, () => beyond('')), typedMetadata: true });
  } catch (error) {
    if (error?.param === 'gguf') throw error;
    const message = String(error?.message ?? error);
    const length = /(String|array) length (\d+)/i.exec(message);
    if (length) {
      throw ggufError(`a${length[1] === 'String' ? ' string' : 'n array'} length in the header (${length[2]}) is larger ` +
        `than any real one and past the end of the file (${size} bytes): the file is corrupt`);
    }
    if (/Unsupported (metadata|array element) type/.test(message)) {
      throw ggufError(`${message.replace(/^Unsupported/, 'unknown')} in the header: the file is corrupt or truncated`);
    }
    if (error instanceof RangeError) throw beyond('');
    throw ggufError(`could not read the header (${message})`);
  }
  const headerBytes = parsed.tensorInfoByteRange[1];
  if (headerBytes > limit) throw beyond(crossingEntry(parsed.typedMetadata, limit) ?? 'the tensor list');

  // Keys are the file's: built with Object.fromEntries, a key "__proto__" is an entry like any other, not a prototype.
  const entries = Object.entries(parsed.typedMetadata).filter(([key]) => key !== 'version' && key !== 'tensor_count' && key !== 'kv_count');
  const metadata = Object.fromEntries(entries.map(([key, entry]) => [key, entry.value]));
  const types = Object.fromEntries(entries.map(([key, entry]) =>
    [key, VALUE_TYPES[entry.type] + (entry.type === 9 ? ` of ${VALUE_TYPES[entry.subType]}` : '')]));
  return {
    version,
    tensorCount: Number(tensorCount),
    kvCount: Number(kvCount),
    metadata,
    types,
    tensorNames: parsed.tensorInfos.map((t) => t.name),
    headerBytes,
    bytesRead: slices.reduce((sum, s) => sum + (s.end - s.start), 0),
    slices,
  };
}

// llama.cpp's architecture names (MODEL_ARCH_NAMES) whose transformers model_type differs.
const MODEL_TYPES = {
  gptneox: 'gpt_neox', qwen2moe: 'qwen2_moe', qwen3moe: 'qwen3_moe', qwen2vl: 'qwen2_vl', qwen3vl: 'qwen3_vl',
  qwen3vlmoe: 'qwen3_vl_moe', qwen3next: 'qwen3_next', phi2: 'phi', gemma3: 'gemma3_text', gemma3n: 'gemma3n_text',
  deepseek2: 'deepseek_v2', 'gpt-oss': 'gpt_oss', 'command-r': 'cohere', starcoder: 'gpt_bigcode', 'minimax-m2': 'minimax_m2',
  glm4moe: 'glm4_moe', 'nomic-bert': 'nomic_bert', 'jina-bert-v2': 'jina_bert_v2', 'modern-bert': 'modernbert',
  olmoe: 'olmoe', granitemoe: 'granitemoe', 'ernie4_5-moe': 'ernie4_5_moe', 'hunyuan-moe': 'hunyuan_v1_moe',
  'hunyuan-dense': 'hunyuan_v1_dense', 'falcon-h1': 'falcon_h1',
};
// llama_model_rope_type (src/llama-model.cpp, commit 00342301): NORM rotates adjacent
// pairs (x[2i], x[2i+1]); NEOX rotates x[i] with x[i + n_rot/2]; MROPE is Qwen2-VL's
// multimodal rope (pairs as NEOX); NONE applies no rotation. Architectures added to
// llama.cpp after that commit are not listed and get no layout.
const NORM = ['llama', 'llada', 'llama4', 'deci', 'baichuan', 'starcoder', 'internlm2', 'minicpm', 'xverse', 'command-r',
  'cohere2', 'olmo', 'arctic', 'deepseek', 'deepseek2', 'plm', 'chatglm', 'glm4', 'granite', 'granitemoe', 'granitehybrid',
  'chameleon', 'bailingmoe', 'neo-bert', 'smollm3', 'arcee', 'ernie4_5', 'ernie4_5-moe'];
const NEOX = ['falcon', 'falcon-h1', 'grok', 'dbrx', 'bert', 'jina-bert-v3', 'nomic-bert', 'nomic-bert-moe', 'stablelm',
  'bitnet', 'qwen', 'qwen2', 'dream', 'qwen2moe', 'qwen3', 'qwen3moe', 'qwen3next', 'llada-moe', 'olmo2', 'olmoe', 'phi2',
  'phi3', 'phimoe', 'plamo', 'plamo2', 'gemma', 'gemma2', 'gemma3', 'gemma3n', 'gemma-embedding', 'starcoder2', 'openelm',
  'gptneox', 'codeshell', 'orion', 'nemotron', 'exaone', 'exaone4', 'minicpm3', 'bailingmoe2', 'dots1', 'hunyuan-moe',
  'gpt-oss', 'hunyuan-dense', 'lfm2', 'lfm2moe', 'smallthinker', 'glm4moe', 'seed_oss', 'grovemoe', 'apertus'];
const NONE = ['clip', 'gpt2', 'gptj', 'mpt', 'refact', 'bloom', 'mamba', 'mamba2', 'jamba', 'jina-bert-v2', 't5', 't5encoder',
  'jais', 'rwkv6', 'rwkv6qwen2', 'rwkv7', 'arwkv7', 'wavtokenizer-dec', 'nemotron_h'];
// NORM architectures whose Hugging Face checkpoints rotate halves: convert_hf_to_gguf.py
// permutes their q/k rows (LlamaModel.permute), so adjacent pairs in the file are HF's halves.
const PERMUTED_ON_CONVERSION = new Set(['llama', 'llama4', 'deci', 'baichuan', 'internlm2', 'minicpm', 'xverse', 'granite',
  'granitemoe', 'granitehybrid', 'smollm3', 'arcee', 'ernie4_5', 'ernie4_5-moe', 'plm', 'bailingmoe', 'chameleon', 'olmo']);

/** llama.cpp's rope type of a GGUF architecture name: 'norm', 'neox', 'mrope', 'none', or null (not in the table). */
export function ggufRopeType(arch) {
  if (arch === 'qwen2vl') return 'mrope';
  if (NORM.includes(arch)) return 'norm';
  if (NEOX.includes(arch)) return 'neox';
  if (NONE.includes(arch)) return 'none';
  return null;
}

/**
 * Maps a GGUF header's metadata (readGgufHeader's `metadata`) to a Hugging Face-style
 * config.json object for hf-config.js readConfig, as llama.cpp reads each key
 * (llama_model::load_hparams) and as convert_hf_to_gguf.py wrote it from the HF config:
 *   general.architecture -> model_type; <arch>.block_count -> num_hidden_layers;
 *   <arch>.context_length -> max_position_embeddings; <arch>.embedding_length -> hidden_size;
 *   <arch>.attention.head_count -> num_attention_heads; <arch>.attention.key_length (else
 *   embedding_length / head_count) -> head_dim; <arch>.rope.dimension_count (n_rot, default
 *   head_dim) -> partial_rotary_factor = n_rot / head_dim (qk_rope_head_dim for deepseek2);
 *   <arch>.rope.freq_base (default 10000) -> rope_theta; <arch>.rope.freq_base_swa ->
 *   rope_local_base_freq; <arch>.attention.sliding_window -> sliding_window;
 *   <arch>.rope.scaling.type (none | linear | yarn | longrope; absent with a factor: linear) with
 *   .factor (or the older .rope.scale_linear), .original_context_length (default context_length),
 *   .yarn_attn_factor or .attn_factor, .yarn_beta_fast, .yarn_beta_slow -> rope_scaling
 *   {rope_type, factor, original_max_position_embeddings, attention_factor, beta_fast, beta_slow};
 *   <arch>.rope.dimension_sections -> rope_scaling.mrope_section;
 *   llama_model_rope_type -> layout ('interleaved' for NORM, 'half' for NEOX and MROPE).
 * @param {object} metadata  {key: value} as readGgufHeader returns it (numbers, BigInts, strings, arrays)
 * @param {{tensorNames?: string[]}} [options]  the header's tensor names (rope_freqs, rope_factors_long: noted)
 * @returns {{config: object, keysRead: {key: string, value: *, mappedTo: string}[], notes: string[],
 *   ropeType: ?string}} keysRead: each GGUF key read, its value and the config key it became
 *   (or 'note' / 'default'); ropeType: llama.cpp's rope type ('norm', 'neox', 'mrope', 'none') or null
 * @throws {Error} (.param 'gguf') no general.architecture, a non-number where a number must be,
 *   an unknown rope.scaling.type
 */
export function configFromGguf(metadata, { tensorNames = [] } = {}) {
  if (metadata === null || typeof metadata !== 'object') throw ggufError('expected the header’s metadata object');
  const keysRead = [];
  const notes = [];
  const arch = Object.hasOwn(metadata, 'general.architecture') ? metadata['general.architecture'] : undefined;
  if (arch === undefined) throw ggufError('no general.architecture key: the header does not say which model this is');
  if (typeof arch !== 'string' || arch === '') {
    throw ggufError(`general.architecture = ${JSON.stringify(String(arch)).slice(0, 40)} is not an architecture name`);
  }
  const modelType = own(MODEL_TYPES, arch) ?? arch.replace(/-/g, '_');
  keysRead.push({ key: 'general.architecture', value: arch, mappedTo: 'model_type' });
  const config = { model_type: modelType };

  /** hf-config.js's check of a layer count or per-layer list (checkLayerCount, checkLayerList), its refusal named by <arch>.<name>. */
  const layerCheck = (name, check, value, shownValue) => {
    try {
      return check(name, value);
    } catch (error) {
      throw ggufBadValue(arch, name, shownValue ?? error.value, error.allowed);
    }
  };
  /**
   * The value of `<arch>.name` (recorded as mapped to `mappedTo`), checked to be a number, or with `array` (and for
   * head_count, which llama.cpp also reads per layer) a list of numbers: one per layer (at most MAX_LAYERS), or at most
   * `maxEntries`; its length is checked before any entry is read.
   */
  const number = (name, mappedTo, { array = false, maxEntries = null } = {}) => {
    const key = `${arch}.${name}`;
    if (!Object.hasOwn(metadata, key)) return undefined;
    const raw = metadata[key];
    const listed = array || name.endsWith('head_count');
    if (listed && Array.isArray(raw)) {
      if (maxEntries === null) layerCheck(name, checkLayerList, raw);
      else if (raw.length > maxEntries) throw ggufBadValue(arch, name, `a list of ${raw.length} entries`, `at most ${maxEntries} entries`);
    }
    const toNumber = (v) => (typeof v === 'bigint' ? Number(v) : v);
    const ok = (v) => typeof v === 'number' && Number.isFinite(v);
    if (Array.isArray(raw) ? !listed || !raw.every((v) => ok(toNumber(v))) : !ok(toNumber(raw))) {
      throw ggufError(`${key} = ${shown(raw, 40)} is invalid: expected ${array ? 'an array of numbers' : 'a number'}`);
    }
    const value = Array.isArray(raw) ? raw.map(toNumber) : toNumber(raw);
    keysRead.push({ key, value, mappedTo });
    return value;
  };
  const string = (name, mappedTo) => {
    const key = `${arch}.${name}`;
    if (!Object.hasOwn(metadata, key)) return undefined;
    const value = metadata[key];
    if (typeof value !== 'string') throw ggufError(`${key} = ${shown(value, 40)} is invalid: expected a string`);
    keysRead.push({ key, value, mappedTo });
    return value;
  };

  const ropeType = ggufRopeType(arch);
  const layers = number('block_count', 'num_hidden_layers');
  if (layers !== undefined) {
    // Bounded here, by the file's own key, as the config reader bounds num_hidden_layers (shown exactly: a uint64 of
    // 2^64 - 1 reads as the number 1.8e19).
    config.num_hidden_layers = layerCheck('block_count', checkLayerCount, layers, String(metadata[`${arch}.block_count`]));
  }
  const context = number('context_length', 'max_position_embeddings');
  if (context !== undefined) config.max_position_embeddings = context;
  const width = number('embedding_length', 'hidden_size');
  if (width !== undefined) config.hidden_size = width;
  let heads = number('attention.head_count', 'num_attention_heads');
  if (Array.isArray(heads)) {
    const used = heads.filter((h) => h > 0);
    notes.push(`attention.head_count is per layer (${heads.length} entries); the first layer with heads, ${used[0]}, is shown`);
    heads = used[0];
  }
  if (heads !== undefined) config.num_attention_heads = heads;

  if (ropeType === 'none') {
    notes.push(`llama.cpp applies no rotary encoding to ${arch} (llama_model_rope_type: LLAMA_ROPE_TYPE_NONE)`);
    if (arch === 'gpt2' && context !== undefined) config.n_positions = context;
    if (arch === 'bloom' || arch === 'mpt' || arch === 'jina-bert-v2') {
      if (arch === 'mpt') config.attn_config = { alibi: true };
      number('attention.max_alibi_bias', 'note');
    }
    if (arch === 't5' || arch === 't5encoder') {
      const buckets = number('attention.relative_buckets_count', 'relative_attention_num_buckets');
      if (buckets !== undefined) config.relative_attention_num_buckets = buckets;
    }
    return { config, keysRead, notes, ropeType };
  }

  let headDim = number('attention.key_length', 'head_dim');
  if (arch === 'deepseek2') {
    const mla = number('attention.key_length_mla', 'note');
    if (mla !== undefined) headDim = mla;
  }
  if (headDim === undefined && width !== undefined && heads > 0) {
    headDim = width / heads;
    notes.push(`head_dim = embedding_length / head_count = ${width} / ${heads} = ${headDim} (llama.cpp’s n_embd_head_k)`);
  }
  const rotated = number('rope.dimension_count', 'rotated dims (n_rot)');
  if (arch === 'deepseek2') {
    if (rotated !== undefined) config.qk_rope_head_dim = rotated;
    if (rotated !== undefined && headDim !== undefined) config.qk_nope_head_dim = headDim - rotated;
    notes.push('DeepSeek-V2/V3 (MLA): only the qk_rope_head_dim slice of each head rotates');
  } else {
    if (headDim !== undefined) config.head_dim = headDim;
    if (rotated !== undefined && headDim !== undefined && rotated !== headDim) {
      config.partial_rotary_factor = rotated / headDim;
      notes.push(`rope.dimension_count = ${rotated} of head_dim ${headDim}: partial_rotary_factor = ${rotated / headDim}`);
    }
  }

  const theta = number('rope.freq_base', 'rope_theta');
  config.rope_theta = theta ?? 10000;
  if (theta === undefined) notes.push('rope.freq_base absent: rope_theta = 10000, llama.cpp’s default');
  const localTheta = number('rope.freq_base_swa', 'rope_local_base_freq');
  if (localTheta !== undefined) config.rope_local_base_freq = localTheta;
  const window = number('attention.sliding_window', 'sliding_window');
  if (window !== undefined && window > 0) config.sliding_window = window;
  const patternKey = `${arch}.attention.sliding_window_pattern`;
  if (Object.hasOwn(metadata, patternKey)) {
    // A number (every n-th layer) or one bool per layer (llama.cpp get_key_or_arr): a list is bounded as layers are.
    const pattern = metadata[patternKey];
    if (Array.isArray(pattern)) layerCheck('attention.sliding_window_pattern', checkLayerList, pattern);
    keysRead.push({ key: patternKey, value: pattern, mappedTo: 'note' });
    notes.push('attention.sliding_window_pattern: which layers use the sliding window (not modelled)');
  }
  if (number('rope.dimension_count_swa', 'note') !== undefined) {
    notes.push('rope.dimension_count_swa: the sliding-window layers rotate another number of dims (not shown)');
  }

  // Scaling, as load_hparams reads it: the type defaults to "linear", a factor of 0 means none.
  let type = string('rope.scaling.type', 'rope_scaling.rope_type');
  const factor = number('rope.scaling.factor', 'rope_scaling.factor') ?? number('rope.scale_linear', 'rope_scaling.factor');
  const original = number('rope.scaling.original_context_length', 'rope_scaling.original_max_position_embeddings');
  const yarnAttn = number('rope.scaling.yarn_attn_factor', 'rope_scaling.attention_factor');
  const attn = number('rope.scaling.attn_factor', yarnAttn === undefined ? 'rope_scaling.attention_factor' : 'note');
  const betaFast = number('rope.scaling.yarn_beta_fast', 'rope_scaling.beta_fast');
  const betaSlow = number('rope.scaling.yarn_beta_slow', 'rope_scaling.beta_slow');
  const extFactor = number('rope.scaling.yarn_ext_factor', 'note');
  const logMul = number('rope.scaling.yarn_log_multiplier', 'note');
  // llama.cpp reads at most 4 sections (t, h, w, e: get_key_or_arr(LLM_KV_ROPE_DIMENSION_SECTIONS, rope_sections, 4)).
  const sections = number('rope.dimension_sections', 'rope_scaling.mrope_section', { array: true, maxEntries: 4 });
  const hasFactors = tensorNames.includes('rope_factors_long.weight');
  if (type === undefined && (arch === 'phi3' || arch === 'phimoe') && (hasFactors || (original !== undefined && original !== context))) {
    type = 'longrope';
    notes.push(`${arch} without rope.scaling.type but with ${hasFactors ? 'rope_factors_long' : 'an original context length'}: ` +
      'LongRoPE (convert_hf_to_gguf.py Phi3MiniModel writes no type)');
  } else if (type === undefined && factor !== undefined && factor !== 0 && factor !== 1) {
    type = 'linear';
    notes.push('rope.scaling.type absent with a factor: linear, llama.cpp’s default type');
  }
  let scaling = null;
  if (type === undefined || type === 'none') {
    if (type === 'none' && factor !== undefined && factor !== 1) notes.push(`rope.scaling.type none: the factor ${factor} is not applied`);
  } else if (type === 'linear') {
    if (factor !== undefined && factor !== 0 && factor !== 1) scaling = { rope_type: 'linear', factor };
  } else if (type === 'yarn') {
    scaling = { rope_type: 'yarn', factor: factor ?? 1, original_max_position_embeddings: original ?? context };
    if (original === undefined) notes.push('yarn without original_context_length: llama.cpp uses the context length');
    const attentionFactor = yarnAttn ?? attn;
    if (attentionFactor !== undefined) scaling.attention_factor = attentionFactor;
    if (betaFast !== undefined) scaling.beta_fast = betaFast;
    if (betaSlow !== undefined) scaling.beta_slow = betaSlow;
    if (extFactor !== undefined) notes.push(`yarn_ext_factor = ${extFactor}: llama.cpp’s ramp mix (transformers has no such key; 1 is YaRN’s)`);
    if (logMul !== undefined) {
      notes.push(`yarn_log_multiplier = ${logMul}: DeepSeek-style mscale_all_dim (convert_hf_to_gguf.py writes 0.1 × it for ` +
        'deepseek2), which scales the attention logits; not mapped');
    }
  } else if (type === 'longrope') {
    scaling = { rope_type: 'longrope', original_max_position_embeddings: original ?? context };
    if (factor !== undefined) scaling.factor = factor;
    if (attn !== undefined) scaling.attention_factor = attn;
    notes.push('longrope: its short_factor and long_factor are the tensors rope_factors_short and rope_factors_long, not ' +
      'metadata; give the model’s config.json for them');
  } else {
    throw ggufError(`${arch}.rope.scaling.type = "${type}" is unknown: llama.cpp reads none, linear, yarn and longrope`);
  }
  if (sections !== undefined) {
    const mrope = sections.length === 4 && sections[3] === 0 ? sections.slice(0, 3) : sections;
    scaling = scaling ? { ...scaling, mrope_section: mrope } : { rope_type: 'mrope', mrope_section: mrope };
  }
  if (scaling) config.rope_scaling = scaling;
  if (tensorNames.includes('rope_freqs.weight')) {
    notes.push('rope_freqs tensor: llama.cpp divides each pair’s frequency by a stored factor (Llama 3.1’s llama3 ' +
      'scaling is written this way by convert_hf_to_gguf.py); the header has not its low/high_freq_factor, so plain ' +
      'RoPE is shown: give the model’s config.json for the scaled spectrum');
  }

  if (ropeType === 'norm') {
    config.layout = 'interleaved';
    notes.push(PERMUTED_ON_CONVERSION.has(arch)
      ? `llama.cpp rotates adjacent pairs (LLAMA_ROPE_TYPE_NORM) of q/k rows that convert_hf_to_gguf.py permuted from ` +
        'the Hugging Face checkpoint: the same scores as transformers’ rotate_half on the original weights'
      : 'llama.cpp rotates adjacent pairs (LLAMA_ROPE_TYPE_NORM)');
  } else if (ropeType === 'neox' || ropeType === 'mrope') {
    config.layout = 'half';
  } else {
    notes.push(`architecture "${arch}" is not in llama.cpp’s rope-type table as read here: layout not set`);
  }
  return { config, keysRead, notes, ropeType };
}
