// Starting the engine's workers and fetching what they read, from any page: the
// playground, an embed, or a component on another origin's page.

// Under Trusted Types (`require-trusted-types-for 'script'`: the built pages' policy, web/README.md "Under a strict
// Content-Security-Policy") the Worker constructor takes only a TrustedScriptURL. posenc's one policy, 'posenc', lives
// here and makes nothing else: the URL of one of posenc's own scripts (a worker of its bundle, on the origin its
// modules come from) or of a stub this module made. Any other string a script sink is given is refused by the browser
// (there is no default policy), and a page whose trusted-types directive does not name 'posenc' gets no policy: there
// new Worker throws, and the engine computes on the page's thread (engine/page.js).
const OWN_ORIGIN = new URL(import.meta.url).origin;
const stubs = new Set();  // the blob: URLs of the stubs moduleWorker made
let policy;  // undefined until first needed; null where Trusted Types are absent or the page refuses the name

/** `href` as the Worker constructor takes it: a TrustedScriptURL where the browser has Trusted Types, else the string. */
function scriptUrl(href) {
  if (policy === undefined) {
    try {
      policy = globalThis.trustedTypes?.createPolicy('posenc', {
        createScriptURL: (url) => {
          if (stubs.has(url) || new URL(url).origin === OWN_ORIGIN) return url;
          throw new TypeError(`posenc: ${url} is not one of posenc's worker scripts`);
        },
      }) ?? null;
    } catch {
      policy = null;  // the page's trusted-types directive does not allow the name 'posenc'
    }
  }
  return policy ? policy.createScriptURL(href) : href;
}

/**
 * A module worker running the script at `url`. A worker script must be same-origin: from another origin (the
 * component on a blog, served with CORS), a blob stub of the page's origin imports the real one.
 * @param {URL} url  one of posenc's own scripts (engine/worker.js, engine/arm-worker.js), on the origin of this module
 * @param {string} [name]  the worker's self.name (engine/worker.js reads which wasm module to start with from it)
 * @returns {Worker}
 * @throws {TypeError}  for a script of another origin; where the page enforces Trusted Types and refuses the policy
 *   'posenc' (the caller computes without a worker)
 */
export function moduleWorker(url, name = '') {
  if (url.origin !== OWN_ORIGIN) throw new TypeError(`posenc: ${url.href} is not one of posenc's worker scripts`);
  if (url.origin === location.origin) return new Worker(scriptUrl(url.href), { type: 'module', name });
  const stub = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' }));
  stubs.add(stub);
  return new Worker(scriptUrl(stub), { type: 'module', name });
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
