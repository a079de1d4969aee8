// The config reader (web/src/config/hf-config.js readConfig) on configs written here in
// the published Hugging Face formats (the keys each model's config.json has, a
// few of them each): what it reads them as is what transformers' modeling code
// does with the same keys. The core's names are handed in as model-config.js
// does with describe()'s; here they are DESIGN.md's (tests/wasm checks that the
// page's names are the core's).
import test from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CONFIG_DEPTH, parseConfigText, readConfig } from '../../web/src/config/hf-config.js';

const NAMES = {
  familyTypes: ['sinusoidal', 'learned', 'none', 'rope', 'xpos', 'alibi', 't5', 'shaw', 'transformer_xl', 'kerple', 'deberta', 'fire', 'cope'],
  ropeTypes: ['default', 'linear', 'dynamic', 'ntk', 'yarn', 'llama3', 'longrope'],
};
const read = (config) => readConfig(config, NAMES);

test('Llama 3.1 (rope_scaling llama3): head_dim = hidden_size / num_attention_heads, the scaling block as it is, rotate_half', () => {
  const config = {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8,
    num_hidden_layers: 32, intermediate_size: 14336, max_position_embeddings: 131072, rope_theta: 500000.0, vocab_size: 128256,
    rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  };
  const { spec, ignored, unmodelled } = read(config);
  assert.deepEqual(spec, {
    type: 'rope', head_dim: 4096 / 32, rope_theta: 500000, max_position_embeddings: 131072, layout: 'half',
    rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
  });
  // num_key_value_heads shares k and v across heads: it does not change a head's positions.
  assert.deepEqual([...ignored].sort(), ['architectures', 'intermediate_size', 'num_hidden_layers', 'num_key_value_heads', 'vocab_size']);
  assert.deepEqual(unmodelled, []);
});

test('transformers v5 rope_parameters (rope_theta inside the block) is kept as the v5 block', () => {
  const { spec } = read({
    model_type: 'qwen2', hidden_size: 3584, num_attention_heads: 28, max_position_embeddings: 131072, vocab_size: 152064,
    rope_parameters: { rope_type: 'yarn', rope_theta: 1000000.0, factor: 4.0, original_max_position_embeddings: 32768 },
  });
  assert.equal(spec.type, 'rope');
  assert.equal(spec.head_dim, 3584 / 28);
  assert.deepEqual(spec.rope_parameters, { rope_type: 'yarn', rope_theta: 1000000, factor: 4, original_max_position_embeddings: 32768 });
  assert.equal(spec.rope_scaling, undefined);
  assert.equal(spec.rope_theta, undefined, 'the base is the block’s, not repeated beside it');
});

test('GPT-NeoX (rotary_pct, rotary_emb_base): a quarter of each 64-wide head rotates, base 10000, rotate_half', () => {
  const { spec, used } = read({
    architectures: ['GPTNeoXForCausalLM'], model_type: 'gpt_neox', hidden_size: 768, num_attention_heads: 12, num_hidden_layers: 12,
    rotary_pct: 0.25, rotary_emb_base: 10000, max_position_embeddings: 2048, vocab_size: 50304, use_parallel_residual: true,
  });
  assert.deepEqual(spec, { type: 'rope', head_dim: 64, rope_theta: 10000, partial_rotary_factor: 0.25, max_position_embeddings: 2048,
    layout: 'half' });
  assert.ok(used.includes('rotary_pct') && used.includes('rotary_emb_base'));
});

test('GPT-J (rotary_dim, n_embd, n_head): 64 of each 256-wide head rotate, in interleaved pairs (rotate_every_two)', () => {
  const { spec } = read({ model_type: 'gptj', n_embd: 4096, n_head: 16, n_layer: 28, rotary_dim: 64, n_positions: 2048, vocab_size: 50400 });
  assert.equal(spec.head_dim, 4096 / 16);
  assert.equal(spec.rotary_dim, 64);
  assert.equal(spec.max_position_embeddings, 2048);
  assert.equal(spec.layout, 'interleaved');
});

test('Phi-3 128k (legacy rope_scaling type "su") is read as longrope', () => {
  const short = Array.from({ length: 48 }, () => 1);
  const long = Array.from({ length: 48 }, (_, i) => 1 + i / 8);
  const { spec } = read({
    model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32, max_position_embeddings: 131072,
    original_max_position_embeddings: 4096, rope_theta: 10000.0, vocab_size: 32064,
    rope_scaling: { type: 'su', short_factor: short, long_factor: long },
  });
  assert.equal(spec.head_dim, 96);
  assert.equal((spec.rope_scaling.rope_type ?? spec.rope_scaling.type), 'longrope');
  assert.deepEqual(spec.rope_scaling.long_factor, long);
});

test('BLOOM (n_head, no positional keys): ALiBi over its 16 heads, causal (a decoder)', () => {
  const { spec } = read({ architectures: ['BloomForCausalLM'], model_type: 'bloom', n_head: 16, hidden_size: 1024, n_layer: 24,
    vocab_size: 250880 });
  assert.equal(spec.type, 'alibi');
  assert.equal(spec.n_heads, 16);
  assert.equal(spec.causal, true);
});

test('T5 (relative_attention_num_buckets, relative_attention_max_distance): the encoder’s bidirectional buckets', () => {
  const { spec, ignored } = read({
    architectures: ['T5ForConditionalGeneration'], model_type: 't5', d_model: 512, d_kv: 64, num_heads: 8, num_layers: 6,
    relative_attention_num_buckets: 32, relative_attention_max_distance: 128, is_encoder_decoder: true, vocab_size: 32128,
  });
  assert.equal(spec.type, 't5');
  assert.equal(spec.num_buckets, 32);
  assert.equal(spec.max_distance, 128);
  assert.equal(spec.n_heads, 8);
  assert.equal(spec.bidirectional, true);
  assert.ok(ignored.includes('d_model') && ignored.includes('vocab_size'));
});

test('GPT-2 (n_positions, n_embd): a learned table of 1024 rows of 768', () => {
  const { spec } = read({ architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', n_positions: 1024, n_ctx: 1024, n_embd: 768,
    n_head: 12, n_layer: 12, vocab_size: 50257 });
  assert.equal(spec.type, 'learned');
  assert.equal(spec.d_model, 768);
  assert.equal(spec.max_position_embeddings, 1024);
});

test('a posenc spec and a bare scaling block pass through; a sliding window is handed on, chunked attention named as not modelled', () => {
  assert.deepEqual(read({ type: 'kerple', variant: 'power' }).spec, { type: 'kerple', variant: 'power' });
  assert.deepEqual(read({ rope_type: 'linear', factor: 2 }).spec, { type: 'rope', rope_scaling: { rope_type: 'linear', factor: 2 } });
  // Mistral's sliding window is handed on for the spectrum to mark; Llama 4's chunked attention is named, not modelled.
  const mistral = read({ model_type: 'mistral', hidden_size: 4096, num_attention_heads: 32, rope_theta: 10000.0,
    max_position_embeddings: 32768, sliding_window: 4096, vocab_size: 32000 });
  assert.equal(mistral.spec.head_dim, 128);
  assert.deepEqual(mistral.sliding, { window: 4096 });
  const chunked = read({ model_type: 'llama4_text', hidden_size: 5120, num_attention_heads: 40, rope_theta: 500000.0,
    attention_chunk_size: 8192, vocab_size: 202048 });
  assert.deepEqual(chunked.unmodelled.map((u) => u.key), ['attention_chunk_size']);
  assert.equal(chunked.spec.head_dim, 128);
});

test('Llama 4 and Cohere2 rotate interleaved pairs (view_as_complex / rotate_half over x[::2], x[1::2]); Qwen3-VL’s mrope_interleaved leaves the text tokens’ block', () => {
  const llama4 = read({ model_type: 'llama4', text_config: { model_type: 'llama4_text', head_dim: 128, hidden_size: 5120, num_attention_heads: 40,
    rope_theta: 500000.0, num_hidden_layers: 48 } });
  assert.equal(llama4.spec.layout, 'interleaved');
  const cohere2 = read({ model_type: 'cohere2', hidden_size: 4096, num_attention_heads: 32, rope_theta: 50000.0, num_hidden_layers: 32 });
  assert.equal(cohere2.spec.layout, 'interleaved');
  assert.equal(read({ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, rope_theta: 500000.0 }).spec.layout, 'half');
  // A text token has equal time, height and width positions: with or without interleaved sections it rotates as plain RoPE.
  const qwen3vl = read({ model_type: 'qwen3_vl', text_config: { model_type: 'qwen3_vl_text', head_dim: 128, hidden_size: 4096, num_attention_heads: 32,
    rope_theta: 5000000, num_hidden_layers: 36, rope_scaling: { mrope_interleaved: true, mrope_section: [24, 20, 20], rope_type: 'default' } } });
  assert.deepEqual(qwen3vl.spec, { type: 'rope', head_dim: 128, rope_theta: 5000000, layout: 'half' });
});

test('what it refuses: a misspelt positional key (naming the ones it reads), a non-object, bad JSON', () => {
  assert.throws(() => read({ rope_theta: 500, rope_thta: 1 }), (e) => e.param === 'config' && /unknown key "rope_thta"; positional keys: head_dim/.test(e.message));
  assert.throws(() => read([1, 2]), /expected a JSON object/);
  assert.throws(() => read({ hidden_size: 100, num_attention_heads: 3 }), /hidden_size = 100 is not a multiple of num_attention_heads = 3/);
  assert.throws(() => parseConfigText('{"rope_theta": 1e4,}'), /^Error: config: not valid JSON \(/);
  assert.deepEqual(parseConfigText('{"rope_theta": 1e4}'), { rope_theta: 10000 });
});

test('a paste nested thousands of levels deep is refused before it is parsed, naming the config and where', () => {
  // (written as text: JSON.stringify itself overflows the stack at this depth)
  const deep = `${'{"rope_type": "linear", "factor": 2, "nested": '.repeat(5000)}{}${'}'.repeat(5000)}`;
  const text = `{"model_type": "llama", "head_dim": 128, "rope_scaling": ${deep}}`;
  const error = (() => { try { parseConfigText(text); } catch (e) { return e; } })();
  assert.equal(error.param, 'config');
  // the 33rd opening brace: the outer object, rope_scaling, then 31 levels of nested
  assert.equal(error.message, `config: nested more than ${MAX_CONFIG_DEPTH} levels deep (at character ${nthBrace(text, MAX_CONFIG_DEPTH + 1)}); ` +
    "a model's config.json nests three or four");
  // 32 levels read; brackets inside strings do not count
  let ok = { factor: 2 };
  for (let k = 1; k < MAX_CONFIG_DEPTH; k++) ok = { nested: ok };
  assert.deepEqual(parseConfigText(JSON.stringify(ok)), ok);
  assert.deepEqual(parseConfigText(JSON.stringify({ note: '{'.repeat(100) + '\\"[[[' })), { note: `${'{'.repeat(100)}\\"[[[` });
});

/** The index of text's n-th '{'. */
function nthBrace(text, n) {
  let at = -1;
  for (let k = 0; k < n; k++) at = text.indexOf('{', at + 1);
  return at;
}
