// Starting the engine's workers and fetching what they read, from any page: the
// playground, an embed, or a component on another origin's page.

/**
 * A module worker running the script at `url`. A worker script must be same-origin: from another origin (the
 * component on a blog, served with CORS), a blob stub of the page's origin imports the real one.
 * @param {URL} url
 * @param {string} [name]  the worker's self.name (engine/worker.js reads which wasm module to start with from it)
 * @returns {Worker}
 */
export function moduleWorker(url, name = '') {
  if (url.origin === location.origin) return new Worker(url, { type: 'module', name });
  const stub = new Blob([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(stub), { type: 'module', name });
}

/**
 * The text at `url`.
 * @throws {Error}  .param 'corpus' when it cannot be fetched (offline, a host that does not serve it)
 */
export async function fetchText(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw Object.assign(new Error(`the text could not be fetched from ${url.href} (${error?.message ?? error})`), { param: 'corpus' });
  }
  if (!response.ok) throw Object.assign(new Error(`the text could not be fetched from ${url.href} (HTTP ${response.status})`), { param: 'corpus' });
  return response.text();
}
