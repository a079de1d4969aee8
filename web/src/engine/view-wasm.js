// posenc-view.wasm's bytes (or a family group's posenc-view-<group>.wasm, engine/view-groups.js), fetched by the page
// as its engine starts (engine/page.js), not by the worker once its own script has arrived and run: on a phone
// network that is one request level and about 1 s earlier (issue 40, tests/bench/embed-weight.mjs --phone). The
// playground and the tour name posenc-view.wasm's URL in a <link rel="preload" as="fetch" crossorigin>
// (vite.config.js), which this fetch takes over; embed.html starts its group's from its first script
// (shells/embed-start.js), and <posenc-view> on another page from its own module. No imports but the groups' list, so
// that it costs no request level of its own.
import viewWasmUrl from '../../generated/posenc-view.wasm?url';

/** Each group's module URL, by group name (the build names each file for its content). */
const GROUP_URLS = Object.fromEntries(Object.entries(import.meta.glob('../../generated/posenc-view-*.wasm',
  { query: '?url', import: 'default', eager: true })).map(([path, url]) => [/posenc-view-(.+)\.wasm$/.exec(path)[1], url]));

let pending = null;  // {group, bytes}: the download started and not yet taken
const taken = new Set();  // the modules whose bytes the engine took: a start after that (embed-start.js's, an async
// script, may run after the page's engine started) downloads nothing

/** The URL of group `group`'s module, or posenc-view.wasm's for null. */
export function viewWasmUrlOf(group) {
  const url = group === null ? viewWasmUrl : GROUP_URLS[group];
  if (!url) throw new Error(`posenc: no view module for the family group "${group}" (wasm/view-groups.json)`);
  return new URL(url, import.meta.url);
}

/**
 * Starts downloading the view module's bytes, once: posenc-view.wasm's, or with `group` that group's module's (a
 * page's first script calls it; the engine takes them). A download of another module started before is dropped; one
 * of a module whose bytes the engine has taken is not started again.
 * @param {string | null} [group]
 */
export function startViewWasm(group = null) {
  if (pending?.group === group || taken.has(group)) return;
  pending = { group, bytes: download(group) };
}

/** The bytes of group `group`'s module (posenc-view.wasm's for null), or null if the fetch fails. */
function download(group) {
  return fetch(viewWasmUrlOf(group)).then((response) => (response.ok ? response.arrayBuffer() : null)).catch(() => null);
}

/**
 * The view module's bytes, from the download startViewWasm began (started now if it was not, or was of another
 * module), handed over once: an ArrayBuffer the engine transfers to its worker; a later call downloads again.
 * @param {string | null} [group]
 * @returns {Promise<ArrayBuffer | null>}  null when the fetch fails (offline, a host that does not serve it): the
 *   worker then fetches the module itself, and says why if that fails too
 */
export function takeViewWasm(group = null) {
  const bytes = pending?.group === group ? pending.bytes : download(group);
  pending = null;
  taken.add(group);
  return bytes;
}
