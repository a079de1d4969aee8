// Every core family's page file, by its spec `type`, in the core's order (core/include/posenc/family_list.hpp, the one
// list; describe.js FAMILY_TYPES): one line per family, the file named by its type. The engine's worker loads each
// when a request first names it (compute.js, by the same name: every one for the decay comparison), the page when it
// is first shown (catalogue.js); nothing imports them all at once in a bundle (a namespace of each would cost a chunk
// level). A wasm test (page-agreement.test.mjs) checks this list against the core's, and a unit test
// (imports.test.mjs) the folder families/page/ against this list.
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
