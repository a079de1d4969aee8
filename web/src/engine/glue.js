// The wasm modules' glue (CMakeLists.txt): posenc.mjs (every function), posenc-view.mjs (the views' functions) and
// posenc-view-<group>.mjs (the views' functions with one family group's families, engine/view-groups.js), each a chunk
// loaded when the engine needs it (engine/worker.js, and engine/page.js's page-thread server).

const GROUP_GLUE = Object.fromEntries(Object.entries(import.meta.glob('../../generated/posenc-view-*.mjs'))
  .map(([path, load]) => [/posenc-view-(.+)\.mjs$/.exec(path)[1], load]));

/**
 * The glue module (its default export: createPosenc) of module `which`: 'full' (posenc.mjs) or 'view' (with `group`,
 * that group's posenc-view-<group>.mjs; without, posenc-view.mjs).
 * @param {'view' | 'full'} which
 * @param {string | null} [group]
 * @returns {Promise<{default: (options?: object) => Promise<object>}>}
 */
export function viewGlue(which, group = null) {
  if (which === 'full') return import('../../generated/posenc.mjs');
  if (!group) return import('../../generated/posenc-view.mjs');
  const load = GROUP_GLUE[group];
  if (!load) return Promise.reject(new Error(`posenc: no view module for the family group "${group}" (wasm/view-groups.json)`));
  return load();
}
