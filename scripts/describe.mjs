// Writes web/generated/describe.json: the module's describe() (every family,
// its keys with defaults and ranges, rope's scaling types, the core's limits),
// pretty-printed, for the page to import at build time. Run by
// `npm run build:wasm` after the module is built.
//   node scripts/describe.mjs
import fs from 'node:fs';
import createPosenc from '../web/generated/posenc.mjs';

// The glue is built for the web (-sENVIRONMENT=web,worker): Node hands it the bytes.
const generated = new URL('../web/generated/', import.meta.url);
const pe = await createPosenc({ wasmBinary: fs.readFileSync(new URL('posenc.wasm', generated)) });
fs.writeFileSync(new URL('describe.json', generated), `${JSON.stringify(pe.describe(), null, 2)}\n`);
