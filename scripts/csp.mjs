// The Content-Security-Policy of posenc's pages (README and web/README.md, "Under a strict Content-Security-Policy"). The built
// index.html, tour.html and embed.html carry it as a <meta http-equiv> (vite.config.js, at build time only: the dev
// server's client injects styles and an error overlay the policy would refuse), and the browser tests also send it as
// a header (tests/e2e/browser.mjs STRICT_CSP).
// - nothing inline and no eval: scripts, workers, styles only from the page's origin; 'wasm-unsafe-eval' compiles the
//   engine's WebAssembly and allows nothing else;
// - Trusted Types: every script sink (innerHTML, a script's src, new Worker, ...) refuses a plain string; the one policy
//   allowed, 'posenc' (web/src/engine/spawn.js), makes the URLs of posenc's own workers and nothing else. There is no
//   default policy, so a sink posenc missed fails closed.

/** The policy, as a header value or a <meta http-equiv="Content-Security-Policy"> content. */
export const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types posenc',
].join('; ');
