// JavaScript's built-in names as input (issue 35, finding 4): a model_type, layer type, rope_type or key named
// "constructor", "__proto__", "toString", "valueOf" or "hasOwnProperty" is an ordinary string to every config reader
// (web/src/config: hf-config.js readConfig, profile.js readProfile; gguf.js has its own test in gguf.test.mjs). Each
// reading is either a normal one (an unknown model type read as unknown) or an Error with .param, and what it returns
// is plain data: no function anywhere (a table's inherited member taken for an entry), so the engine's worker can send
// it to the page (structured clone). The core's names are handed in as model-config.js does with describe()'s.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readConfig } from '../../web/src/config/hf-config.js';
import { readProfile } from '../../web/src/config/profile.js';

const NAMES = {
  familyTypes: ['sinusoidal', 'learned', 'none', 'rope', 'xpos', 'alibi', 't5', 'shaw', 'transformer_xl', 'kerple', 'deberta', 'fire', 'cope'],
  ropeTypes: ['default', 'linear', 'dynamic', 'ntk', 'yarn', 'llama3', 'longrope', 'proportional'],
};
const BUILT_IN_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];

/** Asserts `value` is plain data: no function at any depth, and structuredClone copies it as it is. */
function assertPlainData(value, label) {
  const walk = (v, path) => {
    assert.notEqual(typeof v, 'function', `${label}: ${path} is a function`);
    if (v !== null && typeof v === 'object' && !ArrayBuffer.isView(v)) {
      assert.ok([Object.prototype, Array.prototype].includes(Object.getPrototypeOf(v)), `${label}: ${path} has another prototype`);
      for (const key of Object.keys(v)) walk(v[key], `${path}.${key}`);
    }
  };
  walk(value, 'result');
  assert.deepEqual(structuredClone(value), value, label);
}

/** A config from JSON text, as the page parses a paste: a "__proto__" key is then the object's own key. */
const json = (object) => JSON.parse(JSON.stringify(object).replaceAll('"KEY"', '"__proto__"'));

test('a model_type named like a built-in is an unknown model type: read as any unknown decoder with heads (it rotates)', () => {
  for (const name of BUILT_IN_NAMES) {
    const config = { model_type: name, hidden_size: 512, num_attention_heads: 8 };
    for (const [label, pasted] of [['whole', config], ['text_config', { model_type: 'llava', text_config: config }]]) {
      const read = readConfig(pasted, NAMES);
      assertPlainData(read, `${name} ${label}`);
      assert.deepEqual(read.spec, { type: 'rope', head_dim: 64, layout: 'half' }, `${name} ${label}`);
    }
    // A learned-table reading looks the model type up too (RoBERTa's pad offset): an unknown one has none.
    const learned = readConfig({ model_type: name, position_embedding_type: 'absolute', hidden_size: 64, max_position_embeddings: 512 }, NAMES);
    assertPlainData(learned, `${name} learned`);
    assert.deepEqual(learned.spec, { type: 'learned', d_model: 64, max_position_embeddings: 512 });
  }
});

test('readProfile: a built-in model_type has no interval rule and no default window (audit: TypeError, or a function as the window)', () => {
  for (const name of BUILT_IN_NAMES) {
    const plain = readProfile({ model_type: name, num_hidden_layers: 4, head_dim: 64 }, NAMES);
    assertPlainData(plain, name);
    assert.deepEqual(plain.kinds.map((k) => [k.name, k.layers, k.window]), [['full_attention', [0, 1, 2, 3], { kind: 'global' }]], name);
    assert.deepEqual(plain.layers, [0, 0, 0, 0]);
    // Sliding layers without a sliding_window: a known model has its class's default window, an unknown one none.
    const sliding = readProfile({ model_type: name, num_hidden_layers: 2, head_dim: 64, layer_types: ['sliding_attention', 'full_attention'] }, NAMES);
    assertPlainData(sliding, name);
    assert.deepEqual(sliding.kinds.map((k) => [k.name, k.window]), [['sliding_attention', { kind: 'global' }], ['full_attention', { kind: 'global' }]]);
  }
});

test('a layer type named like a built-in is refused as an unknown layer type (.param config), not remapped', () => {
  for (const name of BUILT_IN_NAMES) {
    assert.throws(() => readProfile({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64, layer_types: ['full_attention', name] }, NAMES),
      (error) => error.param === 'config' && error.message.startsWith(`config: layer_types[1] = "${name}" is not a layer type posenc knows`), name);
  }
});

test('a rope_type named like a built-in is kept as the text it is (the core refuses it by name); a by-layer-type key is data', () => {
  for (const name of BUILT_IN_NAMES) {
    const read = readConfig({ model_type: 'llama', head_dim: 64, rope_scaling: { rope_type: name, factor: 2 } }, NAMES);
    assertPlainData(read, name);
    assert.deepEqual(read.spec.rope_scaling, { rope_type: name, factor: 2 });
    // v5 rope_parameters by layer type, with an entry under the name (JSON: "__proto__" is an own key there).
    const config = json({ model_type: 'llama', head_dim: 64, num_hidden_layers: 2,
      rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 500000 }, [name === '__proto__' ? 'KEY' : name]: { rope_type: 'linear', factor: 4 } } });
    const profile = readProfile(config, NAMES);
    assertPlainData(profile, name);
    assert.deepEqual(profile.kinds.map((k) => [k.name, k.spec.rope_parameters]), [['full_attention', { rope_type: 'default', rope_theta: 500000 }]]);
  }
});

test('a key named like a built-in is a key: ignored in a whole config.json, refused by name in a positional excerpt', () => {
  for (const name of BUILT_IN_NAMES) {
    const key = name === '__proto__' ? 'KEY' : name;
    const read = readConfig(json({ model_type: 'llama', head_dim: 64, [key]: { rope_theta: 1 } }), NAMES);
    assertPlainData(read, name);
    // Listed as a key of the config ("hasOwnProperty" as a positional one: it has "rope" in it, as the pattern reads it).
    assert.deepEqual([...read.ignored, ...read.unmodelled.map((u) => u.key)], [name]);
    assert.deepEqual(read.spec, { type: 'rope', head_dim: 64, layout: 'half' });
    assert.throws(() => readConfig(json({ head_dim: 64, [key]: 1 }), NAMES),
      (error) => error.param === 'config' && error.message.startsWith(`config: unknown key "${name}"`), name);
  }
});

test('"__proto__" in a pasted scaling block is data: an own key of the spec (which the core refuses by name), never its prototype', () => {
  const config = JSON.parse('{"model_type": "llama", "head_dim": 64, "num_hidden_layers": 2, "rope_scaling": ' +
    '{"rope_type": "linear", "factor": 2, "__proto__": {"rope_type": "yarn", "beta_fast": 32}}}');
  for (const [label, spec] of [['readConfig', readConfig(config, NAMES).spec], ['readProfile', readProfile(config, NAMES).kinds[0].spec]]) {
    const block = spec.rope_scaling;
    assert.equal(Object.getPrototypeOf(block), Object.prototype, label);
    assert.deepEqual(Object.keys(block), ['rope_type', 'factor', '__proto__'], label);
    assert.equal(block.beta_fast, undefined, label);
    assert.deepEqual(JSON.parse(JSON.stringify(block)), JSON.parse('{"rope_type": "linear", "factor": 2, "__proto__": {"rope_type": "yarn", "beta_fast": 32}}'));
  }
});
