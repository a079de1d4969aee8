// Screenshots of every tour stop (run `npm run build` first), with where each stop's first figure starts:
//   node scripts/tour-shots.mjs out-dir [width] [height] [light|dark] [stop ids, comma-separated]
import fs from 'node:fs';
import path from 'node:path';
import { openPlayground, startPlayground } from '../tests/e2e/browser.mjs';
import { STOPS } from '../web/src/tour/stops.js';

const [dir = 'tour-shots', width = '390', height = '844', scheme = 'dark', only = ''] = process.argv.slice(2);
fs.mkdirSync(dir, { recursive: true });
const playground = await startPlayground({ viewport: { width: Number(width), height: Number(height) }, colorScheme: scheme });
try {
  const page = await playground.newPage();
  for (const [k, stop] of STOPS.entries()) {
    if (only && !only.split(',').includes(stop.id)) continue;
    await openPlayground(playground, page, `?stop=${stop.id}`, 'tour.html');
    await page.waitForTimeout(300);
    const top = await page.$eval('#stop-view .figure', (f) => Math.round(f.getBoundingClientRect().top + scrollY));
    const file = path.join(dir, `${k + 1}-${stop.id}-${width}-${scheme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    console.log(`${file}: first figure at y = ${top}`);
  }
  if (page.problems.length) console.log(`problems:\n${page.problems.join('\n')}`);
} finally {
  await playground.close();
}
