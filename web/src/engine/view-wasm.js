// posenc-view.wasm's bytes, fetched by the page as its engine starts (engine/page.js), not by the worker once its own
// script has arrived and run: on a phone network that is one request level and about 1 s earlier (issue 40,
// tests/bench/embed-weight.mjs --phone). The built pages name the same URL in a <link rel="preload" as="fetch"
// crossorigin> (vite.config.js), which this fetch takes over; <posenc-view> on another page starts it from its own
// module. No imports, so that it costs no request level of its own.
import viewWasmUrl from '../../generated/posenc-view.wasm?url';

let pending = null;  // the download started and not yet taken

/**
 * Starts downloading the view module's bytes, once (a page's shell calls it first thing; the engine takes them).
 */
export function startViewWasm() {
  pending ??= fetch(new URL(viewWasmUrl, import.meta.url))
    .then((response) => (response.ok ? response.arrayBuffer() : null))
    .catch(() => null);
}

/**
 * The view module's bytes, from the download startViewWasm began (started now if it was not), handed over once: an
 * ArrayBuffer the engine transfers to its worker; a later call downloads again.
 * @returns {Promise<ArrayBuffer | null>}  null when the fetch fails (offline, a host that does not serve it): the
 *   worker then fetches the module itself, and says why if that fails too
 */
export function takeViewWasm() {
  startViewWasm();
  const bytes = pending;
  pending = null;
  return bytes;
}
