// Keeps a set of views in step with a params object: asks the engine for the
// fields each view needs, draws them, and recomputes a view only when a
// parameter it read (in the worker, or while drawing) has changed. Answers
// arrive in any order; one is drawn only if the parameters it read still hold
// their latest values, so a stale answer is dropped, never drawn. A view that
// has waited 200 ms shows progress over its last figure, which stays until
// the new one replaces it; a view whose computation fails keeps it too.

let sessions = 0;

/** A proxy of params that records the names read through it. */
function tracking(params) {
  const reads = new Set();
  const proxy = new Proxy(params, { get(target, key) { if (typeof key === 'string' && key in target) reads.add(key); return target[key]; } });
  return { proxy, reads };
}

/** Whether a and b hold the same value for every name. */
function sameOn(names, a, b) {
  for (const name of names) if (JSON.stringify(a[name]) !== JSON.stringify(b[name])) return false;
  return true;
}

/**
 * @param {object} o
 * @param {object} o.engine           from engine.js
 * @param {string} o.family           the spec type of the family (families/index.js)
 * @param {object[]} o.views          view modules
 * @param {Map<string, object>} o.frames  view id -> its frame (view-frame.js)
 * @param {(error: Error, viewId: string) => boolean} [o.place]  shows an error elsewhere (beside a
 *   control) and returns true, or returns false to have the view's frame show it
 * @param {(viewId: string, error: Error|null) => void} [o.onSettle]  after each view settles
 * @param {number} [o.busyAfter]      ms before progress shows (200)
 */
export function createSession({ engine, family, views, frames, place = () => false, onSettle = () => {}, busyAfter = 200 }) {
  const id = ++sessions;
  let version = 0;
  let destroyed = false;
  let waiters = [];
  const states = new Map(views.map((view) => [view.id, {
    view, frame: frames.get(view.id), latest: null, outstanding: 0, settledVersion: 0, settled: null, error: null, busyTimer: null,
  }]));
  const keyOf = (st) => `${id}:${st.view.id}`;

  function check() {
    if (![...states.values()].every((st) => st.settledVersion === version)) return;
    const errors = [...states.values()].filter((st) => st.error).map((st) => ({ viewId: st.view.id, error: st.error }));
    for (const w of waiters) w.resolve({ errors });
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
    busy(st, false);
    if (error) {
      st.frame.setError(place(error, st.view.id) ? null : error.message);
      st.frame.setStale(true);
    } else {
      st.frame.setError(null);
      st.frame.setStale(false);
    }
    onSettle(st.view.id, error);
    check();
  }

  function draw(st, params, deps, data) {
    const { proxy, reads } = tracking(params);
    let error = null;
    try {
      st.view.render(st.frame.figure, data, proxy);
    } catch (e) {
      error = e;
    }
    settle(st, params, new Set([...deps, ...reads]), data, error);
  }

  function receive(st, params, result) {
    st.outstanding--;
    if (destroyed) return;
    if (result.superseded || st.settledVersion === version) { check(); return; }
    const deps = new Set(result.reads);
    if (!sameOn(deps, params, st.latest)) { check(); return; }  // stale: a parameter it read has moved on
    if (st.outstanding > 0) engine.cancel(keyOf(st));  // the queued ones would give the same answer
    if (result.error) settle(st, params, deps, null, result.error);
    else draw(st, params, deps, result.data);
  }

  function request(st, params) {
    st.outstanding++;
    if (!st.busyTimer) busy(st, true);
    engine.view(keyOf(st), family, params, st.view.needs).then((result) => receive(st, params, result),
      (error) => receive(st, params, { error, reads: [] }));
  }

  return {
    /**
     * Brings every view up to params.
     * @param {object} params   parsed values (state.js)
     * @param {Set<string>} [invalid]  names whose control holds a bad value: a view that reads one keeps its
     *   figure, dimmed, and is not recomputed
     * @returns {Promise<{errors: {viewId: string, error: Error}[]} | {superseded: true}>} once every view has settled
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
        } else if (st.outstanding === 0 && known && sameOn(known.deps, known.params, params)) {
          st.settledVersion = version;
          st.settled = { ...known, params };
          st.frame.setStale(Boolean(st.error));
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

    /** The current errors, one per failing view. */
    errors() {
      return [...states.values()].filter((st) => st.error).map((st) => ({ viewId: st.view.id, error: st.error }));
    },

    destroy() {
      destroyed = true;
      for (const st of states.values()) { busy(st, false); engine.cancel(keyOf(st)); }
      for (const w of waiters) w.resolve({ superseded: true });
    },
  };
}
