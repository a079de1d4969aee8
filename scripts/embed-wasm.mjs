// Writes a WebAssembly binary as a JS file for emcc --pre-js (run by the wasm build,
// CMakeLists.txt): `var NAME = '<the bytes in base64>';`, so the glue carries the bytes
// and no second fetch is needed. wasm/post.js decodes it (atob) and instantiates it.
//   node scripts/embed-wasm.mjs IN.wasm OUT.js NAME
import fs from 'node:fs';

const [input, output, name] = process.argv.slice(2);
if (!input || !output || !/^[A-Za-z_$][\w$]*$/.test(name ?? ''))
  throw new Error('usage: node scripts/embed-wasm.mjs IN.wasm OUT.js NAME');
const bytes = fs.readFileSync(input);
fs.writeFileSync(output, `// ${input.split('/').pop()} (${bytes.length} bytes), written by scripts/embed-wasm.mjs\n` +
  `var ${name} = '${bytes.toString('base64')}';\n`);
