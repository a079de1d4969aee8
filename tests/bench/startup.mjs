// Startup: milliseconds from importing an engine to its first result (RoPE on
// [1, 8]: every engine can do it), in this fresh process. Run by run.mjs as
//   node tests/bench/startup.mjs <posenc | tfjs | ort | plain-js>
// and prints one JSON line {engine, ms, importMs}. The import includes reading
// and compiling the engine's .wasm, as a page pays it once per visit.
import { ropeTables } from './reference.mjs';

const file = process.argv[2];
const t0 = performance.now();
const { create } = await import(`./peers/${file}.mjs`);
const engine = await create();
const t1 = performance.now();
const x = Float32Array.from({ length: 8 }, (_, i) => i / 8);
let out = engine.rope({ x, n: 1, d: 8, layout: 'half', ...ropeTables(1, 8) });
if (out && typeof out.then === 'function') out = await out;
const t2 = performance.now();
if (!(out instanceof Float32Array) || out.length !== 8) throw new Error(`${file}: no result`);
console.log(JSON.stringify({ engine: engine.name, ms: t2 - t0, importMs: t1 - t0 }));
await engine.dispose?.();
