// The production bundle (`npm run build`) works from any sub-path, as a blog
// embedding it would serve it: the .wasm is an emitted asset found relative to
// the script, served as application/wasm.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { chromium } from 'playwright-core';
import { CHROMIUM } from './browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SUB_PATH = '/blog/2026/posenc/';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

let outDir;
let server;
let context;
before(async () => {
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-dist-'));
  await build({ configFile: path.join(root, 'vite.config.js'), root: path.join(root, 'web'), logLevel: 'error', build: { outDir, emptyOutDir: true } });
  server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    const relative = url.pathname.startsWith(SUB_PATH) ? url.pathname.slice(SUB_PATH.length) || 'index.html' : null;
    const file = relative && path.join(outDir, relative);
    if (!file || !file.startsWith(outDir) || !fs.existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  context = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
});
after(async () => {
  await context?.close();
  server?.close();
  if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
});

test('the built dist/ draws the heatmap when served from a sub-path', async () => {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  const wasmResponses = [];
  page.on('response', (r) => { if (r.url().endsWith('.wasm')) wasmResponses.push([r.status(), r.headers()['content-type']]); });
  await page.goto(`http://127.0.0.1:${server.address().port}${SUB_PATH}?d_model=16&n=8`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });
  const size = await page.evaluate(() => {
    const canvas = document.querySelector('#heatmap canvas.matrix');
    return [canvas.width, canvas.height];
  });
  assert.deepEqual(size, [16, 8]);
  assert.deepEqual(wasmResponses, [[200, 'application/wasm']]);
  assert.deepEqual(problems, []);
});
