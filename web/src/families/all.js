// Every core family's page file, by its spec `type`, in the core's order (core/include/posenc/family_list.hpp, the one
// list; describe.js FAMILY_TYPES): one line per family, the file named by its type. pages.js imports them all at once
// (the page's rawFromSpec and compare mode); the engine's worker loads each when a request first names it (compute.js,
// by the same name: every one for the decay comparison), the page when it is first shown (catalogue.js). pages.js and
// a wasm test (page-agreement.test.mjs) check this list against the core's.
export * as sinusoidal from './page/sinusoidal.js';
export * as learned from './page/learned.js';
export * as none from './page/none.js';
export * as rope from './page/rope.js';
export * as xpos from './page/xpos.js';
export * as alibi from './page/alibi.js';
export * as t5 from './page/t5.js';
export * as shaw from './page/shaw.js';
export * as transformer_xl from './page/transformer_xl.js';
export * as kerple from './page/kerple.js';
export * as deberta from './page/deberta.js';
export * as fire from './page/fire.js';
export * as cope from './page/cope.js';
export * as fox from './page/fox.js';
export * as pope from './page/pope.js';
export * as fope from './page/fope.js';
