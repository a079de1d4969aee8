// Bundle bytes: gzip -9 of the wasm and JS a browser downloads for each engine.
// tfjs: the tfjs-core and tfjs-backend-wasm ES module bundles (whole: a custom
// tree-shaken build is smaller) and the SIMD .wasm it loads without threads;
// ORT: the wasm-only ES module bundle (`onnxruntime-web/wasm`, its Emscripten
// glue inlined) and the .wasm it loads; plain JS: its own code.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const pkg = (name, file) => path.join(root, 'node_modules', name, file);

export const BUNDLES = {
  posenc: () => [path.join(root, 'web/generated/posenc.wasm'), path.join(root, 'web/generated/posenc.mjs')],
  'tfjs-wasm': () => [
    pkg('@tensorflow/tfjs-core', 'dist/tf-core.fesm.min.js'),
    pkg('@tensorflow/tfjs-backend-wasm', 'dist/tf-backend-wasm.fesm.min.js'),
    pkg('@tensorflow/tfjs-backend-wasm', 'dist/tfjs-backend-wasm-simd.wasm'),
  ],
  'ORT-web': () => [
    pkg('onnxruntime-web', 'dist/ort.wasm.bundle.min.mjs'),
    pkg('onnxruntime-web', 'dist/ort-wasm-simd-threaded.wasm'),
  ],
  'plain JS': () => [path.join(here, 'peers/plain-js.mjs')],
};

/** {engine: {gzipBytes, rawBytes, files: [{file, rawBytes, gzipBytes}]}} */
export function measureBundles() {
  const out = {};
  for (const [engine, list] of Object.entries(BUNDLES)) {
    const files = list().filter((f) => fs.existsSync(f)).map((f) => {
      const bytes = fs.readFileSync(f);
      return { file: path.relative(root, f), rawBytes: bytes.length, gzipBytes: zlib.gzipSync(bytes, { level: 9 }).length };
    });
    out[engine] = {
      gzipBytes: files.reduce((s, f) => s + f.gzipBytes, 0),
      rawBytes: files.reduce((s, f) => s + f.rawBytes, 0),
      files,
    };
  }
  return out;
}
