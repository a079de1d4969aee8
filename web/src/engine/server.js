// The engine's request loop (createServer): it answers the page's requests (engine/page.js) in order, one at a
// time, yielding between them so a newer request for the same view can replace a queued older one, and runs a job a
// slice at a time; it runs in the worker (engine/worker.js), or on the page itself where no worker can start. What
// it computes with is createCalls's (calls.js).
import { askedHead, computeFields, createCalls } from './calls.js';
import { CACHE_BYTES } from './cache.js';
import { COMPARISON_NEEDS, loadCompute, trainedNeeds } from '../families/compute.js';
import { WEIGHTS, loadTrained } from '../families/trained.js';
import { headNeeds, loadHeads, shippedHead } from '../families/heads.js';
import { SHIPS_FIELDS, loadShippedFields, shippedFields } from '../families/shipped-fields.js';
import { attachPreviews } from '../lib/box-average.js';
import { detach } from './detach.js';
import { needsFullModule } from './modules.js';

/** Adds the buffers of typed arrays in value that are not in transfer yet. */
function collectBuffers(value, transfer) {
  if (ArrayBuffer.isView(value)) {
    if (!transfer.includes(value.buffer)) transfer.push(value.buffer);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) collectBuffers(v, transfer);
  }
}

function errorMessage(error) {
  return { name: error instanceof RangeError ? 'RangeError' : 'Error', message: String(error?.message ?? error), code: error?.code,
    param: error?.param, value: error?.value, allowed: error?.allowed, reads: error?.reads ?? [] };
}

/** Whether value is a job: a generator that yields progress and returns a field's value (memoizeJob). */
function isJob(value) {
  return typeof value?.next === 'function' && typeof value?.return === 'function' && typeof value?.[Symbol.iterator] === 'function';
}

/**
 * The request loop. Requests (from page.js):
 *   {id, op: 'view', key, family, params, needs, previews?}  -> {id, started: true} when it starts, then
 *     {id, data, reads} or {id, error: {name, message, reads}}
 *     (previews: {rows, cols}: every larger matrix in data gets a block-averaged preview, lib/box-average.js)
 *   {id, op: 'call', method, args}                -> {id, value} or {id, error}
 *   {op: 'cancel', key}                           drops the queued requests of that key ({id, superseded: true})
 *                                                 and stops its running job ({id, cancelled: true})
 *   {op: 'priority', key, priority}               changes the priority of the queued requests of that key
 *   {op: 'expect', family, weights?, head?}       starts loading what a request of that family will read: the module
 *                                                 its fields are computed with (families/compute.js loadCompute), its
 *                                                 trained set (families/trained.js: weights 'trained' or 'initial', the
 *                                                 default) and, head true, its shipped trained head (families/heads.js)
 * A 'view' request replaces any queued request with the same key, in its place. Requests are
 * answered in order, the lower `priority` first (the page gives 0 to views in sight).
 *
 * Jobs: a field (or a call) whose value is a job (a generator: it yields progress and returns the
 * value, see memoizeJob) runs a slice of about `sliceMs` at a time. After each slice the server posts
 * {id, progress} (what the job yielded last; with {partial: {[field]: value so far}} when that progress carried a
 * partial value, which the page draws while the job runs) and yields to the event loop (setTimeout 0), so
 * messages arrive: a 'cancel' of the request's key, or a newer 'view' request with its key, stops
 * the job there (its generator's return(): a `finally` frees what it holds) and answers
 * {id, cancelled: true} or {id, superseded: true}.
 *
 * Memory: WebAssembly memory only grows, so after a large request (applyRope on 2^24 floats
 * takes 160 MiB) the instance would hold that memory for the life of the tab. When the module's
 * memory is above `memoryLimit` bytes after a request, the server drops the instance and its
 * caches and loads a fresh one (about 15 ms) before the next request; it posts
 * {op: 'restarted', memoryBytes} (the size it dropped) so the page can tell. The default
 * keeps the page's usual large views (attention on 2048 tokens: 123 MiB) on one instance. It does the
 * same after a request whose error may have left the instance in a bad state (a WebAssembly trap, or an
 * error with code 'internal'). The memoised calls keep at most CACHE_BYTES of results between requests.
 *
 * Shipped fields (families/shipped-fields.js: compare mode's default comparison) answer a view request whose needs
 * and read params they match, before and without any module.
 *
 * Two modules (CMakeLists.txt): the server starts on load('view') (posenc-view.wasm: what the views compute at their
 * first figure). A request that calls a function that module lacks (the JS API throws .code 'unavailable': the
 * trainer, the model lab's, the trained head's) makes it load load('full') (posenc.wasm, every function) in its
 * place, with fresh caches, post {op: 'module', module: 'full'}, and answer that request again, from the start
 * (a view request needsFullModule names is answered on posenc.wasm from the start); every later instance (a restart)
 * is a full one too. If posenc.wasm cannot load, that request is answered with
 * the error and the view module keeps serving. Started with a family group (option group: an embed of one family's
 * view, engine/view-groups.js), the view module is that group's, posenc-view-<group>.wasm, until a request calls what
 * it lacks (a spec of another family, or another family's own function: also .code 'unavailable'); then
 * posenc-view.wasm loads in its place the same way ({op: 'module', module: 'view', group: null}), and posenc.wasm
 * after it if that request needs it too.
 * @param {(module: 'view' | 'full', group: string | null) => Promise<object>} load  instantiates the wasm module of
 *   that name (createPosenc of web/generated/posenc-view.mjs, posenc-view-<group>.mjs or posenc.mjs); a load that
 *   always gives the full module is fine
 * @param {(message: object, transfer?: ArrayBuffer[]) => void} post
 * @param {{memoryLimit?: number, sliceMs?: number, corpus?: () => Promise<string>, spawnArm?: () => Worker,
 *   module?: 'view' | 'full' | 'auto' | 'deferred', group?: string | null}} [options]
 *   bytes of wasm memory kept between requests (default 128 MiB); ms of a job between two progress messages (default 30;
 *   0: after every yield); createCalls's corpus and spawnArm; the module to start with (default 'view'; 'full' for a
 *   page whose first request needs posenc.wasm, see needsFullModule: one .wasm download, not two; 'auto': the first
 *   computing view request's or call's, loaded when it arrives: 'full' for a view request needsFullModule names or whose
 *   trained head does not ship, else 'view'; 'deferred': as 'auto', and the view module loads once the requests
 *   shipped fields answered are done); the family group of the first view module (default null: posenc-view.wasm)
 * @returns {(message: object) => void} the function to hand each request to
 */
export function createServer(load, post, { memoryLimit = 128 * 2 ** 20, sliceMs = 30, corpus = null, spawnArm = null, module = 'view',
  group = null } = {}) {
  const queue = [];
  let pe = null;
  let calls = null;
  let failure = null;
  let running = false;
  let current = null;  // the request being answered; between a job's slices, a message can stop it (current.stop)
  let kind = module === 'full' ? 'full' : 'view';  // the module instances come from: 'view' until a request needs posenc.wasm
  if (kind === 'full') group = null;  // with 'view': the family group whose module serves (null: posenc-view.wasm)
  let lacked = false;  // whether the view module threw 'unavailable' during this request (however the caller wrapped it)
  /** The view module with its API functions watched for 'unavailable' (a family may wrap the error in its own). */
  const watched = (instance) => (kind !== 'view' ? instance : new Proxy(instance, {
    get(target, name) {
      const value = target[name];
      if (typeof value !== 'function') return value;
      return function call(...args) {
        try {
          return value.apply(target, args);
        } catch (error) {
          if (error?.code === 'unavailable') lacked = true;
          throw error;
        }
      };
    },
  }));
  const start = () => load(kind, kind === 'view' ? group : null).then((module) => {
    pe = watched(module);
    calls = createCalls(pe, { corpus, spawnArm });
    post({ op: 'ready', version: pe.version(), module: kind, group: kind === 'view' ? group : null });
  }, (error) => {
    failure = new Error(`${error?.message ?? error} (is the .wasm next to the scripts, served as application/wasm, with CORS from another origin?)`);
    post({ op: 'ready', error: errorMessage(failure) });
  });
  // module 'auto' or 'deferred': no module until the first request that computes says which (pickFor, in answer below).
  let choose = null;
  let ready = module === 'auto' || module === 'deferred' ? new Promise((resolve) => { choose = resolve; }).then(start) : start();
  let answeredShipped = false;  // whether a request was answered from shipped fields (families/shipped-fields.js)

  /** Picks the module (module 'auto' or 'deferred'): posenc.wasm for a request that needs it, else the view module. */
  function pickFor(request) {
    const pick = choose;
    choose = null;
    pick((request ? needsFull(request) : Promise.resolve(false)).then((full) => { kind = full ? 'full' : 'view'; }));
  }

  let broken = null;  // the error of a request that may have left the instance in a bad state (a trap, an 'internal' error)

  /** A fresh instance in place of one whose memory grew past memoryLimit, or that a request may have broken. */
  function restartIfNeeded() {
    const memoryBytes = pe?.HEAPU8.buffer.byteLength ?? 0;
    if (memoryBytes <= memoryLimit && !broken) return;
    const reason = broken ? `after ${broken.message}` : `after a request used ${memoryBytes} bytes`;
    broken = null;
    pe = null;
    calls = null;
    ready = load(kind, kind === 'view' ? group : null).then((module) => {
      pe = watched(module);
      calls = createCalls(pe, { corpus, spawnArm });
      post({ op: 'restarted', memoryBytes });
    }, (error) => {
      failure = new Error(`${error?.message ?? error} (reloading the engine ${reason})`);
    });
  }

  /**
   * A job's value, run a slice at a time with progress posted between slices; {stopped} if a message stopped it.
   * A job may yield {progress, wait: a promise} (arm workers, a text to fetch): its progress is posted, the promise
   * awaited and its value handed back to the job (a rejection stops the job and answers with its error).
   * A progress with a partial value (the field's value so far) is posted whatever the slice, as {id, progress, partial:
   * {[field]: value}} for a view's field (a call's keeps it in its progress).
   */
  async function drive(request, job, field = null) {
    const report = (progress) => {
      if (progress?.partial === undefined || field === null) post({ id: request.id, progress });
      else {
        const { partial, ...rest } = progress;
        post({ id: request.id, progress: rest, partial: { [field]: partial } });
      }
    };
    let slice = performance.now();
    let input;
    for (;;) {
      const { value, done } = job.next(input);
      input = undefined;
      if (done) return { value };
      if (typeof value?.wait?.then === 'function') {
        if (value.progress !== undefined) report(value.progress);
        try {
          input = await value.wait;
        } catch (error) {
          job.return();
          throw error;
        }
        slice = performance.now();
        if (request.stop) {
          job.return();
          return { stopped: request.stop };
        }
        continue;
      }
      if (performance.now() - slice < sliceMs && value?.partial === undefined) continue;
      report(value);
      await new Promise((resolve) => { setTimeout(resolve, 0); });
      slice = performance.now();
      if (request.stop) {
        job.return();
        return { stopped: request.stop };
      }
    }
  }

  /**
   * Whether a request needs posenc.wasm from the start: a view request needsFullModule names, or one whose trained head
   * does not ship (askedHead finds the head it would train; families/heads.js has the shipped ones). A request this
   * misses still gets the full module, later: the view module's 'unavailable' error (answer below).
   */
  async function needsFull(request) {
    if (request.op !== 'view') return false;
    const { family, params = {}, needs = [] } = request;
    if (needsFullModule(family, params, needs)) return true;
    const heads = headNeeds(family, params, needs);
    if (heads.length === 0) return false;
    try {
      await loadCompute(family, needs, params);
      await loadTrained(trainedNeeds(family, params, needs), { initial: wantsInitial(params) });
      await loadHeads(heads);
      const asked = askedHead(family, params, needs);
      return !asked || !shippedHead(asked.spec, asked.task);
    } catch {
      return true;  // what cannot be loaded here fails as the request's own error, on whichever module
    }
  }

  /** Replaces the view module's instance by posenc.wasm's, with fresh caches; throws (the view module kept) if it cannot load. */
  async function loadFull() {
    let module;
    try {
      module = await load('full', null);
    } catch (error) {
      throw Object.assign(new Error(`posenc.wasm (the trainer and the model lab's functions) could not load: ${error?.message ?? error}`),
        { code: 'unavailable', param: 'posenc.wasm' });
    }
    kind = 'full';
    group = null;
    pe = module;
    calls = createCalls(pe, { corpus, spawnArm });
    post({ op: 'module', module: kind, group });
  }

  /** Replaces a family group's module by posenc-view.wasm (every family), with fresh caches; throws (the group's kept) if it cannot load. */
  async function loadAllFamilies() {
    let module;
    try {
      module = await load('view', null);
    } catch (error) {
      throw Object.assign(new Error(`posenc-view.wasm (every family's views) could not load: ${error?.message ?? error}`),
        { code: 'unavailable', param: 'posenc-view.wasm' });
    }
    group = null;
    pe = watched(module);
    calls = createCalls(pe, { corpus, spawnArm });
    post({ op: 'module', module: kind, group });
  }

  /** The next module for a request the serving one lacked: posenc-view.wasm after a group's, posenc.wasm after it. */
  const loadMore = () => (group !== null ? loadAllFamilies() : loadFull());

  /**
   * A view request's reply from shipped fields (families/shipped-fields.js: compare mode's default comparison), which
   * needs no module; null for any other request.
   */
  async function shippedReply(request) {
    if (request.op !== 'view') return null;
    await loadShippedFields(request.family);
    const shipped = shippedFields(request.family, request.params ?? {}, request.needs ?? []);
    return shipped && viewReply(request, shipped.data, shipped.reads);
  }

  /** A view request's reply [message, transfer]: its fields' arrays transferred, with previews where asked. */
  function viewReply(request, data, reads) {
    const { value, transfer } = detach(data);
    if (request.previews) {  // for views that paint matrices
      attachPreviews(value, request.previews);
      collectBuffers(value, transfer);
    }
    return [{ id: request.id, data: value, reads: [...reads] }, transfer];
  }

  async function answer(request) {
    const shipped = await shippedReply(request);
    if (shipped) {
      answeredShipped = true;
      return shipped;
    }
    // The module: picked by this request (module 'auto', 'deferred'), loaded, or reloaded after a restart.
    if (choose) pickFor(request);
    await ready;
    if (kind === 'view' && !failure && await needsFull(request)) {
      try {
        await loadFull();
      } catch (error) {
        return { id: request.id, error: errorMessage(error) };
      }
    }
    for (;;) {
      lacked = false;
      const reply = await answerOnce(request);
      if (kind !== 'view' || !lacked) return reply;
      try {
        await loadMore();
      } catch (error) {
        return { id: request.id, error: errorMessage(error) };
      }
    }
  }

  /** Whether a request shows a set's start of training: its weights, or a compare mode line's "weights=initial". */
  function wantsInitial(params) {
    return params.weights === 'initial' || Object.values(params).some((v) => typeof v === 'string' && /\bweights\s*=\s*initial\b/.test(v));
  }

  async function answerOnce(request) {
    if (failure) return { id: request.id, error: { ...errorMessage(failure), message: `the WebAssembly engine failed to load: ${failure.message}` } };
    let reads = new Set();  // a view's: what its fields read, its jobs' reads included (they run below)
    try {
      if (request.op === 'view') {
        // A lab's fields and the trained parameters it computes with (a module each, loaded once).
        await loadCompute(request.family, request.needs ?? [], request.params ?? {});
        await loadTrained(trainedNeeds(request.family, request.params ?? {}, request.needs ?? []),
          { initial: wantsInitial(request.params ?? {}) });
        await loadHeads(headNeeds(request.family, request.params ?? {}, request.needs ?? []));  // a shipped trained head
        const computed = computeFields(calls, request.family, request.params, request.needs);
        reads = computed.reads;
        const data = computed.data;
        for (const [field, value] of Object.entries(data)) {
          if (!isJob(value)) continue;
          const outcome = await drive(request, value, field);
          if (outcome.stopped) return { id: request.id, [outcome.stopped]: true };
          data[field] = outcome.value;
        }
        return viewReply(request, data, reads);
      }
      let value = await calls[request.method](...request.args);
      if (isJob(value)) {
        const outcome = await drive(request, value);
        if (outcome.stopped) return { id: request.id, [outcome.stopped]: true };
        value = outcome.value;
      }
      const { value: out, transfer } = detach(value);
      return [{ id: request.id, value: out }, transfer];
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError || error?.code === 'internal') broken = error;
      if (error && typeof error === 'object') error.reads ??= [...reads];
      return { id: request.id, error: errorMessage(error) };
    }
  }

  async function pump() {
    if (running) return;
    running = true;
    while (queue.length) {
      // The first of the most urgent (views in sight are priority 0, the rest 1).
      let next = 0;
      for (let k = 1; k < queue.length; k++) if ((queue[k].priority ?? 0) < (queue[next].priority ?? 0)) next = k;
      const request = queue.splice(next, 1)[0];
      if (request.op === 'view') post({ id: request.id, started: true });
      const start = performance.now();
      current = request;
      const reply = await answer(request);
      current = null;
      const label = request.op === 'view' ? `${request.family} ${request.needs.join(',')}` : request.method;
      performance.measure(`posenc: compute ${label}`, { start, end: performance.now() });  // for the performance panel,
      performance.clearMeasures(`posenc: compute ${label}`);  // not kept in the timeline
      if (globalThis.POSENC_TRACE) console.debug(  // set POSENC_TRACE = true in the worker to log each computation
        `posenc: compute ${label}: ${(performance.now() - start).toFixed(1)} ms`);
      try {
        if (Array.isArray(reply)) post(reply[0], reply[1]);
        else post(reply);
      } catch (error) {  // a reply that cannot be copied to the page: its request is answered all the same
        post({ id: request.id, error: errorMessage(new Error(`the engine's answer could not be sent to the page (${error?.message ?? error})`)) });
      }
      restartIfNeeded();
      await new Promise((resolve) => setTimeout(resolve, 0));  // let newer requests in
    }
    running = false;
    // Module 'deferred' after answering from shipped fields: the view module loads now, for the reader's next change.
    if (choose && answeredShipped) pickFor(null);
  }

  return (request) => {
    // A family's fields module, its trained set and a shipped trained head are fetched as the page says a view will
    // read them ({op: 'expect'}) or as the request arrives, beside the .wasm, not once the module is ready.
    if (request.op === 'expect') {
      const { family, weights = WEIGHTS.default, head = false, crossFamily = false, compareDistance } = request;
      // A name whose fields ship at its defaults (compare mode): those, what its first request most likely reads; what
      // it computes with loads when a request they do not answer arrives.
      if (SHIPS_FIELDS.includes(family)) {
        loadShippedFields(family);
        return;
      }
      // A view that reads other families: the decay comparison's references (shipped at its default range, else every
      // family's fields and trained sets).
      const needs = crossFamily ? COMPARISON_NEEDS : [];
      const params = { weights, compare_distance: compareDistance };
      loadCompute(family, needs, params).catch(() => {});  // a failed load is tried again, and said, by the request that needs it
      const trained = trainedNeeds(family, params, needs);
      if (trained.length) loadTrained(trained).catch(() => {});
      if (head) loadHeads([family]);
      return;
    }
    if (request.op === 'view') {
      // What it computes with, beside the .wasm if it is not ready yet; nothing where shipped fields answer it.
      const { family, params = {}, needs = [] } = request;
      loadShippedFields(family).then(() => {
        if (shippedFields(family, params, needs)) return;
        loadCompute(family, needs, params).catch(() => {});
        loadHeads(headNeeds(family, params, needs));
      });
    }
    if (request.op === 'priority') {
      for (const queued of queue) if (queued.key === request.key) queued.priority = request.priority;
      return;
    }
    if (request.op === 'cancel' || (request.op === 'view' && request.key)) {
      // A running job of the key stops at its next slice.
      if (current && current.key === request.key) current.stop ??= request.op === 'cancel' ? 'cancelled' : 'superseded';
      // A newer request takes the place of the one it replaces.
      const at = queue.findIndex((queued) => queued.key === request.key);
      for (let k = queue.length - 1; k >= 0; k--) {
        if (queue[k].key === request.key) post({ id: queue.splice(k, 1)[0].id, superseded: true });
      }
      if (request.op === 'cancel') return;
      if (at >= 0) {
        queue.splice(at, 0, request);
        pump();
        return;
      }
    }
    queue.push(request);
    pump();
  };
}
