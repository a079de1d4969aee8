// Train short, test long: the page's default experiment (web/src/labs/experiment.js:
// every family, the RoPE scalings and DroPE, copy, 400 steps at L_train 32) timed arm by
// arm with pe.train() in this process's wasm module, as the page's worker runs it.
import { loadPosenc } from '../wasm/load.mjs';
import { armsOf, parameters } from '../../web/src/labs/experiment.js';

/** {arms: [{name, ms, accuracy: number[]}], totalMs}, trained one after the other. */
export async function measureTrain() {
  const pe = await loadPosenc();
  const params = Object.fromEntries(parameters.map((p) => [p.name, p.default]));
  const arms = [];
  for (const arm of armsOf(params)) {
    const start = performance.now();
    const result = pe.train({ task: params.task, layers: params.layers, train_length: params.train_length, steps: params.steps,
      d_model: params.d_model, vocab: params.vocab, seed: params.seed, encoding: arm.encoding,
      ...(arm.eval_encoding ? { eval_encoding: arm.eval_encoding } : {}), recalibration_steps: arm.recalibration_steps ?? 0,
      eval_lengths: [1, 2, 4, 8].map((f) => f * params.train_length) });
    arms.push({ name: arm.name, ms: performance.now() - start, accuracy: result.eval.map((p) => p.accuracy) });
  }
  return { arms, totalMs: arms.reduce((sum, a) => sum + a.ms, 0) };
}
