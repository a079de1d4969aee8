// Takes a screenshot of the playground: node scripts/screenshot.mjs out.png [query]
import { openPlayground, startPlayground } from '../tests/e2e/browser.mjs';

const [out = 'playground.png', query = ''] = process.argv.slice(2);
const playground = await startPlayground();
try {
  const page = await playground.newPage();
  await openPlayground(playground, page, query);
  await page.waitForTimeout(300);
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out}${page.problems.length ? `\nproblems:\n${page.problems.join('\n')}` : ''}`);
} finally {
  await playground.close();
}
