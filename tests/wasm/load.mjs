// Loads the built module in Node. The glue is built for the web
// (-sENVIRONMENT=web,worker), so Node hands it the .wasm bytes itself.
import fs from 'node:fs';
import createPosenc from '../../web/generated/posenc.mjs';

export function loadPosenc() {
  const wasmBinary = fs.readFileSync(new URL('../../web/generated/posenc.wasm', import.meta.url));
  return createPosenc({ wasmBinary });
}
