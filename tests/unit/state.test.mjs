// The URL state (web/src/state.js): controls' raw strings <-> typed params <->
// the query of a link. A link reproduces what it was made from; a bad value in
// a link is reported and falls back to its default, so the page always draws.
import test from 'node:test';
import assert from 'node:assert/strict';
import { carryOver, defaultsOf, format, parameterOf, parse, readQuery, toQuery, visibleNames } from '../../web/src/state.js';

// A family's list as the page writes one: encoding keys (the core checks their range) and view settings (the page's limits).
const PARAMETERS = [
  { name: 'd_model', kind: 'int', default: 128 },
  { name: 'base', kind: 'number', default: 10000 },
  { name: 'layout', kind: 'choice', default: 'interleaved', choices: ['interleaved', 'concat'] },
  { name: 'factor', kind: 'optional-number', default: null },
  { name: 'scaled', kind: 'bool', default: false },
  { name: 'beta', kind: 'number', default: 32, when: (p) => p.scaled },
  { name: 'long_factor', kind: 'list', default: null },
  { name: 'dims', view: true, kind: 'dims', default: 'auto' },
  { name: 'n', view: true, kind: 'int', default: 64, min: 1, max: 4096 },
  { name: 'text', view: true, kind: 'text', default: 'the dog chased the cat' },
];
const entries = (query) => new URLSearchParams(query);

test('defaults: every parameter as the text its control shows', () => {
  assert.deepEqual(defaultsOf(PARAMETERS), {
    d_model: '128', base: '10000', layout: 'interleaved', factor: '', scaled: 'false', beta: '32', long_factor: '', dims: 'auto',
    n: '64', text: 'the dog chased the cat',
  });
  assert.equal(format([1, 1.5, 2]), '1, 1.5, 2');
  assert.equal(format(null), '');
});

test('parse: each kind to its type; a missing name takes its default', () => {
  const { params, errors } = parse(PARAMETERS, { d_model: '512', base: '5e5', layout: 'concat', factor: '', scaled: 'true', beta: '0.5',
    long_factor: '[1, 1.5,2]', dims: '0, 3 7', n: '4096' });
  assert.deepEqual(errors, {});
  assert.deepEqual(params, { d_model: 512, base: 500000, layout: 'concat', factor: null, scaled: true, beta: 0.5,
    long_factor: [1, 1.5, 2], dims: [0, 3, 7], n: 4096, text: 'the dog chased the cat' });
});

test('parse: a bad value is an error in the core’s format, and its parameter keeps its default', () => {
  const { params, errors } = parse(PARAMETERS, { d_model: '0x10', n: '4097', layout: 'diagonal', scaled: 'yes', dims: '-1' });
  assert.equal(errors.d_model, 'd_model = 0x10 is invalid: expected an integer');
  assert.equal(params.d_model, 128, 'hexadecimal is not read as 16');
  // A view setting has the page's limits, and its message says they are the page's.
  assert.equal(errors.n, 'n = 4097 is invalid: expected an integer in [1, 4096] (the page\'s limit)');
  assert.equal(params.n, 64);
  assert.equal(errors.layout, 'layout = "diagonal" is invalid: expected one of interleaved, concat');
  assert.equal(errors.scaled, 'scaled = "yes" is invalid: expected true or false');
  assert.match(errors.dims, /^dims = "-1" is invalid/);
  // An encoding key out of the core's range is not the page's to refuse: it parses, and the core answers.
  assert.deepEqual(parse(PARAMETERS, { d_model: '7', base: '-1' }).errors, {});
  assert.equal(parse(PARAMETERS, { d_model: '' }).errors.d_model, 'd_model = (empty) is invalid: expected an integer');
});

test('parse: the error of a parameter that does not apply is dropped', () => {
  assert.deepEqual(parse(PARAMETERS, { beta: 'x' }).errors, {}, 'beta applies only when scaled');
  assert.deepEqual(Object.keys(parse(PARAMETERS, { beta: 'x', scaled: 'true' }).errors), ['beta']);
  assert.ok(!visibleNames(PARAMETERS, { scaled: false }).has('beta'));
  assert.ok(visibleNames(PARAMETERS, { scaled: true }).has('beta'));
});

test('toQuery -> readQuery -> parse gives back the params: only what differs from the defaults is written', () => {
  const raw = { d_model: '512', base: '500000', layout: 'concat', factor: '8', scaled: 'true', beta: '4', long_factor: '1, 2', dims: '0, 3',
    n: '100', text: 'a b, c & d' };
  const { params } = parse(PARAMETERS, raw);
  const query = toQuery(PARAMETERS, params);
  // Lists compactly; a sentence as it was typed (its ", " kept: the box shows it again as it was).
  assert.equal(query, '?d_model=512&base=500000&layout=concat&factor=8&scaled=true&beta=4&long_factor=1,2&dims=0,3&n=100&text=a+b,+c+%26+d');
  const back = readQuery(PARAMETERS, entries(query));
  assert.deepEqual(back.warnings, []);
  assert.deepEqual(parse(PARAMETERS, back.raw).params, params);
  // The defaults make an empty query; a parameter that does not apply is not written.
  assert.equal(toQuery(PARAMETERS, parse(PARAMETERS, {}).params), '');
  assert.equal(toQuery(PARAMETERS, parse(PARAMETERS, { beta: '4' }).params), '');
});

test('readQuery: a bad value or an unknown key is a warning, the value left out so the default is used', () => {
  const { raw, warnings } = readQuery(PARAMETERS, entries('d_model=abc&n=0&layout=concat&bogus=1&rope_theta=5&view=heatmap'),
    { shellKeys: ['view'], familyLabel: 'sinusoidal', otherKeys: new Set(['rope_theta']) });
  assert.deepEqual(raw, { layout: 'concat' });
  assert.deepEqual(warnings, [
    { param: 'd_model', message: 'd_model = abc is invalid: expected an integer; using the default "128"' },
    { param: 'n', message: 'n = 0 is invalid: expected an integer in [1, 4096] (the page\'s limit); using the default "64"' },
    { param: 'bogus', message: 'bogus = "1" ignored: unknown parameter' },
    { param: 'rope_theta', message: 'rope_theta = "5" ignored: sinusoidal has no parameter rope_theta' },
  ]);
  assert.equal(parse(PARAMETERS, raw).params.d_model, 128);
});

test('carryOver: the settings both families share that the reader changed, and that parse in the new one', () => {
  const other = [
    { name: 'd_model', kind: 'int', default: 64 },
    { name: 'n', view: true, kind: 'int', default: 32, min: 1, max: 1024 },
    { name: 'text', view: true, kind: 'text', default: 'the dog chased the cat' },
    { name: 'base', view: true, kind: 'number', default: 10000, min: 1, max: 1e9 },
  ];
  // d_model changed: carried. n 4096 is past the other family's view limit: dropped. text unchanged: not carried.
  // base is a model key here and a view setting there: not the same setting.
  assert.deepEqual(carryOver(PARAMETERS, { d_model: '256', n: '4096', text: 'the dog chased the cat', base: '500' }, other), { d_model: '256' });
  assert.deepEqual(carryOver(PARAMETERS, { n: '512' }, other), { n: '512' });
});

test('parameterOf: an error’s .param, as the page names its control', () => {
  const list = [{ name: 'seq_len' }, { name: 'd_model' }];
  assert.equal(parameterOf(list, { param: 'seqLen' }), 'seq_len');
  assert.equal(parameterOf(list, { param: 'd_model' }), 'd_model');
  assert.equal(parameterOf(list, { param: 'n_heads' }), null);
  assert.equal(parameterOf(list, new Error('no param')), null);
});

// JavaScript's built-in names are ordinary keys (issue 35, finding 4): a link's key or value named like
// Object.prototype's members is a key like any other, and a parameter so named reads only its own value.
const BUILT_IN_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];

test('URL keys named constructor, __proto__, toString, valueOf, hasOwnProperty are unknown keys, warned of and left out', () => {
  const { raw, warnings } = readQuery(PARAMETERS, entries(BUILT_IN_NAMES.map((k) => `${k}=1`).join('&')));
  assert.deepEqual(Object.keys(raw), []);
  assert.equal(Object.getPrototypeOf(raw), Object.prototype);
  assert.deepEqual(warnings.map((w) => [w.param, w.message]), BUILT_IN_NAMES.map((k) => [k, `${k} = "1" ignored: unknown parameter`]));
  // As values, they are text like any other: a choice refuses them, a text keeps them.
  const read = readQuery(PARAMETERS, entries('layout=constructor&text=__proto__'));
  assert.deepEqual(read.raw, { text: '__proto__' });
  assert.match(read.warnings[0].message, /^layout = "constructor" is invalid: expected one of interleaved, concat/);
});

test('parameters named like Object.prototype’s members read their own values only, and errors naming them find them', () => {
  const named = BUILT_IN_NAMES.filter((k) => k !== '__proto__').map((name) => ({ name, kind: 'text', default: `default ${name}` }));
  // Absent from raw: each takes its default (not the function Object.prototype has under that name).
  assert.deepEqual(parse(named, {}).params, Object.fromEntries(named.map((p) => [p.name, p.default])));
  assert.deepEqual(carryOver(named, {}, named), {});
  assert.deepEqual(parse(named, { toString: 'mine' }).params.toString, 'mine');
  for (const p of named) assert.equal(parameterOf(named, { param: p.name }), p.name);
  assert.equal(parameterOf(PARAMETERS, { param: 'constructor' }), null);
});
