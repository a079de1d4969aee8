// Runs the config reader over a folder of real config.json files (a
// development check: `node scripts/realconfigs.mjs ../shared/realconfigs`),
// each as a user pastes it whole, and prints the family it became, the
// largest error of its rotary numbers against the transformers reference
// (also after the page's control round-trip), its per-layer profile (the layer
// kinds, how many layers each, and their windows), or why it was refused.
import fs from 'node:fs';
import path from 'node:path';
import { loadPosenc } from '../tests/wasm/load.mjs';
import { checkConfig } from '../tests/reference/check-config.mjs';
import { readProfile } from '../web/src/config/profile.js';
import { FAMILY_TYPES, ROPE_TYPES } from '../web/src/describe.js';

const folder = process.argv[2];
if (!folder) {
  console.error('usage: node scripts/realconfigs.mjs <folder of config.json files>');
  process.exit(2);
}
const pe = await loadPosenc();
const counts = { read: 0, refused: 0, wrong: 0 };
for (const file of fs.readdirSync(folder).filter((f) => f.endsWith('.json')).sort()) {
  const { _source: _, ...config } = JSON.parse(fs.readFileSync(path.join(folder, file), 'utf8'));
  let line;
  try {
    const { read, worst, problems } = checkConfig(pe, config);
    const numbers = read.spec.type === 'rope' ? ` max rel. error ${worst.toExponential(1)}` : '';
    const { rope_scaling: scaling, rope_parameters: parameters, ...shown } = read.spec;
    const block = scaling ?? parameters;
    const blockText = block ? ` ${(block.rope_type ?? block.type)}${block.factor ? ` x${block.factor}` : ''}` : '';
    line = `${problems.length ? 'WRONG  ' : 'read   '}${JSON.stringify(shown)}${blockText}${read.sliding ? ` sliding ${JSON.stringify(read.sliding)}` : ''}${numbers}`;
    const profile = readProfile(config, { familyTypes: FAMILY_TYPES, ropeTypes: ROPE_TYPES });
    line += `\n         layers: ${profile.kinds.map((k) => `${k.name} ×${k.layers.length || 'all'}` +
      `${k.spec.type === 'none' ? ' (no position)' : ''}${k.window.kind === 'global' ? '' : ` (${k.window.kind} ${k.window.size})`}`).join(', ')}` +
      `${profile.mrope ? `; M-RoPE ${JSON.stringify(profile.mrope.mrope_section)}` : ''}`;
    if (problems.length) line += `\n         ${problems.join('\n         ')}`;
    counts[problems.length ? 'wrong' : 'read'] += 1;
  } catch (error) {
    line = `refused ${error.message}`;
    counts.refused += 1;
  }
  console.log(`${file.padEnd(32)} ${line}`);
}
console.log(`\n${counts.read} read, ${counts.refused} refused, ${counts.wrong} wrong`);
