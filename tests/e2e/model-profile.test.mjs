// The model lab in real headless Chromium: a model's layers as a strip, its layer kinds' spectra and decay on one axis,
// the three stacks on a config where they differ; a llama.cpp GGUF file (written here in the published layout) opened
// with the page's file picker and read per layer; a file that is not GGUF, and a config that is not JSON, refused with
// the reason beside their control while the page keeps what it showed.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPlayground, startPlayground } from './browser.mjs';
import { T, writeGguf } from '../gguf-writer.mjs';

let playground;
// A browser of its own: the 10 GB file below is given by its path, which a shared (connected) browser would copy whole.
before(async () => { playground = await startPlayground({ ownBrowser: true }); });
after(async () => { await playground?.close(); });

const figureText = (page, id) => page.innerText(`#${id} .figure`);

test('Gemma-4 by default: 30 layers, every 6th global with proportional RoPE (64 of 256 pairs turn), the rest sliding at 512', async () => {
  const page = await playground.open('?encoding=model_profile');
  await page.waitForSelector('#profile-layers .figure svg');
  const strip = await figureText(page, 'profile-layers');
  assert.match(strip, /0: sliding_attention \(25 layers\): RoPE θ 10,000, all 128 pairs turn; attention sliding 512/);
  assert.match(strip, /1: full_attention \(5 layers\): RoPE θ 1,000,000, proportional, 64 of 256 pairs turn; attention global/);
  // One cell per layer and row: 30 layers, two rows.
  assert.equal(await page.$$eval('#profile-layers .figure svg [aria-label="cell"] rect', (r) => r.length), 60);
  await page.waitForFunction(() => /pairs 64–255\s*have\s*frequency 0/.test(document.querySelector('#profile-spectrum .figure')?.textContent ?? ''));
  assert.match(await figureText(page, 'profile-spectrum'), /sliding_attention: sliding window 512/);
  await page.waitForSelector('#profile-decay .figure svg');
  assert.match(await figureText(page, 'profile-stacks'), /All 3 stacks agree/);
  assert.deepEqual(page.problems, []);
});

test('gpt-oss-20b: YaRN with truncate false, which llama.cpp ignores: the three stacks differ, and the view says which', async () => {
  const page = await playground.open('?encoding=model_profile&model=gpt-oss-20b');
  await page.waitForFunction(() => /differ/.test(document.querySelector('#profile-stacks .figure')?.innerText ?? ''));
  const text = await figureText(page, 'profile-stacks');
  assert.match(text, /transformers and vllm agree/);
  assert.match(text, /transformers and llama\.cpp differ/);
  assert.match(text, /truncate ignored/);
  assert.deepEqual(page.problems, []);
});

test('YaRN ×1e100: the stacks view names llama.cpp\'s NaN attention factor and the key behind it, and never says agree over it', async () => {
  // Issue 35, finding 9: the heading said "All 3 stacks agree" over a table with "NaN". The table is built from DOM nodes.
  const config = { model_type: 'llama', num_hidden_layers: 2, num_attention_heads: 32, hidden_size: 4096, rope_theta: 10000,
    max_position_embeddings: 4096, rope_scaling: { rope_type: 'yarn', factor: 1e100 } };
  const page = await playground.open(`?${new URLSearchParams({ encoding: 'model_profile', model: 'custom', config_json: JSON.stringify(config) })}`);
  await page.waitForFunction(() => /gives/.test(document.querySelector('#profile-stacks .figure')?.innerText ?? ''));
  const text = await figureText(page, 'profile-stacks');
  assert.match(text, /llama\.cpp gives attention_factor = NaN: factor = 1e\+100 is past float32's range/);
  assert.match(text, /transformers and llama\.cpp cannot be compared; transformers and vllm agree; llama\.cpp and vllm cannot be compared/);
  assert.doesNotMatch(text, /All 3 stacks agree/);
  const cells = await page.$$eval('#profile-stacks table tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(cells.map((row) => row.slice(0, 2)), [['transformers', '24.025851'], ['llama.cpp', 'NaN (not finite)'], ['vllm', '24.025851']]);
  assert.match(cells[1][5], /^Not finite: attention_factor = NaN/);
  assert.deepEqual(page.problems, []);
});

test('a GGUF file opened with the picker is read from its header into the lab; a file that is not GGUF is refused, nothing lost', async () => {
  const page = await playground.open('?encoding=model_profile&model=llama-3.1-8b');
  await page.waitForSelector('#profile-layers .figure svg');
  // Qwen2 7B as convert_hf_to_gguf.py writes it with YaRN ×4 over 32768 (NEOX pairs: half layout).
  const bytes = writeGguf([
    ['general.architecture', T.str, 'qwen2'], ['general.name', T.str, 'Qwen2 7B'],
    ['qwen2.block_count', T.u32, 28], ['qwen2.context_length', T.u32, 131072], ['qwen2.embedding_length', T.u32, 3584],
    ['qwen2.attention.head_count', T.u32, 28], ['qwen2.attention.head_count_kv', T.u32, 4], ['qwen2.rope.freq_base', T.f32, 1000000],
    ['qwen2.rope.scaling.type', T.str, 'yarn'], ['qwen2.rope.scaling.factor', T.f32, 4],
    ['qwen2.rope.scaling.original_context_length', T.u32, 32768]]);
  await page.setInputFiles('#gguf-file', { name: 'qwen2-7b.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  await page.waitForFunction(() => /qwen2/.test(document.getElementById('control-config_json')?.value ?? '') &&
    /28 layers/.test(document.querySelector('#profile-layers .figure')?.innerText ?? ''));
  assert.match(await page.textContent('#gguf-notes'), /qwen2\.rope\.freq_base = 1000000/);
  assert.match(await figureText(page, 'profile-layers'), /RoPE θ 1,000,000, yarn ×4, all 64 pairs turn/);
  assert.equal(await page.inputValue('#control-model'), 'custom');

  const before = await page.inputValue('#control-config_json');
  await page.setInputFiles('#gguf-file', { name: 'notes.gguf', mimeType: 'text/plain', buffer: Buffer.from('not a model at all, just some text') });
  await page.waitForFunction(() => document.getElementById('error-gguf').textContent !== '');
  assert.match(await page.textContent('#error-gguf'), /GGUF/);
  assert.equal(await page.inputValue('#control-config_json'), before, 'the config the page showed is kept');
  assert.match(await figureText(page, 'profile-layers'), /28 layers/);
});

test('a GGUF file dropped on a family page is read into the paste box; its header lying about a length is refused by name', async () => {
  const page = await playground.open('?encoding=rope');
  /** Drops a file of `bytes` on the GGUF box as a browser does (a DataTransfer holding a File). */
  const drop = async (name, bytes) => {
    const transfer = await page.evaluateHandle(({ name, data }) => {
      const t = new DataTransfer();
      t.items.add(new File([new Uint8Array(data)], name));
      return t;
    }, { name, data: [...bytes] });
    await page.dispatchEvent('#gguf', 'dragover', { dataTransfer: transfer });
    await page.dispatchEvent('#gguf', 'drop', { dataTransfer: transfer });
  };
  // Gemma-3 1B as convert_hf_to_gguf.py writes it: rope.freq_base 1e6, freq_base_swa 1e4, a 512-token window, 26 layers.
  await drop('gemma3-1b.gguf', writeGguf([
    ['general.architecture', T.str, 'gemma3'], ['gemma3.block_count', T.u32, 26], ['gemma3.context_length', T.u32, 32768],
    ['gemma3.embedding_length', T.u32, 1152], ['gemma3.attention.head_count', T.u32, 4], ['gemma3.attention.key_length', T.u32, 256],
    ['gemma3.rope.freq_base', T.f32, 1000000], ['gemma3.rope.freq_base_swa', T.f32, 10000], ['gemma3.attention.sliding_window', T.u32, 512]]));
  await page.waitForFunction(() => /gemma3/.test(document.getElementById('config-text').value) && document.getElementById('config-notes').textContent !== '');
  assert.equal(await page.inputValue('#control-rope_theta'), '1000000');
  assert.equal(await page.inputValue('#control-rope_local_base_freq'), '10000');
  assert.match(await page.textContent('#gguf-notes'), /gemma3\.rope\.freq_base_swa = 10000/);
  // Two kinds of layer: the box offers each, and the model lab.
  await page.waitForSelector('#config-layers:not([hidden])');
  assert.match(await page.innerText('#config-kind'), /sliding_attention/);

  // A key whose string claims 5000 bytes in a file of a few dozen: refused, naming the key; the page keeps Gemma-3.
  const lying = writeGguf([['general.architecture', T.str, 'llama']]);
  new DataView(lying.buffer).setBigUint64(24 + 8 + 20 + 4, 5000n, true);  // the value's length, after the key and its type
  await drop('lying.gguf', lying);
  await page.waitForFunction(() => document.getElementById('error-gguf').textContent !== '');
  assert.match(await page.textContent('#error-gguf'), /general\.architecture/);
  assert.equal(await page.inputValue('#control-rope_theta'), '1000000');
  assert.deepEqual(page.problems, []);
});

test('a 10 GB GGUF file opens by its header alone (a sparse file on disk: the page never reads it whole)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-gguf-'));
  const file = path.join(dir, 'big-llama.gguf');
  const header = writeGguf([['general.architecture', T.str, 'llama'], ['llama.block_count', T.u32, 32],
    ['llama.context_length', T.u32, 8192], ['llama.embedding_length', T.u32, 4096], ['llama.attention.head_count', T.u32, 32],
    ['llama.rope.freq_base', T.f32, 500000], ['llama.rope.dimension_count', T.u32, 128]]);
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, header);
  fs.ftruncateSync(fd, 10e9);  // 10 GB, sparse: no disk blocks past the header
  fs.closeSync(fd);
  const page = await playground.newPage();
  try {
    await openPlayground(playground, page, '?encoding=model_profile&model=smollm3-3b');
    await page.waitForSelector('#profile-layers .figure svg');
    await page.setInputFiles('#gguf-file', file);
    await page.waitForFunction(() => /"llama"/.test(document.getElementById('control-config_json')?.value ?? '') &&
      /32 layers\): RoPE θ 500,000, all 64 pairs turn/.test(document.querySelector('#profile-layers .figure')?.innerText ?? ''));
    assert.equal(await page.textContent('#error-gguf'), '');
    assert.deepEqual(page.problems, []);
  } finally {
    await page.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a config that is not JSON is refused beside the box, and the figures keep the last model', async () => {
  const page = await playground.open('?encoding=model_profile&model=smollm3-3b');
  await page.waitForFunction(() => /no_rope/.test(document.querySelector('#profile-layers .figure')?.innerText ?? ''));
  await page.fill('#control-config_json', '{"model_type": "llama", ');
  await page.waitForFunction(() => document.getElementById('error-config_json')?.textContent.includes('not valid JSON'));
  assert.match(await figureText(page, 'profile-layers'), /no_rope \(9 layers\)/);
});
