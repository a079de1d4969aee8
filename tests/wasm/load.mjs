// Loads the built module in Node. The glue is built for the web
// (-sENVIRONMENT=web,worker), so Node hands it the .wasm bytes itself.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import createPosenc from '../../web/generated/posenc.mjs';
import createPosencView from '../../web/generated/posenc-view.mjs';

/**
 * An instance of posenc.wasm (every function), or with module 'view' of posenc-view.wasm (the views' functions), or with
 * a family group as well of that group's posenc-view-<group>.wasm (wasm/view-groups.json).
 */
export async function loadPosenc(module = 'full', group = null) {
  const name = module !== 'view' ? 'posenc' : group ? `posenc-view-${group}` : 'posenc-view';
  const wasmBinary = fs.readFileSync(new URL(`../../web/generated/${name}.wasm`, import.meta.url));
  const create = module !== 'view' ? createPosenc : group ? (await import(`../../web/generated/${name}.mjs`)).default : createPosencView;
  return create({ wasmBinary });
}

/**
 * Runs `round` (some good and some failing calls) 50 times to warm up, then
 * `times` more, and returns the change in malloc'd bytes and in the wasm stack
 * pointer: both must be 0 when nothing leaks.
 */
export function leakAfter(pe, round, times) {
  for (let i = 0; i < 50; i++) round();
  const heap = pe.heapBytesInUse();
  const stack = pe.stackSave();
  const memory = pe.HEAPU8.buffer.byteLength;
  for (let i = 0; i < times; i++) round();
  return { heap: pe.heapBytesInUse() - heap, stack: pe.stackSave() - stack, memory: pe.HEAPU8.buffer.byteLength - memory };
}

/**
 * trainer(request)'s result, its steps and evaluation run in chunks within one call's work budget (stepsPerCall
 * steps, one evaluation unit at a time), then finish(): what train() gives, for an experiment above one call's budget.
 */
export function trainInChunks(pe, request) {
  const trainer = pe.trainer(request);
  try {
    while (trainer.done < trainer.total) trainer.step(trainer.stepsPerCall);
    while (trainer.evaluated < trainer.evaluationTotal) trainer.evaluate(1);
    return trainer.finish();
  } finally {
    trainer.free();
  }
}

/** The error `call` throws (fails when it throws nothing). */
export function errorOf(call) {
  try {
    call();
  } catch (error) {
    return error;
  }
  assert.fail('no error thrown');
}

/** The largest |a[e] - b[e]| of two arrays of the same length (asserted). */
export function maxError(a, b) {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let e = 0; e < a.length; e++) worst = Math.max(worst, Math.abs(a[e] - b[e]));
  return worst;
}

/**
 * The largest difference between attentionForward over x [n, d] with identity W_q, W_k, W_v and the page's head
 * (attention) over the same x with identity projections: the fused kernel against the head, for `encoding`, causal.
 */
export function forwardAgainstHead(pe, x, n, d, encoding) {
  const eye = new Float32Array(d * d);
  for (let c = 0; c < d; c++) eye[c * d + c] = 1;
  const out = pe.attentionForward({ x, wq: eye, wk: eye, wv: eye, n, d_model: d, d_head: d, causal: true, encoding });
  const head = pe.attention({ x, d_model: d, d_head: d, projections: 'identity', encoding, causal: true });
  return maxError(out, head.output);
}
