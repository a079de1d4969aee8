// Minifies the Emscripten glue in place (run by the wasm build after each link,
// CMakeLists.txt): Emscripten 3.1.6 without Closure strips the glue's white
// space but keeps its names, so wasm/post.js's comments are gone and its local
// names are long. Vite's minifier (oxc, through Vite's own `minify`) renames
// locals and folds constants; property names are kept, so Module.posenc_<name>
// and the API are unchanged. 13.9 KB -> 10.4 KB of gzip.
//   node scripts/minify-glue.mjs FILE.mjs
import fs from 'node:fs';
import path from 'node:path';
import { minify } from 'vite';

const file = process.argv[2];
if (!file) throw new Error('usage: node scripts/minify-glue.mjs FILE.mjs');
const result = await minify(path.basename(file), fs.readFileSync(file, 'utf8'), { compress: true, mangle: true });
if (result.errors?.length) throw new Error(`minify-glue: ${file}: ${result.errors.map((e) => e.message).join('; ')}`);
fs.writeFileSync(file, result.code);
