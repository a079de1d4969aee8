// Pasting a model's config.json in real headless Chromium: the page switches
// to the config's own family with its values, shows a multi-layer-kind model's
// second spectrum, and refuses what it cannot show with the reason, keeping the
// last good view. (The configs are written here from the published formats.)
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, startPlayground } from './browser.mjs';

let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

/** Pastes `config` and waits until the page has answered (a note or an error). */
async function paste(page, config) {
  if (!(await page.isVisible('#config-text'))) await page.click('#paste-config summary');
  await page.evaluate(() => { document.getElementById('config-notes').textContent = ''; document.getElementById('error-config').textContent = ''; });
  await page.fill('#config-text', JSON.stringify(config));
  await page.click('#config-apply');
  await page.waitForFunction(() => document.getElementById('config-notes').textContent !== '' || document.getElementById('error-config').textContent !== '');
}

test('a BLOOM config on the RoPE page switches to ALiBi with its 32 heads; a T5 config to T5 buckets', async () => {
  const page = await playground.open('?encoding=rope');
  await paste(page, { model_type: 'bloom', architectures: ['BloomForCausalLM'], hidden_size: 2560, n_head: 32, n_layer: 30, offset_alibi: 100, vocab_size: 250880 });
  await page.waitForFunction(() => new URLSearchParams(location.search).get('encoding') === 'alibi');
  assert.equal(await page.inputValue('#control-n_heads'), '32');
  assert.equal(await page.inputValue('#control-encoding'), 'alibi');
  // The per-layer profile reads the layer count too (30 layers, each with ALiBi).
  await page.waitForFunction(() => /30 layers, all with the alibi encoding/.test(document.getElementById('config-notes').textContent));
  const note = await page.textContent('#config-notes');
  assert.match(note, /shown as ALiBi/);
  assert.match(note, /read: model_type, n_head, n_layer/);
  assert.match(note, /positional, not modelled: offset_alibi/);
  assert.match(note, /ignored \(not positional\): architectures, hidden_size, vocab_size/);
  await page.waitForSelector('#bias .figure canvas, #bias .figure svg');

  await paste(page, { model_type: 't5', d_model: 512, num_heads: 8, relative_attention_num_buckets: 16, relative_attention_max_distance: 64, is_encoder_decoder: true });
  await page.waitForFunction(() => new URLSearchParams(location.search).get('encoding') === 't5');
  assert.equal(await page.inputValue('#control-num_buckets'), '16');
  assert.equal(await page.inputValue('#control-max_distance'), '64');
  assert.deepEqual(page.problems, []);
});

test('Gemma-3: the spectrum draws the sliding-window layers’ own base and marks their window', async () => {
  const page = await playground.open('?encoding=alibi');
  await paste(page, { model_type: 'gemma3_text', head_dim: 256, hidden_size: 1152, num_attention_heads: 4, max_position_embeddings: 32768,
    num_hidden_layers: 34, rope_theta: 1000000, rope_local_base_freq: 10000, sliding_window: 512, sliding_window_pattern: 6, rope_scaling: null });
  await page.waitForFunction(() => document.querySelector('#spectrum .figure')?.innerText.includes('rope_local_base_freq = 10,000'));
  const figure = await page.innerText('#spectrum .figure');
  assert.match(figure, /global layers, unscaled/);
  assert.match(figure, /sliding window = 512/);
  assert.equal(await page.inputValue('#control-rope_local_base_freq'), '10000');
  // The per-layer profile then reads sliding_window_pattern too: every 6th layer global, the others sliding.
  await page.waitForSelector('#config-layers:not([hidden])');
  await page.waitForFunction(() => /read: .*sliding_window_pattern/.test(document.getElementById('config-notes').textContent));
  assert.match(await page.textContent('#config-notes'), /full_attention: layers 5, 11, 17, 23, 29/);
  assert.doesNotMatch(await page.textContent('#config-notes'), /not modelled: sliding_window_pattern/);
  assert.deepEqual(page.problems, []);
});

test('a DeBERTa-v3 config switches to DeBERTa with its widths; its bucket map and c2p / p2c panels draw', async () => {
  const page = await playground.open('?encoding=rope&rope_theta=500000');
  await paste(page, { model_type: 'deberta-v2', hidden_size: 1024, num_attention_heads: 16, relative_attention: true, position_buckets: 256,
    max_relative_positions: -1, pos_att_type: ['p2c', 'c2p'], position_biased_input: false, share_att_key: true, norm_rel_ebd: 'layer_norm' });
  await page.waitForFunction(() => new URLSearchParams(location.search).get('encoding') === 'deberta');
  assert.equal(await page.inputValue('#control-hidden_size'), '1024');
  assert.equal(await page.inputValue('#control-head_dim'), '64');
  assert.equal(await page.inputValue('#control-pos_att'), 'p2c|c2p');
  assert.match(await page.textContent('#config-notes'), /shown as DeBERTa/);
  await page.waitForSelector('#deberta-buckets .figure svg');
  await page.waitForSelector('#panels .figure canvas, #panels .figure svg');
  assert.deepEqual(await page.$$eval('#panels .panel h3', (h) => h.map((x) => x.textContent)),
    ['content scores q·k/√(3d)', 'content → position q_i·K_r[δ(i−j)], each /√(3d)', 'position → content k_j·Q_r[δ(i−j)], each /√(3d)',
      'biased scores (logits)']);
  assert.deepEqual(page.problems, []);
});

test('a custom-code config is refused with the reason; the controls and the view stay', async () => {
  const page = await playground.open('?encoding=rope&rope_theta=500000');
  await paste(page, { model_type: 'chatglm', hidden_size: 4096, num_attention_heads: 32, kv_channels: 128, original_rope: true, rope_ratio: 1 });
  assert.match(await page.textContent('#error-config'), /model_type "chatglm" runs its own modeling code/);
  assert.equal(await page.inputValue('#control-rope_theta'), '500000');
  assert.equal(await page.textContent('#config-notes'), '');
  assert.deepEqual(page.problems, []);
});

test('a rope_scaling nested 5,000 levels deep: a message naming the config, never a platform error; the view stays', async () => {
  const page = await playground.open('?encoding=rope');
  const deep = `${'{"rope_type": "linear", "factor": 2, "nested": '.repeat(5000)}{}${'}'.repeat(5000)}`;
  if (!(await page.isVisible('#config-text'))) await page.click('#paste-config summary');
  await page.fill('#config-text', `{"model_type": "llama", "head_dim": 128, "rope_theta": 10000, "rope_scaling": ${deep}}`);
  await page.click('#config-apply');
  await page.waitForFunction(() => document.getElementById('error-config').textContent !== '');
  const message = await page.textContent('#error-config');
  assert.match(message, /^config: nested more than 32 levels deep \(at character \d+\)/);
  assert.doesNotMatch(message, /postMessage|call stack/);
  assert.equal(await page.inputValue('#control-encoding'), 'rope');
  assert.deepEqual(page.problems, []);
});
