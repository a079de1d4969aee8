// Where the page's citations link (web/src/citations.js): the listed words, and the sources that link themselves.
import test from 'node:test';
import assert from 'node:assert/strict';
import { citationsIn, isCitationUrl } from '../../web/src/citations.js';

test('a listed citation links to its paper, typographic apostrophes too', () => {
  const text = 'Press et al. 2022, §3; x-transformers’ CoPE';
  assert.deepEqual(citationsIn(text).map(({ start, end, url }) => [text.slice(start, end), url]), [
    ['Press et al. 2022', 'https://arxiv.org/abs/2108.12409'],
    ['x-transformers’ CoPE', 'https://github.com/lucidrains/x-transformers'],
  ]);
});

test('"Name et al. YYYY (arXiv N)" and "github.com/owner/repo" link themselves; a sentence\'s full stop is not the repo\'s', () => {
  const text = 'Hua et al. 2025 (arXiv 2412.17739), eq. 5; code: github.com/owner/some.repo_name. Then Nobody et al. 2024.';
  assert.deepEqual(citationsIn(text).map(({ start, end, url }) => [text.slice(start, end), url]), [
    ['Hua et al. 2025 (arXiv 2412.17739)', 'https://arxiv.org/abs/2412.17739'],
    ['github.com/owner/some.repo_name', 'https://github.com/owner/some.repo_name'],
  ]);  // "Nobody et al. 2024" names no arXiv id: not a link (the e2e test flags such a citation)
  assert.ok(isCitationUrl('https://arxiv.org/abs/2412.17739'));
  assert.ok(isCitationUrl('https://github.com/owner/some.repo_name'));
  assert.ok(isCitationUrl('https://arxiv.org/abs/2108.12409'));
  assert.ok(!isCitationUrl('https://example.com/paper'));
});
