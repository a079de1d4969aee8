// The model lab's PyTorch snippet (export.js pytorchSnippet): valid-looking Python whose numbers read back as the very
// float32 values the core gave, one tensor per layer kind, and the one-line check it offers.
import test from 'node:test';
import assert from 'node:assert/strict';
import { pytorchSnippet } from '../../web/src/export.js';

test('each layer kind becomes a float32 tensor whose literals read back as the same float32 numbers', () => {
  const sliding = Float32Array.from({ length: 7 }, (_, i) => 10000 ** (-i / 7));
  const full = Float32Array.from([1, 0.1, 0, 0]);
  const text = pytorchSnippet({ model: 'gemma4_text', seqLen: 8192, version: 'posenc 0.1.0', kinds: [
    { name: 'sliding_attention', layers: [0, 1, 2, 3, 4, 6, 7, 8, 9, 10], rope: { inv_freq: sliding, attention_factor: 1 } },
    { name: 'full_attention', layers: [5, 11], rope: { inv_freq: full, attention_factor: 1.25 } }] });
  assert.match(text, /^import torch$/m);
  const tensor = (name) => {
    const body = text.match(new RegExp(`"${name}": torch\\.tensor\\(\\[[^\\n]*\\n([\\s\\S]*?)\\n    \\], dtype=torch\\.float32\\)`));
    assert.ok(body, name);
    return body[1].split(/[\s,]+/).filter(Boolean).map(Number);
  };
  assert.deepEqual(tensor('sliding_attention').map(Math.fround), [...sliding]);
  assert.deepEqual(tensor('full_attention'), [1, Math.fround(0.1), 0, 0].map((x) => Number(x.toPrecision(9))));
  assert.match(text, /# layers 0, 1, 2, 3, 4, 6, 7, 8, …/);
  assert.match(text, /attention_factor = \{"sliding_attention": 1\.0, "full_attention": 1\.25\}/);
  assert.match(text, /torch\.testing\.assert_close\(my_inv_freq\.float\(\)\.cpu\(\), inv_freq\["sliding_attention"\], rtol=1e-6, atol=0\)/);
  // Every number is a Python float literal (1.0, not 1), so the tensors are float32 whatever their values.
  const literals = text.split('\n').filter((line) => /^ {8}\S/.test(line)).flatMap((line) => line.split(/[\s,]+/).filter(Boolean));
  assert.equal(literals.length, sliding.length + full.length);
  for (const literal of literals) assert.match(literal, /[.e]/, literal);
});
