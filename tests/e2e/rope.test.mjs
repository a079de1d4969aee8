// The rotary family in real headless Chromium: every model preset draws its
// views, a pasted config.json changes them, bad values are named beside their
// control, and a link reproduces the view.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, startPlayground } from './browser.mjs';
import { PRESETS } from '../../web/src/config/presets.js';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

const legendOf = (page, id) => page.innerText(`#${id} .figure`);

test('each model preset renders the spectrum and the decay plot without console errors', async () => {
  const page = await playground.open('?encoding=rope');
  for (const preset of PRESETS) {
    await page.selectOption('#control-preset', preset.id);
    await page.waitForFunction((id) => location.search.includes(`preset=${id}`), preset.id);
    const spectrum = await legendOf(page, 'spectrum');
    assert.match(spectrum, /unscaled \(rope_theta only\)/, preset.id);
    const scaledCurve = /[^n]scaled \((linear|ntk|dynamic|yarn|llama3|longrope)\)/;
    if (preset.config.rope_scaling) assert.match(spectrum, scaledCurve, `${preset.id}: a scaled curve`);
    else assert.doesNotMatch(spectrum, scaledCurve, `${preset.id}: no scaled curve`);
    assert.ok(await page.locator('#decay .figure svg').count() >= 2, `${preset.id}: decay plots`);
    assert.match(await legendOf(page, 'decay'), /training length L/, preset.id);
  }
  // DeepSeek-V3 (the last one): the 64-dim rope slice; Phi-3: head_dim 3072 / 32 = 96.
  assert.equal(await page.inputValue('#control-head_dim'), '64');
  await page.selectOption('#control-preset', 'phi-3-mini-128k');
  await page.waitForFunction(() => location.search.includes('preset=phi-3'));
  assert.equal(await page.inputValue('#control-head_dim'), '96');
  assert.deepEqual(page.problems, []);
});

test('the rotation view draws 11 equal arrows whose angle grows by theta_i per position', async () => {
  const page = await playground.open('?encoding=rope&pair=8');
  assert.equal(await page.locator('#rotation [aria-label="arrow"] path').count(), 11);
  // theta_8 = 10000^(-16/128) = 0.316228 rad = 18.1185 degrees per token.
  assert.match(await page.textContent('#rotation .note'), /θᵢ = 0\.316228 rad \(18\.12°\) per token; positions 0–10/);
  await page.fill('#control-start', '100000');
  await page.waitForFunction(() => document.querySelector('#rotation .note').textContent.includes('100000–100010'));
  assert.deepEqual(page.problems, []);
});

test('pasting a config.json shows its encoding; bad JSON and unknown keys get a message', async () => {
  const page = await playground.open('?encoding=rope');
  assert.doesNotMatch(await legendOf(page, 'spectrum'), /[^n]scaled \(/);
  await page.click('#paste-config summary');
  await page.fill('#config-text', '{"rope_theta": 10000, "head_dim": 64,');
  await page.click('#config-apply');
  await page.waitForFunction(() => document.getElementById('error-config').textContent !== '');  // read in the worker
  assert.match(await page.textContent('#error-config'), /^config: not valid JSON/);
  await page.fill('#config-text', JSON.stringify({ model_type: 'llama', vocab_size: 32000, hidden_size: 2048, num_attention_heads: 32,
    rope_theta: 500000, max_position_embeddings: 32768,
    rope_scaling: { rope_type: 'yarn', factor: 8, original_max_position_embeddings: 4096 } }));
  await page.click('#config-apply');
  await page.waitForFunction(() => document.querySelector('#spectrum .figure').innerText.includes('scaled (yarn)'));
  assert.equal(await page.textContent('#error-config'), '');
  // The notes follow once every view has its new figure (main.js awaits stage.change), not with the first.
  await page.waitForFunction(() => document.querySelector('#config-notes').textContent !== '');
  const note = await page.textContent('#config-notes');
  assert.match(note, /head_dim = 2048 \/ 32 = 64/);
  assert.match(note, /read: model_type, hidden_size, num_attention_heads, rope_theta, max_position_embeddings, rope_scaling/);
  assert.match(note, /ignored \(not positional\): vocab_size$/);
  assert.equal(await page.inputValue('#control-head_dim'), '64');
  assert.equal(await page.inputValue('#control-rope_type'), 'yarn');
  // An unknown key inside rope_scaling: the core names it and lists the accepted keys.
  await page.fill('#config-text', '{"rope_scaling": {"rope_type": "yarn", "factor": 8, "beta": 2}}');
  await page.click('#config-apply');
  await page.waitForFunction(() => document.getElementById('error-config').textContent !== '');  // the engine answers asynchronously
  assert.match(await page.textContent('#error-config'), /unknown key "beta"; accepted keys: rope_type, type, factor/);
  assert.equal(await page.inputValue('#control-rope_type'), 'yarn', 'a rejected config leaves the controls alone');
  assert.deepEqual(page.problems, []);
});

test('bad rotary values are named beside their control; other views keep drawing', async () => {
  const page = await playground.open('?encoding=rope&rope_type=linear&factor=2');
  await page.fill('#control-factor', '0.5');
  await page.waitForFunction(() => document.getElementById('error-factor').textContent !== '');
  assert.equal(await page.textContent('#error-factor'), 'factor = 0.5 is invalid: expected a finite number >= 1', 'the core\'s rule');
  await page.fill('#control-factor', '2');
  await page.fill('#control-pair', '70');
  await page.waitForFunction(() => document.getElementById('error-pair').textContent !== '');
  assert.equal(await page.textContent('#error-pair'), 'pair = 70 is invalid: expected an integer in [0, 63] (rotary_dim / 2 = 64 pairs)');
  assert.equal(await page.textContent('#error-factor'), '');
  // The spectrum still follows the model while the rotation view waits for a good pair.
  const spectrum = await page.innerHTML('#spectrum .figure');
  await page.fill('#control-rope_theta', '500000');
  await page.waitForFunction((old) => document.querySelector('#spectrum .figure').innerHTML !== old, spectrum);
  assert.match(await page.textContent('#error-pair'), /^pair = 70/, 'the pair error stays until it is fixed');
  assert.deepEqual(page.problems, []);
});

test('a preset link reproduces the view after a reload, and view settings keep the preset', async () => {
  const page = await playground.newPage();
  await openPlayground(playground, page, '?encoding=rope');
  await page.selectOption('#control-preset', 'llama-3.1-8b');
  await page.fill('#control-pair', '30');
  await page.waitForFunction(() => location.search.includes('pair=30'));
  assert.equal(await page.evaluate(() => location.search), '?encoding=rope&preset=llama-3.1-8b&pair=30');
  const spectrum = await page.innerHTML('#spectrum .figure');
  await page.reload();
  await page.waitForSelector('body[data-ready=true]');
  await page.waitForSelector('#spectrum .figure svg');
  assert.equal(await page.inputValue('#control-preset'), 'llama-3.1-8b');
  assert.equal(await page.inputValue('#control-rope_theta'), '500000');
  assert.equal(await page.innerHTML('#spectrum .figure'), spectrum);
  // Changing the model itself makes it custom.
  await page.fill('#control-rope_theta', '20000');
  await page.waitForFunction(() => location.search.includes('rope_theta=20000'));
  assert.equal(await page.inputValue('#control-preset'), 'custom');
  assert.doesNotMatch(await page.evaluate(() => location.search), /preset=/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('xPos: the rotation arrows shrink or grow with position, by role', async () => {
  const page = await playground.open('?encoding=xpos&pair=0&scale_base=8');
  assert.equal(await page.locator('#rotation [aria-label="arrow"] path').count(), 11);
  assert.ok(await page.locator('#decay .figure svg').count() >= 2);
  await page.selectOption('#control-role', 'key');
  await page.waitForFunction(() => location.search.includes('role=key'));
  assert.deepEqual(page.problems, []);
});

test('an unset optional key\'s slider looks off (faint, no thumb) until a value is set; the pair slider spans the head\'s pairs', async () => {
  const page = await playground.open('?encoding=rope&rope_type=yarn&factor=4&original_max_position_embeddings=4096&head_dim=64');
  const slider = page.locator('#control-panel [name=mscale-slider], form [name=mscale-slider]').first();
  assert.equal(await page.inputValue('#control-mscale'), '');
  assert.equal(await slider.evaluate((s) => s.classList.contains('unset')), true);
  assert.ok(Number(await slider.evaluate((s) => getComputedStyle(s).opacity)) < 0.5);
  await page.fill('#control-mscale', '1');
  assert.equal(await slider.evaluate((s) => s.classList.contains('unset')), false);
  assert.equal(await slider.evaluate((s) => getComputedStyle(s).opacity), '1');
  // head_dim 64: 32 pairs, so the rotation's pair slider stops at 31.
  assert.equal(await page.getAttribute('form [name=pair-slider]', 'max'), '31');
});
