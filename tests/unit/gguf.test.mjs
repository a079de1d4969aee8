// The GGUF header reader (web/src/config/gguf.js) on headers written here in the
// published GGUF layout (llama.cpp gguf-py/gguf/gguf_writer.py; docs/gguf.md): magic
// "GGUF", u32 version 3, u64 tensor count, u64 key-value count, then each pair as a
// u64-length UTF-8 key, a u32 value type and the value, then each tensor's info. The
// keys and values are those convert_hf_to_gguf.py writes for each model's HF config;
// each test states the config values it expects, worked out by hand.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readGgufHeader, configFromGguf, GGUF_DEFAULT_MAX_BYTES } from '../../web/src/config/gguf.js';
import { readConfig } from '../../web/src/config/hf-config.js';
import { T, writeGguf } from '../gguf-writer.mjs';

const NAMES = {
  familyTypes: ['sinusoidal', 'learned', 'none', 'rope', 'xpos', 'alibi', 't5', 'shaw', 'transformer_xl', 'kerple', 'deberta', 'fire', 'cope'],
  ropeTypes: ['default', 'linear', 'dynamic', 'ntk', 'yarn', 'llama3', 'longrope'],
};

async function mapped(kv, options) {
  const header = await readGgufHeader(new Blob([writeGguf(kv, options)]));
  return { header, ...configFromGguf(header.metadata, { tensorNames: header.tensorNames }) };
}

const ggufError = (pattern) => (error) => {
  assert.equal(error.param, 'gguf', error.message);
  assert.match(error.message, pattern);
  return true;
};

// Llama 3 8B as convert_hf_to_gguf.py writes it (no rope_scaling in its config.json).
const LLAMA = [
  ['general.architecture', T.str, 'llama'],
  ['general.name', T.str, 'Meta Llama 3 8B'],
  ['llama.block_count', T.u32, 32],
  ['llama.context_length', T.u32, 8192],
  ['llama.embedding_length', T.u32, 4096],
  ['llama.feed_forward_length', T.u32, 14336],
  ['llama.attention.head_count', T.u32, 32],
  ['llama.attention.head_count_kv', T.u32, 8],
  ['llama.rope.freq_base', T.f32, 500000],
  ['llama.attention.layer_norm_rms_epsilon', T.f32, 1e-5],
  ['llama.rope.dimension_count', T.u32, 128],
  ['tokenizer.ggml.tokens', T.arr, [T.str, ['<s>', '</s>', 'hello']]],
];

test('llama (LLAMA_ROPE_TYPE_NORM, no scaling): head_dim 4096/32 = 128, all of it rotates, base 500000, adjacent pairs', async () => {
  const { header, config, keysRead, notes, ropeType } = await mapped(LLAMA, {
    tensors: [['token_embd.weight', [4096, 3], 0, 0], ['rope_freqs.weight', [64], 0, 49152]],
  });
  assert.equal(header.version, 3);
  assert.equal(header.kvCount, LLAMA.length);
  assert.deepEqual(header.tensorNames, ['token_embd.weight', 'rope_freqs.weight']);
  assert.deepEqual(header.metadata['tokenizer.ggml.tokens'], ['<s>', '</s>', 'hello']);
  assert.equal(header.types['llama.block_count'], 'uint32');
  assert.equal(ropeType, 'norm');
  assert.deepEqual(config, {
    model_type: 'llama', num_hidden_layers: 32, max_position_embeddings: 8192, hidden_size: 4096, num_attention_heads: 32,
    head_dim: 128, rope_theta: 500000, layout: 'interleaved',
  });
  assert.deepEqual(keysRead.find((k) => k.key === 'llama.rope.freq_base'), { key: 'llama.rope.freq_base', value: 500000, mappedTo: 'rope_theta' });
  assert.ok(notes.some((n) => /rope_freqs/.test(n)), 'the llama3 factors tensor is noted');
  assert.ok(notes.some((n) => /permuted/.test(n)));
  // hf-config.js reads the mapped config as a Llama config whose pairs are adjacent.
  const { spec } = readConfig(config, NAMES);
  assert.deepEqual(spec, { type: 'rope', head_dim: 128, rope_theta: 500000, max_position_embeddings: 8192, layout: 'interleaved' });
});

test('qwen2 (NEOX): key_length given, base 1e6, halves', async () => {
  const { config, ropeType } = await mapped([
    ['general.architecture', T.str, 'qwen2'],
    ['qwen2.block_count', T.u32, 28],
    ['qwen2.context_length', T.u32, 32768],
    ['qwen2.embedding_length', T.u32, 3584],
    ['qwen2.attention.head_count', T.u32, 28],
    ['qwen2.attention.key_length', T.u32, 128],
    ['qwen2.rope.freq_base', T.f32, 1000000],
  ]);
  assert.equal(ropeType, 'neox');
  assert.deepEqual(config, {
    model_type: 'qwen2', num_hidden_layers: 28, max_position_embeddings: 32768, hidden_size: 3584, num_attention_heads: 28,
    head_dim: 128, rope_theta: 1000000, layout: 'half',
  });
  assert.equal(readConfig(config, NAMES).spec.layout, 'half');
});

test('linear scaling: factor 4 (and a partial rotation: 32 of 64 dims)', async () => {
  const { config } = await mapped([
    ['general.architecture', T.str, 'stablelm'],
    ['stablelm.context_length', T.u32, 16384],
    ['stablelm.embedding_length', T.u32, 2048],
    ['stablelm.attention.head_count', T.u32, 32],
    ['stablelm.rope.dimension_count', T.u32, 16],
    ['stablelm.rope.scaling.type', T.str, 'linear'],
    ['stablelm.rope.scaling.factor', T.f32, 4],
  ]);
  assert.equal(config.head_dim, 64);
  assert.equal(config.partial_rotary_factor, 0.25);
  assert.equal(config.rope_theta, 10000, 'llama.cpp’s default base');
  assert.deepEqual(config.rope_scaling, { rope_type: 'linear', factor: 4 });
  const { spec } = readConfig(config, NAMES);
  assert.deepEqual(spec.rope_scaling, { rope_type: 'linear', factor: 4 });
  assert.equal(spec.partial_rotary_factor, 0.25);
});

test('rope.scaling.type "none": no scaling block, even with a factor written (llama.cpp applies none)', async () => {
  const { config, notes } = await mapped([...LLAMA.filter(([k]) => k !== 'llama.rope.freq_base'),
    ['llama.rope.freq_base', T.f32, 10000], ['llama.rope.scaling.type', T.str, 'none'], ['llama.rope.scaling.factor', T.f32, 8]]);
  assert.equal(config.rope_theta, 10000);
  assert.equal(config.rope_scaling, undefined);
  assert.ok(notes.some((n) => /rope\.scaling\.type none: the factor 8 is not applied/.test(n)), notes.join('\n'));
});

test('a factor without a type is linear (load_hparams’ default); the older rope.scale_linear key too', async () => {
  const { config } = await mapped([
    ['general.architecture', T.str, 'llama'],
    ['llama.attention.key_length', T.u32, 128],
    ['llama.rope.scale_linear', T.f32, 2],
  ]);
  assert.deepEqual(config.rope_scaling, { rope_type: 'linear', factor: 2 });
});

test('yarn (Qwen3 with rope_scaling yarn, factor 4 over 32768): original context, betas, attention factor', async () => {
  const { config, keysRead } = await mapped([
    ['general.architecture', T.str, 'qwen3'],
    ['qwen3.context_length', T.u32, 131072],
    ['qwen3.embedding_length', T.u32, 4096],
    ['qwen3.attention.head_count', T.u32, 32],
    ['qwen3.attention.key_length', T.u32, 128],
    ['qwen3.rope.freq_base', T.f32, 1000000],
    ['qwen3.rope.scaling.type', T.str, 'yarn'],
    ['qwen3.rope.scaling.factor', T.f32, 4],
    ['qwen3.rope.scaling.original_context_length', T.u32, 32768],
    ['qwen3.rope.scaling.yarn_beta_fast', T.f32, 32],
    ['qwen3.rope.scaling.yarn_beta_slow', T.f32, 1],
    ['qwen3.rope.scaling.yarn_attn_factor', T.f32, 1.5],
  ]);
  assert.deepEqual(config.rope_scaling, {
    rope_type: 'yarn', factor: 4, original_max_position_embeddings: 32768, attention_factor: 1.5, beta_fast: 32, beta_slow: 1,
  });
  assert.equal(keysRead.find((k) => k.key === 'qwen3.rope.scaling.original_context_length').mappedTo,
    'rope_scaling.original_max_position_embeddings');
  assert.equal(readConfig(config, NAMES).spec.rope_scaling.rope_type, 'yarn');
});

test('longrope (Phi-3 mini 128k): partial rotation, original context 4096; the factors are tensors, noted', async () => {
  const { config, notes, ropeType } = await mapped([
    ['general.architecture', T.str, 'phi3'],
    ['phi3.context_length', T.u32, 131072],
    ['phi3.embedding_length', T.u32, 3072],
    ['phi3.attention.head_count', T.u32, 32],
    ['phi3.rope.dimension_count', T.u32, 96],
    ['phi3.rope.scaling.type', T.str, 'longrope'],
    ['phi3.rope.scaling.original_context_length', T.u32, 4096],
    // sqrt(1 + ln(32) / ln(4096)), as convert_hf_to_gguf.py Phi3MiniModel computes it
    ['phi3.rope.scaling.attn_factor', T.f32, Math.sqrt(1 + Math.log(32) / Math.log(4096))],
    ['phi3.attention.sliding_window', T.u32, 262144],
  ], { tensors: [['rope_factors_long.weight', [48], 0, 0], ['rope_factors_short.weight', [48], 0, 192]] });
  assert.equal(ropeType, 'neox');
  assert.equal(config.head_dim, 96);
  assert.equal(config.partial_rotary_factor, undefined, 'all 96 dims of each head rotate');
  assert.equal(config.rope_scaling.rope_type, 'longrope');
  assert.equal(config.rope_scaling.original_max_position_embeddings, 4096);
  assert.ok(Math.abs(config.rope_scaling.attention_factor - 1.1902380714238083) < 1e-6);
  assert.equal(config.sliding_window, 262144);
  assert.ok(notes.some((n) => /rope_factors_short/.test(n)));
});

test('longrope inferred for a phi3 header without rope.scaling.type (older conversions)', async () => {
  const { config } = await mapped([
    ['general.architecture', T.str, 'phi3'],
    ['phi3.context_length', T.u32, 131072],
    ['phi3.rope.scaling.original_context_length', T.u32, 4096],
  ], { tensors: [['rope_factors_long.weight', [48], 0, 0]] });
  assert.deepEqual(config.rope_scaling, { rope_type: 'longrope', original_max_position_embeddings: 4096 });
});

test('M-RoPE (qwen2vl): dimension_sections [16, 24, 24, 0] -> mrope_section [16, 24, 24]', async () => {
  const { config, ropeType } = await mapped([
    ['general.architecture', T.str, 'qwen2vl'],
    ['qwen2vl.context_length', T.u32, 32768],
    ['qwen2vl.embedding_length', T.u32, 3584],
    ['qwen2vl.attention.head_count', T.u32, 28],
    ['qwen2vl.rope.freq_base', T.f32, 1000000],
    ['qwen2vl.rope.dimension_sections', T.arr, [T.i32, [16, 24, 24, 0]]],
  ]);
  assert.equal(ropeType, 'mrope');
  assert.equal(config.model_type, 'qwen2_vl');
  assert.deepEqual(config.rope_scaling, { rope_type: 'mrope', mrope_section: [16, 24, 24] });
  assert.equal(config.layout, 'half');
  const { spec, notes } = readConfig(config, NAMES);
  assert.equal(spec.rope_scaling, undefined, 'text tokens rotate as plain RoPE');
  assert.ok(notes.some((n) => /M-RoPE/.test(n)));
});

test('gemma3 (sliding-window layers with their own base), gpt-oss, deepseek2 (MLA: only qk_rope_head_dim rotates)', async () => {
  const gemma = (await mapped([
    ['general.architecture', T.str, 'gemma3'],
    ['gemma3.attention.key_length', T.u32, 256],
    ['gemma3.rope.freq_base', T.f32, 1000000],
    ['gemma3.rope.freq_base_swa', T.f32, 10000],
    ['gemma3.attention.sliding_window', T.u32, 1024],
  ])).config;
  assert.deepEqual(gemma, { model_type: 'gemma3_text', head_dim: 256, rope_theta: 1000000, rope_local_base_freq: 10000,
    sliding_window: 1024, layout: 'half' });
  const oss = await mapped([['general.architecture', T.str, 'gpt-oss'], ['gpt-oss.attention.key_length', T.u32, 64]]);
  assert.equal(oss.config.model_type, 'gpt_oss');
  assert.equal(oss.ropeType, 'neox');
  const ds = (await mapped([
    ['general.architecture', T.str, 'deepseek2'],
    ['deepseek2.attention.key_length', T.u32, 576],
    ['deepseek2.attention.key_length_mla', T.u32, 192],
    ['deepseek2.rope.dimension_count', T.u32, 64],
  ])).config;
  assert.equal(ds.qk_rope_head_dim, 64);
  assert.equal(ds.qk_nope_head_dim, 128);
  assert.equal(ds.layout, 'interleaved');
  assert.equal(readConfig(ds, NAMES).spec.head_dim, 64);
});

test('a u64 value (as some converters write counts) is read as a number', async () => {
  const { config } = await mapped([['general.architecture', T.str, 'llama'], ['llama.context_length', T.u64, 4096]]);
  assert.equal(config.max_position_embeddings, 4096);
});

test('bad metadata: no general.architecture, a string where a number must be, an unknown scaling type', async () => {
  assert.throws(() => configFromGguf({ 'llama.context_length': 4096 }), ggufError(/no general\.architecture/));
  assert.throws(() => configFromGguf({ 'general.architecture': 'llama', 'llama.context_length': '4096' }),
    ggufError(/llama\.context_length = "4096" is invalid: expected a number/));
  assert.throws(() => configFromGguf({ 'general.architecture': 'llama', 'llama.rope.scaling.type': 'ntk' }),
    ggufError(/unknown: llama\.cpp reads none, linear, yarn and longrope/));
  // The same through a file: the value's GGUF type is a string.
  const header = await readGgufHeader(new Blob([writeGguf([['general.architecture', T.str, 'llama'],
    ['llama.rope.freq_base', T.str, '10000']])]));
  assert.throws(() => configFromGguf(header.metadata), ggufError(/llama\.rope\.freq_base .* expected a number/));
});

test('not GGUF: a config.json, a short file', async () => {
  await assert.rejects(readGgufHeader(new Blob(['{"model_type": "llama"}'])), ggufError(/not a GGUF file: it starts with 7b .*JSON/));
  await assert.rejects(readGgufHeader(new Blob([])), ggufError(/not a GGUF file/));
  await assert.rejects(readGgufHeader(new Blob(['GGUF'])), ggufError(/truncated: the file has 4 bytes/));
  await assert.rejects(readGgufHeader('path.gguf'), ggufError(/expected a File or Blob/));
});

test('unsupported version (1, and a big-endian file)', async () => {
  await assert.rejects(readGgufHeader(new Blob([writeGguf(LLAMA, { version: 1 })])), ggufError(/unsupported GGUF version 1/));
  const big = writeGguf(LLAMA);
  new DataView(big.buffer).setUint32(4, 3, false);
  await assert.rejects(readGgufHeader(new Blob([big])), ggufError(/version 50331648 \(a big-endian file\)/));
});

test('a truncated file: the header ends inside a key-value pair', async () => {
  const bytes = writeGguf(LLAMA);
  await assert.rejects(readGgufHeader(new Blob([bytes.slice(0, bytes.length - 10)])),
    ggufError(/runs past the end of the file \(\d+ bytes\): "tokenizer\.ggml\.tokens" .*truncated/));
  // Cut inside the tensor list.
  const withTensors = writeGguf(LLAMA.slice(0, 3), { tensors: [['token_embd.weight', [4096, 3], 0, 0]] });
  await assert.rejects(readGgufHeader(new Blob([withTensors.slice(0, withTensors.length - 4)])),
    ggufError(/past the end of the file .*the tensor list/));
});

test('a string length that lies (past the end of the file, and past any real string)', async () => {
  const kv = [['general.architecture', T.str, 'llama'], ['llama.context_length', T.u32, 4096]];
  const bytes = writeGguf(kv);
  // general.architecture's value length sits after magic, version, counts (24), key length (8), key (20), type (4).
  const at = 24 + 8 + 'general.architecture'.length + 4;
  const lie = bytes.slice();
  new DataView(lie.buffer).setBigUint64(at, 5000n, true);
  await assert.rejects(readGgufHeader(new Blob([lie])),
    ggufError(/past the end of the file \(\d+ bytes\): "general\.architecture" \(a string declared 5000 bytes long/));
  new DataView(lie.buffer).setBigUint64(at, 1n << 40n, true);
  await assert.rejects(readGgufHeader(new Blob([lie])), ggufError(/a string length in the header \(1099511627776\)/));
});

test('an array length that lies', async () => {
  const bytes = writeGguf([['general.architecture', T.str, 'qwen2vl'],
    ['qwen2vl.rope.dimension_sections', T.arr, [T.i32, [16, 24, 24, 0], 3000]]]);
  await assert.rejects(readGgufHeader(new Blob([bytes])),
    ggufError(/"qwen2vl\.rope\.dimension_sections" \(an array of 3000 int32 items/));
  const huge = writeGguf([['general.architecture', T.str, 'llama'], ['x', T.arr, [T.u8, [1], 2 ** 40]]]);
  await assert.rejects(readGgufHeader(new Blob([huge])), ggufError(/an array length in the header \(1099511627776\)/));
});

test('a key-value or tensor count that cannot fit in the file', async () => {
  await assert.rejects(readGgufHeader(new Blob([writeGguf(LLAMA, { counts: { kv: 1_000_000 } })])),
    ggufError(/declares 1000000 key-value pairs, which cannot fit in a file of \d+ bytes/));
  await assert.rejects(readGgufHeader(new Blob([writeGguf(LLAMA, { counts: { tensors: 2 ** 40 } })])),
    ggufError(/declares 1099511627776 tensors/));
  // A count that fits the file's size but not its contents: the parse runs past the end.
  await assert.rejects(readGgufHeader(new Blob([writeGguf(LLAMA.slice(0, 2), { counts: { kv: 3 } })])),
    ggufError(/past the end of the file/));
});

/** A Blob-like file of `size` bytes whose first bytes are `head` (the rest reads as zeros); it records each slice. */
function fakeFile(head, size) {
  const slices = [];
  return {
    size,
    slices,
    slice(start = 0, end = size) {
      slices.push([start, end]);
      if (end - start > 64 * 2 ** 20) throw new Error(`a slice of ${end - start} bytes was asked for`);
      const bytes = new Uint8Array(Math.max(0, Math.min(end, size) - start));
      bytes.set(head.slice(start, Math.min(end, head.length)));
      return new Blob([bytes]);
    },
  };
}

test('a 10 GB file: only its first slices are read, none past the cap', async () => {
  const head = writeGguf(LLAMA, { tensors: [['token_embd.weight', [4096, 128256], 1, 0]] });
  const file = fakeFile(head, 10e9);
  const header = await readGgufHeader(file);
  assert.equal(header.metadata['general.architecture'], 'llama');
  assert.ok(file.slices.length <= 3, `${file.slices.length} slices`);
  for (const [start, end] of file.slices) {
    assert.ok(end <= GGUF_DEFAULT_MAX_BYTES && end - start <= 2_000_000, `slice ${start}-${end}`);
  }
  assert.ok(header.bytesRead <= 2_000_000);
});

test('a header that does not end within the cap is refused, and nothing past the cap is sliced', async () => {
  // 3 MB of tokens: more than a 1 MiB cap.
  const tokens = Array.from({ length: 150_000 }, (_, i) => `token${String(i).padStart(8, '0')}`);
  const head = writeGguf([['general.architecture', T.str, 'llama'], ['tokenizer.ggml.tokens', T.arr, [T.str, tokens]]]);
  const file = fakeFile(head, 10e9);
  await assert.rejects(readGgufHeader(file, { maxBytes: 2 ** 20 }),
    ggufError(/does not end within the first 1048576 bytes .*"tokenizer\.ggml\.tokens"/));
  for (const [, end] of file.slices) assert.ok(end <= 2 ** 20, `slice ending at ${end}`);
  // With the default cap it is read, in two 2 MB slices.
  const ok = fakeFile(head, 10e9);
  const header = await readGgufHeader(ok);
  assert.equal(header.metadata['tokenizer.ggml.tokens'].length, 150_000);
  assert.deepEqual(ok.slices.slice(1).map(([s]) => s), [0, 2_000_000]);
  await assert.rejects(readGgufHeader(ok, { maxBytes: 64 * 2 ** 20 }), ggufError(/maxBytes = 67108864: expected 1024 to 48000000/));
});

test('block_count is bounded as num_hidden_layers is: the audit’s 1e308 (f64), 2^64 − 1 (u64) and 2.05e9 refused by name', async () => {
  const refused = (shown) => (error) => {
    assert.ok(error instanceof RangeError, error.message);
    assert.deepEqual([error.param, error.code, error.value], ['block_count', 'bad_param', shown]);
    assert.equal(error.message, `gguf: llama.block_count = ${shown} is invalid: expected a whole number of layers in [1, 1024] ` +
      '(posenc reads models of up to 1024 layers)');
    return true;
  };
  const withCount = (type, value) => [...LLAMA.filter(([key]) => key !== 'llama.block_count'), ['llama.block_count', type, value]];
  for (const [type, value, shown] of [[T.f64, 1e308, '1e+308'], [T.u64, 2n ** 64n - 1n, '18446744073709551615'],
    [T.u32, 2.05e9, '2050000000'], [T.u32, 1025, '1025'], [T.u32, 0, '0'], [T.f32, 2.5, '2.5']]) {
    const header = await readGgufHeader(new Blob([writeGguf(withCount(type, value))]));
    assert.throws(() => configFromGguf(header.metadata), refused(shown), shown);
  }
  const { config } = await mapped(withCount(T.u64, 1024n));
  assert.equal(config.num_hidden_layers, 1024);
});

test('per-layer arrays (head_count, sliding_window_pattern) are bounded by their key; dimension_sections to llama.cpp’s 4', async () => {
  const refused = (param, length, allowed) => (error) => {
    assert.ok(error instanceof RangeError, error.message);
    assert.deepEqual([error.param, error.code], [param, 'bad_param']);
    assert.equal(error.message, `gguf: llama.${param} = a list of ${length} entries is invalid: expected ${allowed}`);
    return true;
  };
  const perLayer = 'one entry per layer, at most 1024 (posenc reads models of up to 1024 layers)';
  const arrays = [
    ['attention.head_count', T.u32, 8, perLayer],
    ['attention.sliding_window_pattern', T.bool, true, perLayer],
    ['rope.dimension_sections', T.i32, 16, 'at most 4 entries'],
  ];
  for (const [name, type, entry, allowed] of arrays) {
    const length = name === 'rope.dimension_sections' ? 5 : 1025;
    const header = await readGgufHeader(new Blob([writeGguf([...LLAMA, [`llama.${name}`, T.arr, [type, Array(length).fill(entry)]]])]));
    assert.throws(() => configFromGguf(header.metadata), refused(name, length, allowed), name);
  }
  // One per layer of a 1024-layer model is read (the first layer with heads is shown).
  const { config } = await mapped([...LLAMA, ['llama.attention.head_count', T.arr, [T.u32, [0, ...Array(1023).fill(16)]]]]);
  assert.equal(config.num_attention_heads, 16);
});

test('general.architecture "constructor", "toString", "valueOf", "__proto__", "hasOwnProperty": an architecture like any unknown one', async () => {
  for (const arch of ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty']) {
    const read = await mapped([['general.architecture', T.str, arch], [`${arch}.block_count`, T.u32, 4],
      [`${arch}.attention.head_count`, T.u32, 8], [`${arch}.embedding_length`, T.u32, 512], ['constructor', T.str, 'a key like any other']]);
    assert.equal(read.header.metadata.constructor, 'a key like any other');
    assert.deepEqual(read.config, { model_type: arch, num_hidden_layers: 4, hidden_size: 512, num_attention_heads: 8, head_dim: 64, rope_theta: 10000 });
    assert.equal(read.ropeType, null);
    assert.deepEqual(structuredClone({ config: read.config, keysRead: read.keysRead, notes: read.notes }),
      { config: read.config, keysRead: read.keysRead, notes: read.notes }, arch);
  }
});
