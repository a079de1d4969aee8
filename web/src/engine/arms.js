// Training arms: one model trained and evaluated by trainer() a chunk at a time
// (trainArm), either in the engine's own instance or, several at once, in arm
// workers of their own (engine/arm-worker.js: plain module workers, one wasm
// instance each, up to the cores the browser reports; no cross-origin isolation
// needed). The language-model lab (labs/language-model.js) trains its arms so.

/** The ms a chunk of steps (or of evaluation units) aims at: progress and Cancel stay prompt, far under one call's budget. */
const CHUNK_MS = 150;

/**
 * Trains one arm: trainer(request)'s steps, then its evaluation, in chunks sized to take about CHUNK_MS each (the
 * first chunk is one step or unit, which every request trainer() accepts can run) and planned within one call's work
 * budget (at most trainer.stepsPerCall steps; evaluation units vary in length, so a chunk of them the budget refuses
 * is tried again smaller), yielding progress between chunks; stopped early (the generator's return()), it frees the
 * trainer.
 * @param {object} pe  the wasm module
 * @param {object} request  a train request (wasm/posenc.d.ts TrainRequest)
 * @yields {{phase: 'train' | 'evaluate', done: number, total: number}}  steps, then evaluation units
 * @returns {{result: object, msPerStep: number}}  train()'s result; msPerStep: the training's wall time per step (ms)
 */
/**
 * Runs `body` with the module's C++ micro-kernels (pe.useKernels('simd128')), then puts back the path in use before.
 * The lab says whether an arm trained a shipped set again bit for bit; the native build trained those with a separate
 * multiply and add, which the fused multiply-add of the relaxed-SIMD kernels does not round alike.
 */
function withCppKernels(pe, body) {
  const before = pe.kernelPath();
  if (before === 'simd128') return body();
  pe.useKernels('simd128');
  try {
    return body();
  } finally {
    pe.useKernels(before);
  }
}

export function* trainArm(pe, request) {
  const trainer = pe.trainer(request);
  try {
    let trainMs = 0;
    for (const [phase, run, done, total, most] of [
      ['train', (c) => trainer.step(c), () => trainer.done, trainer.total, trainer.stepsPerCall],
      ['evaluate', (c) => trainer.evaluate(c), () => trainer.evaluated, trainer.evaluationTotal, Infinity]]) {
      let count = 1;
      while (done() < total) {
        const start = performance.now();
        const before = done();
        try {
          withCppKernels(pe, () => run(count));
        } catch (error) {  // units above one call's work together (the evaluation's later units are longer): fewer at a time
          if (error?.param !== 'count' || count === 1) throw error;
          count = Math.max(1, Math.floor(count / 4));
          continue;
        }
        const ms = performance.now() - start;
        if (phase === 'train') trainMs += ms;
        count = Math.min(most, Math.max(1, Math.floor(CHUNK_MS / Math.max(ms / (done() - before), 1e-3))));
        yield { phase, done: done(), total };
      }
    }
    return { result: trainer.finish(), msPerStep: trainMs / trainer.total };
  } finally {
    trainer.free();  // after finish(): nothing; stopped between chunks: the model's memory
  }
}

/**
 * How many arm workers to start for `arms` arms: one per core the browser reports, at most one per arm, none when it
 * reports one core (or none: the arms train in the engine's own instance).
 * @param {number} arms
 * @param {number} [cores]  navigator.hardwareConcurrency
 */
export function workerCount(arms, cores = globalThis.navigator?.hardwareConcurrency ?? 1) {
  return cores > 1 ? Math.min(arms, cores) : 0;
}

/**
 * Trains `requests` in `count` arm workers from spawn(), each taking the next arm when it is free: a job's generator.
 * It yields {progress, wait}: the arms' progress so far and a promise of the next message (engine/calls.js drive
 * awaits it); stopped early, it terminates the workers.
 * @param {() => Worker} spawn  a new arm worker (engine/arm-worker.js)
 * @param {object[]} requests  train requests, one per arm
 * @param {number} count  workers (>= 1)
 * @param {(states: {phase: string, done: number, total: number}[]) => object} progressOf  the progress to report
 * @yields {{progress: object, wait: Promise<void>}}
 * @returns {{result: object, msPerStep: number}[]}  per arm, as trainArm returns it
 * @throws {Error}  the first arm's error (a bad request: the core's message, .param)
 */
export function* trainInWorkers(spawn, requests, count, progressOf) {
  const states = requests.map(() => ({ phase: 'queued', done: 0, total: 0 }));
  const results = new Array(requests.length);
  const workers = [];
  let next = 0;
  let finished = 0;
  let failure = null;
  let wake = null;
  const notify = () => { const w = wake; wake = null; w?.(); };
  const give = (worker) => {
    if (next >= requests.length) return;
    const index = next++;
    worker.onmessage = ({ data }) => {
      if (data.progress) states[index] = data.progress;
      else if (data.error) failure ??= Object.assign(new Error(data.error.message), data.error);
      else {
        results[index] = data.value;
        states[index] = { phase: 'done', done: 1, total: 1 };
        finished += 1;
        give(worker);
      }
      notify();
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      failure ??= new Error(`an arm worker stopped: ${event.message ?? 'it could not start'}`);
      notify();
    };
    worker.postMessage({ request: requests[index] });
  };
  try {
    for (let k = 0; k < count; k++) {
      const worker = spawn();
      workers.push(worker);
      give(worker);
    }
    while (finished < requests.length) {
      if (failure) throw failure;
      yield { progress: progressOf(states), wait: new Promise((resolve) => { wake = resolve; }) };
    }
    if (failure) throw failure;
    return results;
  } finally {
    for (const worker of workers) worker.terminate();
  }
}
