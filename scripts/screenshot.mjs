// A screenshot of the built playground (run `npm run build` first):
//   node scripts/screenshot.mjs out.png [query] [width] [light|dark] [page: index.html | embed.html]
// POSENC_CSP=strict serves the pages under the strict Content-Security-Policy of the README.
import { openPlayground, startPlayground, STRICT_CSP } from '../tests/e2e/browser.mjs';

const [out = 'playground.png', query = '', width = '1280', scheme = 'light', file = ''] = process.argv.slice(2);
const htmlHeaders = process.env.POSENC_CSP === 'strict' ? { 'content-security-policy': STRICT_CSP } : {};
const playground = await startPlayground({ viewport: { width: Number(width), height: 900 }, colorScheme: scheme, htmlHeaders });
try {
  const page = await playground.newPage();
  await openPlayground(playground, page, query, file);
  await page.waitForTimeout(300);
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out}${page.problems.length ? `\nproblems:\n${page.problems.join('\n')}` : ''}`);
} finally {
  await playground.close();
}
