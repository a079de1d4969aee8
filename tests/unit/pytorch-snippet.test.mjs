// The model lab's PyTorch snippet (export.js pytorchSnippet): valid-looking Python whose numbers read back as the very
// float32 values the core gave, one tensor per layer kind, and the one-line check it offers.
import test from 'node:test';
import assert from 'node:assert/strict';
import { pytorchSnippet } from '../../web/src/export.js';
import { pythonFloat, pythonInt, pythonString } from '../../web/src/lib/python.js';

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

test('pythonString writes a one-line Python literal, escaped as repr() escapes (checked by hand against CPython 3)', () => {
  const cases = [
    ['gemma4_text', '"gemma4_text"'],
    ['org/x\nimport os; os.system("id")  # ', '"org/x\\nimport os; os.system(\\"id\\")  # "'],
    ['a\rb\tc\\d\'e', '"a\\rb\\tc\\\\d\'e"'],
    ['line\u2028para\u2029', '"line\\u2028para\\u2029"'],
    ['\u0000\u001b\u007f\u0085\u00a0\u00ad', '"\\x00\\x1b\\x7f\\x85\\xa0\\xad"'],
    ['lone \ud800 surrogate', '"lone \\ud800 surrogate"'],
    ['tag \u{e0001} and 😀 é 模型', '"tag \\U000e0001 and 😀 é 模型"'],
  ];
  for (const [text, literal] of cases) assert.equal(pythonString(text), literal, JSON.stringify(text));
  for (const [text] of cases) assert.doesNotMatch(pythonString(text), /[\n\r\u2028\u2029]/);
});

test('pythonFloat and pythonInt write Python number literals, the non-finite ones as float("...")', () => {
  assert.deepEqual([1, 0.5, -0, 1e21, 1.5e-7, NaN, Infinity, -Infinity].map(pythonFloat),
    ['1.0', '0.5', '-0.0', '1e+21', '1.5e-7', 'float("nan")', 'float("inf")', '-float("inf")']);
  assert.equal(pythonInt(8192), '8192');
  assert.throws(() => pythonInt(1.5), TypeError);
  assert.throws(() => pythonInt('8192\nimport os'), TypeError);
});

test('a model name with a newline, a quote or a backslash stays one string literal: the snippet keeps its lines', () => {
  const kinds = [{ name: 'full_attention', layers: [0, 1], rope: { inv_freq: Float32Array.from([1, 0.5, NaN, Infinity]), attention_factor: 1 } }];
  const snippet = (model) => pytorchSnippet({ model, seqLen: 4096, version: '0.1.0', kinds }).split('\n');
  const plain = snippet('x');
  const modelLine = plain.indexOf('model = "x"');
  assert.ok(modelLine > 0);
  const hostile = {
    'org/x\nimport os; os.system("id")  # ': 'model = "org/x\\nimport os; os.system(\\"id\\")  # "',
    'a\rimport os': 'model = "a\\rimport os"',
    'a\u2028import os': 'model = "a\\u2028import os"',
    '"; import os; "': 'model = "\\"; import os; \\""',
    'x\\': 'model = "x\\\\"',
  };
  for (const [model, line] of Object.entries(hostile)) {
    const lines = snippet(model);
    // Every line but the model's is the plain snippet's, and no line starts code of the name's own.
    assert.deepEqual(lines.filter((_, i) => i !== modelLine), plain.filter((_, i) => i !== modelLine), JSON.stringify(model));
    assert.equal(lines[modelLine], line);
    assert.ok(!lines.some((l) => /^\s*import os/.test(l)), JSON.stringify(model));
  }
  assert.match(plain.join('\n'), /^ {8}1\.0, 0\.5, float\("nan"\), float\("inf"\),$/m);
});
