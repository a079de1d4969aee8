// axe-core (npm axe-core) in the built pages: no violation of "serious" or "critical" impact on the playground,
// the tour and an embedded view, in both themes.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { navigate, openPlayground, startPlayground } from './browser.mjs';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let playground;
before(async () => { playground = await startPlayground(); });
after(async () => { await playground?.close(); });

/** The serious and critical violations axe finds in the page as it is: "rule: target (summary)". */
async function seriousViolations(page) {
  await page.evaluate(axeSource);
  const { violations } = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} (${n.failureSummary?.split('\n')[1]?.trim() ?? v.help})`));
}

for (const scheme of ['light', 'dark']) {
  test(`axe: no serious or critical violation on the playground, the tour and an embed (${scheme})`, async () => {
    const page = await playground.newPage();
    await page.emulateMedia({ colorScheme: scheme });
    for (const [i, query] of ['', '?encoding=rope', '?encoding=alibi', '?encoding=model_profile&model=llama-4-scout'].entries()) {
      if (i === 0) await openPlayground(playground, page, query);
      else await navigate(page, query);  // in place, as Back and Forward show a state
      assert.deepEqual(await seriousViolations(page), [], `playground ${query}`);
    }
    await openPlayground(playground, page, '?stop=why-order', 'tour.html');
    assert.deepEqual(await seriousViolations(page), [], 'tour');
    await openPlayground(playground, page, '?view=decay&encoding=rope&controls=1', 'embed.html');
    assert.deepEqual(await seriousViolations(page), [], 'embed');
    await page.close();
  });
}
