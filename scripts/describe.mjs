// Writes web/generated/describe.json: the module's describe() (every family,
// its keys with defaults and ranges, rope's scaling types, the core's limits),
// pretty-printed, for the page to import at build time; and each family's formula
// (describe()'s formula and formula_note) in web/generated/family-formulas.json. Run by
// `npm run build:wasm` after the module is built.
//   node scripts/describe.mjs
import fs from 'node:fs';
import createPosenc from '../web/generated/posenc.mjs';

// The glue is built for the web (-sENVIRONMENT=web,worker): Node hands it the bytes.
const generated = new URL('../web/generated/', import.meta.url);
const pe = await createPosenc({ wasmBinary: fs.readFileSync(new URL('posenc.wasm', generated)) });
const description = pe.describe();
// Each family's formula (TeX) in a file of its own, read by formulas.js only (loaded after the first figures): the
// page's and the worker's first bundles import describe.json, and need not carry the text.
const formulas = Object.fromEntries(description.families.map(({ type, formula, formula_note: note }) => [type, { tex: formula, note }]));
for (const family of description.families) {
  delete family.formula;
  delete family.formula_note;
}
fs.writeFileSync(new URL('describe.json', generated), `${JSON.stringify(description, null, 2)}\n`);
fs.writeFileSync(new URL('family-formulas.json', generated), `${JSON.stringify(formulas, null, 2)}\n`);
