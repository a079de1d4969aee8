// Keeps a set of views in step with a params object: asks the engine for the
// fields each view needs, draws them, and recomputes a view only when a
// parameter it read (in the worker, or while drawing) has changed.
//
// A view has at most one request running in the worker. Newer params replace
// a request still queued there (it is never computed: superseded); while one
// runs, the newest params wait, and when its answer comes it is drawn (the
// figure follows a dragged slider as fast as the engine can go) and the
// waiting params are sent. An answer whose request was superseded is dropped,
// never drawn. A view that has shown nothing new for 200 ms shows progress
// over its last figure, which stays until the new one replaces it; a view
// whose computation fails keeps it too.
//
// A job (a training, engine/calls.js) reports progress while it runs: every
// view waiting shows it, with a Cancel button (cancel() below), and newer
// params are sent at once, so the server stops the job at its next slice
// rather than finishing a result nobody will see. Now and then its progress
// carries the fields so far (a lab's arms finished and in training): every view
// waiting whose fields they hold draws them, its progress a bar above the figure;
// cancelled, it keeps that figure, said to be partial.
//
// Requests that would fetch much before the page's first figure wait for it: a view whose module says
// afterFirstFigure (the decay comparison: its references need the trained sets, 60 KB gzip), and one that needs
// posenc.wasm while the engine serves posenc-view.wasm (engine/modules.js needsFullModule: a trained head, 260 KB).
// Each is asked for once the page has drawn a figure, or once it is in sight, or once no other view of its session
// is on its way (alone, an embed of it, it is asked for at once): until then it waits as it would for the engine
// (busy, no figure), and it draws its own numbers only.
import { tracking } from './lib/reads.js';
import { needsFullModule } from './engine/modules.js';

let sessions = 0;
/** The least ms between two partial figures of a view (drawPartial): more often, the reader sees no difference. */
const PARTIAL_MS = 1000;
let pageDrew = false;  // whether a view of this page has drawn a figure (the requests that wait for it, see above)

/** Whether a and b hold the same value for every name. */
function sameOn(names, a, b) {
  for (const name of names) if (JSON.stringify(a[name]) !== JSON.stringify(b[name])) return false;
  return true;
}

/**
 * @param {object} o
 * @param {object} o.engine           from engine/page.js
 * @param {string} o.family           the spec type of the family (families/catalogue.js)
 * @param {object[]} o.views          view modules
 * @param {Map<string, object>} o.frames  view id -> its frame (view-frame.js)
 * @param {(error: Error, viewId: string) => string|false} [o.place]  shows an error elsewhere (beside a
 *   control) and returns the control's name, or returns false to have the view's frame show it
 * @param {(viewId: string, error: Error|null) => void} [o.onSettle]  after each view settles
 * @param {number} [o.busyAfter]      ms before progress shows (200)
 */
export function createSession({ engine, family, views, frames, place = () => false, onSettle = () => {}, busyAfter = 200 }) {
  const id = ++sessions;
  let version = 0;
  let destroyed = false;
  let waiters = [];
  // running: a request the worker has started; queued: one sent but not started; held: params waiting for `running`.
  const states = new Map(views.map((view) => [view.id, {
    view, frame: frames.get(view.id), latest: null, running: null, queued: null, held: null,
    settledVersion: 0, settled: null, error: null, busyTimer: null, visible: true, cancelled: false, deferred: null,
    partial: null,  // the fields so far of a job under way that this view drew: {data, params, note}
  }]));
  const keyOf = (st) => `${id}:${st.view.id}`;
  /** Whether a request of view st at params waits for the page's first figure (see above). */
  const waitsForFigure = (st, params) => !pageDrew && !st.inSight
    && (Boolean(st.view.afterFirstFigure) || (engine.module !== 'full' && needsFullModule(family, params, st.view.needs)));

  /** Sends the requests that waited for the first figure (all of them, or view `only`'s). */
  function release(only = null) {
    for (const st of only ? [only] : states.values()) {
      if (!st.deferred || destroyed) continue;
      const params = st.deferred;
      st.deferred = null;
      send(st, params, true);
    }
  }

  /** A view drew a figure: the page's first figure is out, the views that waited for it are asked for. */
  function drew() {
    pageDrew = true;
    release();
  }

  function check() {
    // Nothing else on its way that could draw the first figure (every view waits, or the others failed, or kept a
    // figure a bad value stopped): the views that waited for it are asked for now.
    if ([...states.values()].some((st) => st.deferred) && [...states.values()].every((st) => st.deferred || !outstanding(st))) {
      release();
    }
    if (![...states.values()].every((st) => st.settledVersion === version)) return;
    const errors = [...states.values()].filter((st) => st.error).map((st) => ({ viewId: st.view.id, error: st.error }));
    const cancelled = [...states.values()].filter((st) => st.cancelled).map((st) => st.view.id);
    for (const w of waiters) w.resolve({ errors, cancelled });
    waiters = [];
  }

  function busy(st, on) {
    clearTimeout(st.busyTimer);
    st.busyTimer = null;
    if (on) st.busyTimer = setTimeout(() => { if (st.settledVersion !== version) st.frame.setBusy(true); }, busyAfter);
    else st.frame.setBusy(false);
  }

  function settle(st, params, deps, data, error) {
    const previous = st.settled;
    st.settled = error
      ? { params, deps, data: previous?.data ?? null, drawnParams: previous?.drawnParams ?? null }
      : { params, deps, data, drawnParams: params };
    st.error = error;
    st.settledVersion = version;
    st.partial = null;
    uncancel(st);
    busy(st, false);
    if (error) {
      // Beside its control if the shell has one (the view keeps its figure, or says where the message is:
      // one bad value is one message, not one per view); in the view otherwise.
      const placed = place(error, st.view.id);
      st.frame.setError(!placed ? error.message : st.settled.data ? null : `Not drawn: ${placed} is invalid (see its control).`);
      st.frame.setStale(true);
    } else {
      st.frame.setError(null);
      st.frame.setStale(false);
    }
    onSettle(st.view.id, error);
    check();
  }

  /** Draws data; returns the error it threw, if any, and the params it read. */
  function draw(st, params, data) {
    const { proxy, reads } = tracking(params);
    let error = null;
    const start = performance.now();
    try {
      st.view.render(st.frame.figure, data, proxy);
    } catch (e) {
      error = e;
    }
    // For the browser's performance panel and PerformanceObservers; not kept in the timeline (a long session would pile them up).
    performance.measure(`posenc: draw ${st.view.id}`, { start, end: performance.now() });
    performance.clearMeasures(`posenc: draw ${st.view.id}`);
    return { error, reads };
  }

  const outstanding = (st) => Boolean(st.running || st.queued || st.held || st.deferred);

  function receive(st, request, result) {
    if (st.running === request) st.running = null;
    if (st.queued === request) st.queued = null;
    if (destroyed) return;
    if (result.superseded || result.cancelled || st.settledVersion === version) { next(st); check(); return; }
    const deps = new Set(result.reads);
    const current = sameOn(deps, request.params, st.latest);
    if (!current && st.queued) { check(); return; }  // stale: a newer request is on its way
    if (result.error) {
      if (current) settle(st, request.params, deps, null, result.error);
      next(st);
      return;
    }
    const drawn = draw(st, request.params, result.data);
    if (!drawn.error) drew();
    const allDeps = new Set([...deps, ...drawn.reads]);
    if (current) {
      settle(st, request.params, allDeps, result.data, drawn.error);
    } else if (!drawn.error) {
      // An intermediate figure (the params moved on while it was computed): keep it, and the progress note away.
      st.settled = { params: request.params, deps: allDeps, data: result.data, drawnParams: request.params };
      st.frame.setStale(false);
      busy(st, false);
      busy(st, true);
    }
    next(st);
  }

  /** Sends the params that waited for the running request. */
  function next(st) {
    if (destroyed || st.running || st.queued || !st.held) return;
    const params = st.held;
    st.held = null;
    if (st.settledVersion === version) return;
    send(st, params);
  }

  /** Asks the engine for view st at params; one that waits for the first figure waits for release(), unless `now`. */
  function send(st, params, now = false) {
    if (!now && waitsForFigure(st, params)) {
      st.deferred = params;  // release() sends it
      return;
    }
    st.deferred = null;
    const request = { params };
    st.queued = request;
    engine.view(keyOf(st), family, params, st.view.needs, {
      previews: Boolean(st.view.previews), priority: st.visible ? 0 : 1,
      onStart: () => { if (st.queued === request) st.queued = null; st.running = request; },
      onProgress: (progress, partial) => progressed(st, request, progress, partial),
    }).then((result) => receive(st, request, result), (error) => receive(st, request, { error, reads: [] }));
  }

  function request(st, params) {
    uncancel(st);
    if (!st.busyTimer) busy(st, true);
    if (st.running && !st.running.job) st.held = params;  // sent when the running one answers
    else send(st, params);  // replaces a queued one, if any (and stops a running job)
  }

  /**
   * A job's progress: shown by every view waiting, and its fields so far (partial) drawn by each of them that needs only
   * those, for the same params; newer params held back for it stop it now.
   */
  function progressed(st, request, progress, partial) {
    if (destroyed || st.running !== request) return;
    request.job = true;
    if (st.settledVersion === version) return;  // cancelled: its answer is on its way
    if (st.held) {
      const params = st.held;
      st.held = null;
      send(st, params);
      return;
    }
    for (const other of states.values()) {
      if (!outstanding(other) || other.settledVersion === version) continue;
      other.frame.setProgress(progress, cancel);
      if (partial && other.latest === request.params && other.view.needs.every((field) => field in partial)) drawPartial(other, partial, progress);
    }
  }

  /**
   * Draws a job's fields so far in view st (its progress moves above the figure); a view with nothing of them to draw yet
   * (its render throws, lib/partial.js nothingYet) keeps its figure and waits.
   */
  function drawPartial(st, data, progress) {
    // At most a fifth of the page's time on them: a loss view of 18 long curves takes the better part of a second.
    const start = performance.now();
    if (start < (st.partialNext ?? 0)) {
      st.pendingPartial = { data, progress, params: st.latest };  // kept: cancel() draws it if no later one came
      return;
    }
    st.pendingPartial = null;
    const drawn = draw(st, st.latest, data);
    st.partialNext = performance.now() + Math.max(PARTIAL_MS, 4 * (performance.now() - start));
    if (drawn.error) return;
    st.partial = { data, params: st.latest, note: progress.partialNote ?? 'some of it finished' };
    st.frame.setPartial(true);
    st.frame.setStale(false);
    drew();
  }

  /**
   * Stops what every view waits for (a job stops at its next slice, engine.cancel). Each keeps its last
   * figure, dimmed, or says it has none; the same params are not asked again until retry() or a change.
   */
  function cancel() {
    for (const st of states.values()) {
      if (!outstanding(st) || destroyed) continue;
      st.held = null;
      st.deferred = null;
      engine.cancel(keyOf(st));
      // The job's latest fields, which the throttle kept from this view: drawn now, so that every view keeps the same
      // state of the job (the table's rows, the curves and the note's count of arms finished agree).
      const pending = st.pendingPartial;
      st.pendingPartial = null;
      if (pending?.params === st.latest) {
        st.partialNext = 0;
        drawPartial(st, pending.data, pending.progress);
      }
      const known = st.settled;
      const partial = st.partial?.params === st.latest ? st.partial : null;  // what it drew of the job it cancels
      st.partial = null;
      st.settled = partial
        ? { params: st.latest, deps: known?.deps ?? new Set(Object.keys(st.latest)), data: partial.data, drawnParams: st.latest }
        : { params: st.latest, deps: known?.deps ?? new Set(Object.keys(st.latest)), data: known?.data ?? null,
          drawnParams: known?.drawnParams ?? null };
      st.error = null;
      st.cancelled = true;
      st.settledVersion = version;
      busy(st, false);
      st.frame.setError(null);
      st.frame.setStale(!partial && Boolean(known?.data));
      st.frame.setNote(partial ? `Partial: ${partial.note}; cancelled. The figure shows what was done.`
        : known?.data ? 'Cancelled: the figure (dimmed) is the last one that finished.' : 'Cancelled: nothing to show yet.',
      { label: 'run again', run: retry });
      onSettle(st.view.id, null);
    }
    check();
  }

  /** Asks again what cancel() stopped. */
  function retry() {
    const again = [...states.values()].filter((st) => st.cancelled && !destroyed);
    if (!again.length) return;
    version++;
    for (const st of states.values()) {
      if (st.cancelled) request(st, st.latest);
      else st.settledVersion = version;
    }
  }

  function uncancel(st) {
    if (!st.cancelled) return;
    st.cancelled = false;
    st.frame.setNote(null);
  }

  // Views in sight are computed first.
  const sight = typeof IntersectionObserver === 'function' ? new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const st = [...states.values()].find((s) => s.frame.section === entry.target);
      if (st && entry.isIntersecting && !st.inSight) {  // seen (the first report says so of a view in sight at once)
        st.inSight = true;
        release(st);
      }
      if (!st || st.visible === entry.isIntersecting) continue;
      st.visible = entry.isIntersecting;
      if (st.queued) engine.prioritise(keyOf(st), st.visible ? 0 : 1);
    }
  }) : null;
  for (const st of states.values()) {
    st.visible = true;
    sight?.observe(st.frame.section);
  }

  return {
    /**
     * Brings every view up to params.
     * @param {object} params   parsed values (state.js)
     * @param {Set<string>} [invalid]  names whose control holds a bad value: a view that reads one keeps its
     *   figure, dimmed, and is not recomputed
     * @returns {Promise<{errors: {viewId: string, error: Error}[], cancelled: string[]} | {superseded: true}>} once every view
     *   has settled; cancelled: the views whose computation the reader cancelled (cancel())
     */
    update(params, invalid = new Set()) {
      version++;
      for (const w of waiters) w.resolve({ superseded: true });
      waiters = [];
      for (const st of states.values()) {
        st.latest = params;
        const known = st.settled;
        if (known && [...known.deps].some((name) => invalid.has(name))) {
          st.settledVersion = version;
          st.frame.setStale(true);
        } else if (!outstanding(st) && known && sameOn(known.deps, known.params, params)) {
          st.settledVersion = version;
          st.settled = { ...known, params };
          st.frame.setStale(Boolean(st.error) || (st.cancelled && Boolean(known.data)));
        } else {
          request(st, params);
        }
      }
      const done = new Promise((resolve) => waiters.push({ resolve }));
      check();
      return done;
    },

    /** Draws every view again from its last data (the width or the theme changed), one task each. */
    rerender() {
      for (const st of states.values()) {
        if (!st.settled?.data || st.error) continue;
        setTimeout(() => {
          if (destroyed || !st.settled?.data || st.error) return;
          try { st.view.render(st.frame.figure, st.settled.data, st.settled.drawnParams); } catch { /* kept as it was */ }
        }, 0);
      }
    },

    /** What view `viewId` last drew: {data, params}, or null. */
    drawn(viewId) {
      const st = states.get(viewId);
      return st?.settled?.data ? { data: st.settled.data, params: st.settled.drawnParams } : null;
    },

    /** The parameters view `viewId` read when it was last computed and drawn (empty before). */
    dependencies(viewId) {
      return new Set(states.get(viewId)?.settled?.deps ?? []);
    },

    /** Stops what every view waits for (a job at its next slice); each keeps its last figure, dimmed, and offers to run again. */
    cancel,

    /** The current errors, one per failing view. */
    errors() {
      return [...states.values()].filter((st) => st.error).map((st) => ({ viewId: st.view.id, error: st.error }));
    },

    destroy() {
      destroyed = true;
      sight?.disconnect();
      for (const st of states.values()) { busy(st, false); engine.cancel(keyOf(st)); }
      for (const w of waiters) w.resolve({ superseded: true });
    },
  };
}
