// Training arms: one model trained and evaluated by trainer() a chunk at a time
// (trainArm), either in the engine's own instance or, several at once, in arm
// workers of their own (engine/arm-worker.js: plain module workers, one wasm
// instance each, up to the cores the browser reports; no cross-origin isolation
// needed). The language-model lab (labs/language-model.js) trains its arms so.

/** The ms a chunk of steps (or of evaluation units) aims at: progress and Cancel stay prompt, far under one call's budget. */
const CHUNK_MS = 150;

/**
 * Where one arm is, and the wall time it took so far.
 * @typedef {object} ArmState
 * @property {'queued' | 'train' | 'evaluate' | 'done'} phase
 * @property {number} done   steps (train) or evaluation units (evaluate) done
 * @property {number} total  of those
 * @property {number} [steps]  the arm's steps (steps + recalibration_steps); a queued arm's from its request
 * @property {number} [units]  its evaluation units (trainer.evaluationTotal); unknown while queued
 * @property {number} [trainMs]  wall time of its steps so far (ms)
 * @property {number} [evaluateMs]  wall time of its evaluation units so far (ms)
 * @property {number} [batch]  sequences per step (its request's batch_size)
 */

/** A queued arm's state: its steps from its train request. */
export const queuedState = (request) => ({ phase: 'queued', done: 0, total: 0, steps: request.steps + (request.recalibration_steps ?? 0) });

/**
 * The wall time the arms' work left should take (ms): each arm's steps left at its own measured ms per step (or, before
 * it has one, the mean of the arms measured so far), its evaluation units left at the measured ms per unit of every arm
 * so far (before any unit: a step's ms / (3 x batch), as a unit is one sequence's forward pass and a step its batch's
 * forward and backward, about three forwards each; a queued arm's units: the mean of the arms that know theirs), all arms' work
 * shared among `workers` running at once. null before any step was measured.
 * @param {ArmState[]} states
 * @param {number} workers  arms that train at once (>= 1)
 * @returns {number | null}
 */
export function timeLeft(states, workers) {
  const stepsDone = (s) => (s.phase === 'train' ? s.done : s.phase === 'evaluate' || s.phase === 'done' ? s.steps ?? 0 : 0);
  const unitsDone = (s) => (s.phase === 'evaluate' ? s.done : s.phase === 'done' ? s.units ?? 0 : 0);
  const sum = (f) => states.reduce((total, s) => total + f(s), 0);
  const measuredSteps = sum((s) => (s.trainMs > 0 ? stepsDone(s) : 0));
  if (!(measuredSteps > 0)) return null;
  const perStep = sum((s) => (s.trainMs > 0 ? s.trainMs : 0)) / measuredSteps;
  const measuredUnits = sum((s) => (s.evaluateMs > 0 ? unitsDone(s) : 0));
  const batch = Math.max(1, ...states.map((s) => s.batch ?? 1));
  const perUnit = measuredUnits > 0 ? sum((s) => (s.evaluateMs > 0 ? s.evaluateMs : 0)) / measuredUnits : perStep / (3 * batch);
  const known = states.filter((s) => s.units !== undefined);
  const meanUnits = known.length ? known.reduce((total, s) => total + s.units, 0) / known.length : 0;
  let work = 0;
  let left = 0;  // arms not done
  for (const s of states) {
    if (s.phase === 'done') continue;
    left += 1;
    const own = s.trainMs > 0 && stepsDone(s) > 0 ? s.trainMs / stepsDone(s) : perStep;
    work += ((s.steps ?? 0) - stepsDone(s)) * own + ((s.units ?? meanUnits) - unitsDone(s)) * perUnit;
  }
  return work / Math.max(1, Math.min(workers, left));
}

/**
 * timeLeft's estimate as the progress label says it: "about 40 s left" (to 5 s; under 10 s "a few seconds left"),
 * "about 3 min left" (past 90 s, to the minute); '' for null.
 * @param {number | null} ms
 */
export function timeLeftText(ms) {
  if (ms === null || !Number.isFinite(ms)) return '';
  const seconds = ms / 1000;
  if (seconds < 10) return 'a few seconds left';
  if (seconds < 90) return `about ${Math.round(seconds / 5) * 5} s left`;
  return `about ${Math.round(seconds / 60)} min left`;
}

/**
 * The progress label of arms training: each running arm's steps (or "testing"), the arms done, and timeLeft's estimate,
 * e.g. "training rope 120 / 600 steps, alibi testing (3 of 8 arms done; about 40 s left)".
 * @param {string[]} names  per arm
 * @param {ArmState[]} states  per arm
 * @param {number} workers  arms that train at once
 */
export function armsLabel(names, states, workers) {
  const running = states.map((s, k) => ({ ...s, name: names[k] })).filter((s) => s.phase === 'train' || s.phase === 'evaluate');
  const what = running.map((s) => (s.phase === 'train' ? `${s.name} ${s.done} / ${s.total} steps` : `${s.name} testing`)).join(', ');
  const left = timeLeftText(timeLeft(states, workers));
  return `training ${what || '…'} (${finishedOf(states)} of ${states.length} arms done${left ? `; ${left}` : ''})`;
}

/** The arms done. @param {ArmState[]} states */
export const finishedOf = (states) => states.filter((s) => s.phase === 'done').length;

/**
 * One arm's training curve as it arrives in pieces (trainer.losses(from), from the steps read so far): add() each piece,
 * read() a copy of what came so far.
 * @param {number} steps  the arm's steps (the most losses it will have)
 * @returns {{length: number, add(piece: {loss: Float32Array, validation: {step, loss}[]}): void,
 *   read(): {loss: Float32Array, validation: {step, loss}[]}}}  length: the steps read so far (the next piece's from)
 */
export function curveOf(steps) {
  const loss = new Float32Array(steps);
  let validation = [];
  const curve = {
    length: 0,
    add(piece) {
      loss.set(piece.loss.subarray(0, steps - curve.length), curve.length);
      curve.length = Math.min(steps, curve.length + piece.loss.length);
      validation = piece.validation;
    },
    read: () => ({ loss: loss.slice(0, curve.length), validation }),
  };
  return curve;
}

/**
 * A gate for partial results: open (true) at most once every `ms`, and at once whenever `count` (arms finished) changed
 * since it last opened; a job's progress carries a partial value only then (the page draws each: not 30 a second).
 * @param {number} [ms]
 * @returns {(count: number) => boolean}
 */
export function partialGate(ms = 1000) {
  let last = -Infinity;
  let lastCount = -1;
  return (count) => {
    const now = performance.now();
    if (count === lastCount && now - last < ms) return false;
    last = now;
    lastCount = count;
    return true;
  };
}

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

/**
 * Trains one arm: trainer(request)'s steps, then its evaluation, in chunks sized to take about CHUNK_MS each (the
 * first chunk is one step or unit, which every request trainer() accepts can run) and planned within one call's work
 * budget (at most trainer.stepsPerCall steps; evaluation units vary in length, so a chunk of them the budget refuses
 * is tried again smaller), yielding progress between chunks; stopped early (the generator's return()), it frees the
 * trainer.
 * @param {object} pe  the wasm module
 * @param {object} request  a train request (wasm/posenc.d.ts TrainRequest)
 * @yields {ArmState & {curve: (from: number) => {loss: Float32Array, validation: {step, loss}[]}}}  steps, then
 *   evaluation units, with the time they took so far; curve(from): trainer.losses(from), the training curve past step
 *   `from` (call it before the next chunk: not kept)
 * @returns {{result: object, msPerStep: number, timing: ArmState}}  train()'s result; msPerStep: the training's wall time
 *   per step (ms); timing: the arm's last state, phase 'done' (what timeLeft reads of a finished arm)
 */
export function* trainArm(pe, request) {
  const trainer = pe.trainer(request);
  try {
    const ms = { train: 0, evaluate: 0 };
    const stateOf = (phase, done, total) => ({ phase, done, total, steps: trainer.total, units: trainer.evaluationTotal,
      trainMs: ms.train, evaluateMs: ms.evaluate, batch: request.batch_size ?? 1 });
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
        const took = performance.now() - start;
        ms[phase] += took;
        count = Math.min(most, Math.max(1, Math.floor(CHUNK_MS / Math.max(took / (done() - before), 1e-3))));
        yield { ...stateOf(phase, done(), total), curve: (from) => trainer.losses(from) };
      }
    }
    return { result: trainer.finish(), msPerStep: ms.train / trainer.total, timing: stateOf('done', 1, 1) };
  } finally {
    trainer.free();  // after finish(): nothing; stopped between chunks: the model's memory
  }
}

/**
 * Trains `requests` one after the other in this instance (trainArm): trainInWorkers's job where no arm worker runs, with
 * the same progressOf and the same outcomes; stopped early, it frees the trainer in training.
 * @param {object} pe  the wasm module
 * @param {object[]} requests  train requests, one per arm
 * @param {Parameters<typeof trainInWorkers>[3]} progressOf
 * @yields {object}  progressOf's progress, after every chunk
 * @returns {{result: object, msPerStep: number, timing: ArmState}[]}
 */
export function* trainHere(pe, requests, progressOf) {
  const states = requests.map(queuedState);
  const curves = states.map((s) => curveOf(s.steps));
  const outcomes = new Array(requests.length);
  for (const [k, request] of requests.entries()) {
    const job = trainArm(pe, request);
    try {
      for (;;) {
        const { value, done } = job.next();
        if (done) {
          outcomes[k] = value;
          states[k] = value.timing;
          break;
        }
        const { curve, ...state } = value;
        states[k] = state;
        curves[k].add(curve(curves[k].length));
        yield progressOf(states, { curves, outcomes });
      }
    } finally {
      job.return();  // stopped between chunks: its trainer freed
    }
  }
  return outcomes;
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
 * It yields {progress, wait}: the arms' progress so far and a promise of the next message (engine/lab-jobs.js drive
 * awaits it); stopped early, it terminates the workers.
 * @param {() => Worker} spawn  a new arm worker (engine/arm-worker.js)
 * @param {object[]} requests  train requests, one per arm
 * @param {number} count  workers (>= 1)
 * @param {(states: ArmState[], so: {curves: ReturnType<typeof curveOf>[], outcomes: ({result, msPerStep}|undefined)[]})
 *   => object} progressOf  the progress to report, from each arm's state, its training curve so far and (a finished
 *   arm's) its outcome
 * @yields {{progress: object, wait: Promise<void>}}
 * @returns {{result: object, msPerStep: number, timing: ArmState}[]}  per arm, as trainArm returns it
 * @throws {Error}  the first arm's error (a bad request: the core's message, .param)
 */
export function* trainInWorkers(spawn, requests, count, progressOf) {
  const states = requests.map(queuedState);
  const curves = states.map((s) => curveOf(s.steps));
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
      if (data.progress) {
        states[index] = data.progress;
        if (data.curve) curves[index].add(data.curve);
      } else if (data.error) failure ??= Object.assign(new Error(data.error.message), data.error);
      else {
        results[index] = data.value;
        states[index] = data.value.timing;
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
      yield { progress: progressOf(states, { curves, outcomes: results }), wait: new Promise((resolve) => { wake = resolve; }) };
    }
    if (failure) throw failure;
    return results;
  } finally {
    for (const worker of workers) worker.terminate();
  }
}
