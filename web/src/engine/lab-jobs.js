// The labs' training jobs, as the engine's calls run them (calls.js createCalls, memoised there): the experiment
// (labs/experiment.js: train short, test long) and the language-model lab (labs/language-model.js), each a generator
// that yields its progress, training in arm workers (engine/arms.js, loaded on first use) or here a chunk at a time.
import { TRAINED_TYPES, loadTrained, trainedOf } from '../families/trained.js';
import { badParam } from '../errors.js';

/** Steps of train() between two progress reports (and chances to stop): ~10 ms at the default sizes. */
const TRAIN_CHUNK = 25;

/** Whether two train requests train the same model (they may differ in what they evaluate). */
function sameTraining(a, b) {
  const trainingOf = (r) => JSON.stringify(Object.entries(r).filter(([k]) => !['eval_lengths', 'eval_examples', 'eval_characters',
    'samples', 'sample_length', 'validation_every', 'task', 'text', 'encoding'].includes(k)).sort(([x], [y]) => (x < y ? -1 : 1)));
  return trainingOf(a) === trainingOf(b);
}

/**
 * The two jobs over one instance's module and helpers.
 * @param {{pe: object, spawnArm: ?() => Worker, corpus: ?() => Promise<string>, loadCorpus: () => Promise<string>,
 *   trainerFor: (request: object) => object, explained: (error: Error, request: object) => Error}} o
 *   pe: the wasm module's JS API; spawnArm: starts an arm worker (null: train here); corpus: fetches the shipped text
 *   (null: none to load), loadCorpus: it, once; trainerFor: pe.trainer(request), its refusals said as the controls'
 *   (explained)
 * @returns {{experiment: GeneratorFunction, languageModel: GeneratorFunction}}
 */
export function labJobs({ pe, spawnArm, corpus, loadCorpus, trainerFor, explained }) {
  return {
    /**
     * Train short, test long (trainer()): for each arm, a model trained on `task` at trainLength (steps of batchSize
     * sequences each, Adam at peak learning rate lr, schedule: the request's {warmup_steps, lr_decay, grad_clip}) with
     * arm.encoding (then arm.recalibration_steps more steps without it: DroPE) and evaluated at 1, 2, 4
     * and 8 times trainLength, with arm.eval_encoding when it has one (a RoPE scaling applied at test time:
     * the same seed trains the same model again). A job (memoizeJob): in arm workers up to the cores the browser
     * reports (engine/arms.js), or here TRAIN_CHUNK sequences at a time, yielding its progress between chunks (with
     * workers: {done, total, label}); stopped, it frees the trainers and workers it holds.
     * @param {{name: string, encoding: object, eval_encoding?: object, recalibration_steps?: number}[]} arms
     * @yields {{done: number, total: number, label: string, arm?: {name: string, index: number, count: number, done: number,
     *   total: number}, partial?: object[], partialNote?: string}}
     *   steps done of all arms' total, and (here) of the arm in training (index from 0), the same again between the arm's
     *   evaluation units; label: the arms in training, those done and the time left (arms.js timeLeft); now and then
     *   (arms.js partialGate), partial: the runs so far in the returned value's shape (those finished, and those training
     *   with their loss so far, eval and maps empty and running: true) and partialNote: "k of n arms finished"
     * @returns {{name: string, loss: Float32Array(steps + recalibration_steps), eval: {length, accuracy, loss}[],
     *   retrained: boolean, repeats: string|null, recalibrationSteps: number, maps: object[]}[]}
     *   retrained: an arm tested with another encoding, whose training repeats an earlier arm's (repeats: that arm's
     *   name, arm.repeats); maps: train()'s
     *   trained attention weights at trainLength and 4 x trainLength (the parameters are not kept)
     */
    experiment: function* experiment(task, layers, trainLength, steps, dModel, vocab, seed, batchSize, lr, arms, schedule) {
      const requests = arms.map((arm) => ({ task, layers, train_length: trainLength, steps, d_model: dModel, vocab, seed,
        batch_size: batchSize, lr, ...schedule, encoding: arm.encoding, ...(arm.eval_encoding ? { eval_encoding: arm.eval_encoding } : {}),
        recalibration_steps: arm.recalibration_steps ?? 0, eval_lengths: [1, 2, 4, 8].map((f) => f * trainLength) }));
      const total = requests.reduce((sum, r) => sum + r.steps + r.recalibration_steps, 0);
      const runOf = (arm, index, result) => ({ name: arm.name, loss: result.loss, eval: result.eval, maps: result.maps,
        retrained: Boolean(arm.eval_encoding), repeats: arm.repeats ?? null, recalibrationSteps: requests[index].recalibration_steps });
      /** An arm in training, in the shape of runOf's, its loss so far (eval and maps empty). */
      const runningOf = (arm, index, loss) => ({ ...runOf(arm, index, { loss, eval: [], maps: [] }), running: true });
      const names = arms.map((a) => a.name);
      // The arm workers' driver (engine/arms.js), a module the labs' first request loads.
      const { trainInWorkers, workerCount, armsLabel, finishedOf, partialGate, timeLeft, timeLeftText } = yield { wait: import('./arms.js') };
      const count = spawnArm ? workerCount(arms.length) : 0;
      const gate = partialGate();
      /** The progress with, now and then (partialGate), the runs so far: those finished and those training (their loss so far). */
      const withPartial = (progress, finished, runsOf) => {
        if (!gate(finished)) return progress;
        const runs = runsOf();
        return runs.length ? { ...progress, partial: runs, partialNote: `${finished} of ${arms.length} arms finished` } : progress;
      };
      if (count > 0) {  // in arm workers, several at once; a bad request is refused here first, in the page's terms
        trainerFor(requests[0]).free();
        const progressOf = (states, { curves, outcomes }) => {
          const steps = (s, k) => (s.phase === 'train' ? s.done : s.phase === 'queued' ? 0 : requests[k].steps + requests[k].recalibration_steps);
          const runs = () => arms.flatMap((arm, k) => (outcomes[k] ? [runOf(arm, k, outcomes[k].result)]
            : curves[k].length ? [runningOf(arm, k, curves[k].read().loss)] : []));
          return withPartial({ done: states.reduce((sum, s, k) => sum + steps(s, k), 0), total, label: armsLabel(names, states, count) },
            finishedOf(states), runs);
        };
        let outcomes;
        try {
          outcomes = yield* trainInWorkers(spawnArm, requests, count, progressOf);
        } catch (error) {
          throw explained(error, requests[0]);
        }
        return outcomes.map(({ result }, index) => runOf(arms[index], index, result));
      }
      const runs = [];
      let before = 0;  // steps of the arms already trained
      const started = performance.now();
      for (const [index, arm] of arms.entries()) {
        const trainer = trainerFor(requests[index]);
        let result;
        try {
          // The progress after a chunk: the arm in training, and the time left at the ms per step of all arms so far.
          // (the arms here train one after the other: every step so far, evaluations included, at one measured rate)
          const progress = () => {
            const left = timeLeftText(timeLeft([{ phase: 'train', done: before + trainer.done, total, steps: total, units: 0,
              trainMs: performance.now() - started }], 1));
            return withPartial({ done: before + trainer.done, total, arm: { name: arm.name, index, count: arms.length, done: trainer.done,
              total: trainer.total }, label: `training ${arm.name}: ${trainer.done} / ${trainer.total} steps (arm ${index + 1} of ` +
              `${arms.length}${left ? `; ${left}` : ''})` }, index, () => [...runs, runningOf(arm, index, trainer.losses().loss)]);
          };
          while (trainer.done < trainer.total) {
            // About TRAIN_CHUNK sequences a slice, and never more steps than one call's budget holds.
            trainer.step(Math.min(trainer.stepsPerCall, Math.max(1, Math.round(TRAIN_CHUNK / (batchSize ?? 1)))));
            yield progress();
          }
          // The evaluation a unit at a time: each fits one call's budget (trainer() checked), together they may not.
          while (trainer.evaluated < trainer.evaluationTotal) {
            trainer.evaluate(1);
            yield progress();
          }
          result = trainer.finish();
        } finally {
          trainer.free();  // after finish(): nothing; stopped between chunks: the model's memory
        }
        before += trainer.total;
        runs.push(runOf(arm, index, result));
      }
      return runs;
    },

    /**
     * The language-model lab (labs/language-model.js): for each arm, a small transformer trained on the shipped corpus
     * (`base`: the train request's model, schedule and lengths; task 'text') with arm.encoding, evaluated at `base`'s
     * eval_lengths (with arm.eval_encoding when it has one: a RoPE scaling at test time), its validation loss every
     * validation_every steps and its samples; with seeds > 1, every arm again at seeds base.seed + 1 ... (every arm at
     * one seed, then every arm at the next). A job: the text is fetched once, then the models train in arm workers up
     * to the cores the browser reports (engine/arms.js), or one after the other here. Stopped, it frees what it holds.
     * @param {object} base  a TrainRequest without task, text and encoding
     * @param {{name: string, encoding: object, eval_encoding?: object}[]} arms
     * @param {number} [seeds]  models per arm (1 to 5), at seeds base.seed, base.seed + 1, ...
     * @yields {{done: number, total: number, label: string, partial?: object[], partialNote?: string}}  the models'
     *   progress in thousandths of a model; label: the models in training, those done and the time left (arms.js
     *   armsLabel); now and then (arms.js partialGate), partial: the runs so far in the returned value's shape (an arm
     *   whose first seed is training: its loss and validation so far, eval and samples empty, running: true; one not
     *   started: absent), and partialNote: "k of n arms finished"
     * @returns {{name: string, loss: Float32Array, validation: {step, loss}[],
     *   eval: {length, accuracy, loss, perplexity, loss_se, windows, characters}[], samples: {prompt, generated}[],
     *   msPerStep: number, retrained: boolean, heads: object[], reproduces: boolean|null,
     *   bySeed?: {seed, loss, validation, eval, msPerStep}[]}[]}
     *   per arm, its first seed's model; heads: layer 0's trained heads' encodings (the family's explicit keys); reproduces:
     *   whether head 0 is the trained set the family's views show, bit for bit (null: other settings, or a family without
     *   one); bySeed (seeds > 1): each seed's model that finished, in seed order
     */
    languageModel: function* languageModel(base, arms, seeds = 1) {
      if (!corpus) throw badParam('corpus', 'none', 'the shipped text, which this build of the engine has no way to load');
      const count = arms.length * seeds;
      const text = yield { progress: { done: 0, total: 1000 * count, label: 'loading the text…' }, wait: loadCorpus() };
      // Whether an arm trained the set the family's views show (families/trained.js) again, bit for bit: its settings are
      // the set's, and head 0 of layer 0 holds the same float32 numbers (the set's learned table is the first rows).
      const types = arms.map((a) => a.encoding.type).filter((t) => TRAINED_TYPES.includes(t));
      yield { progress: { done: 0, total: 1000 * count, label: 'loading the shipped parameters…' }, wait: loadTrained(types) };
      const reproduces = (arm, head) => {
        const shipped = trainedOf(arm.encoding.type);
        if (!shipped || arm.eval_encoding || !sameTraining(shipped.provenance.request, base)) return null;
        return Object.entries(shipped.spec).every(([key, value]) => (Array.isArray(value)
          ? Array.isArray(head[key]) && value.every((x, i) => x === head[key][i])
          : key === 'max_position_embeddings' || key === 'seed' || head[key] === undefined || head[key] === value));
      };
      // Model k: arm k % arms.length at seed base.seed + floor(k / arms.length).
      const requests = Array.from({ length: count }, (_, k) => {
        const arm = arms[k % arms.length];
        return { ...base, seed: base.seed + Math.floor(k / arms.length), task: 'text', text, encoding: arm.encoding,
          ...(arm.eval_encoding ? { eval_encoding: arm.eval_encoding } : {}) };
      });
      const names = requests.map((r, k) => (seeds > 1 ? `${arms[k % arms.length].name} (seed ${r.seed})` : arms[k % arms.length].name));
      /** The runs, one per arm whose first seed finished or is training (see @yields). */
      const runsOf = (outcomes, curves, states) => arms.flatMap((arm, a) => {
        const first = outcomes[a];
        const retrained = Boolean(arm.eval_encoding);
        if (!first) {
          if (states[a].phase !== 'train' && states[a].phase !== 'evaluate') return [];
          return [{ name: arm.name, retrained, ...curves[a].read(), eval: [], samples: [], msPerStep: NaN, heads: [], reproduces: null,
            running: true }];
        }
        const { result, msPerStep } = first;
        const bySeed = seeds > 1 ? Array.from({ length: seeds }, (_, s) => [requests[a + s * arms.length].seed, outcomes[a + s * arms.length]])
          .filter(([, o]) => o).map(([seed, o]) => ({ seed, loss: o.result.loss, validation: o.result.validation, eval: o.result.eval,
            msPerStep: o.msPerStep })) : null;
        return [{ name: arm.name, retrained, loss: result.loss, validation: result.validation, eval: result.eval, samples: result.samples,
          msPerStep, heads: result.params.layers[0].heads.map((h) => h.encoding),
          reproduces: reproduces(arm, result.params.layers[0].heads[0].encoding), ...(bySeed ? { bySeed } : {}) }];
      });
      const { trainHere, trainInWorkers, workerCount, armsLabel, finishedOf, partialGate } = yield { wait: import('./arms.js') };  // on first use
      const workers = spawnArm ? workerCount(count) : 0;
      const gate = partialGate();
      const progressOf = (states, { curves, outcomes }) => {
        // A model's share of the bar: 70% its steps, 30% its test (65,536 held-out characters at each length, then
        // the samples), as a default arm's time splits (quick, 600 steps, in Node: about 14 s and 6 s for every encoding).
        const fraction = (s) => (s.phase === 'done' ? 1 : s.phase === 'train' ? 0.7 * s.done / s.total
          : s.phase === 'evaluate' ? 0.7 + 0.3 * s.done / s.total : 0);
        const finished = finishedOf(states);
        const progress = { done: Math.round(1000 * states.reduce((sum, s) => sum + fraction(s), 0)), total: 1000 * count,
          label: armsLabel(names, states, Math.max(1, workers)) };
        const started = curves.some((c) => c.length > 0) || finished > 0;
        if (!started || !gate(finished)) return progress;
        return { ...progress, partial: runsOf(outcomes, curves, states),
          partialNote: `${finished} of ${count} ${seeds > 1 ? 'models' : 'arms'} finished` };
      };
      const outcomes = workers > 0 ? yield* trainInWorkers(spawnArm, requests, workers, progressOf) : yield* trainHere(pe, requests, progressOf);
      return runsOf(outcomes, null, null);
    },
  };
}
