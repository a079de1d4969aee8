// Where a citation on the page goes: each paper the captions, the controls' help and the families' sources (the
// core's describe()) cite, and each reference implementation they name, by the words the text uses for it. Text
// becomes DOM nodes with those words as ordinary links (nothing is fetched until a reader clicks).

/** [the words as the text writes them, where they link]; papers on arXiv where they are there. */
export const CITATIONS = [
  ['Vaswani et al. 2017', 'https://arxiv.org/abs/1706.03762'],
  ['Radford et al. 2019', 'https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf'],
  ['Kazemnejad et al. 2023', 'https://arxiv.org/abs/2305.19466'],
  ['Su et al. 2021', 'https://arxiv.org/abs/2104.09864'],
  ['Sun et al. 2022', 'https://arxiv.org/abs/2212.10554'],
  ['Press et al. 2022', 'https://arxiv.org/abs/2108.12409'],
  ['Raffel et al. 2020', 'https://arxiv.org/abs/1910.10683'],
  ['Shaw et al. 2018', 'https://arxiv.org/abs/1803.02155'],
  ['Dai et al. 2019', 'https://arxiv.org/abs/1901.02860'],
  ['Chi et al. 2022', 'https://arxiv.org/abs/2205.09921'],
  ['He et al. 2021', 'https://arxiv.org/abs/2006.03654'],
  ['Li et al. 2023', 'https://arxiv.org/abs/2310.04418'],
  ['Golovneva et al. 2024', 'https://arxiv.org/abs/2405.18719'],
  ['Haviv et al. 2022', 'https://arxiv.org/abs/2203.16634'],
  ['Gelberg et al. 2025', 'https://arxiv.org/abs/2512.12167'],
  ['Peng et al. 2023', 'https://arxiv.org/abs/2309.00071'],
  ['Chen et al. 2023', 'https://arxiv.org/abs/2306.15595'],
  ['Huang et al. 2020', 'https://arxiv.org/abs/2009.13658'],
  // Reference implementations, as the families' sources name them.
  ['transformers\' modeling_rope_utils.py', 'https://github.com/huggingface/transformers/blob/main/src/transformers/modeling_rope_utils.py'],
  ['torchscale\'s XPOS', 'https://github.com/microsoft/torchscale/blob/main/torchscale/component/xpos_relative_position.py'],
  ['ofirpress/attention_with_linear_biases', 'https://github.com/ofirpress/attention_with_linear_biases'],
  ['transformers\' T5Attention._relative_position_bucket', 'https://github.com/huggingface/transformers/blob/main/src/transformers/models/t5/modeling_t5.py'],
  ['transformers\' modeling_deberta_v2.py', 'https://github.com/huggingface/transformers/blob/main/src/transformers/models/deberta_v2/modeling_deberta_v2.py'],
  ['x-transformers\' CoPE', 'https://github.com/lucidrains/x-transformers'],
  ['kimiyoung/transformer-xl', 'https://github.com/kimiyoung/transformer-xl'],
  ['chijames/KERPLE', 'https://github.com/chijames/KERPLE'],
  ['tensor2tensor\'s get_timing_signal_1d', 'https://github.com/tensorflow/tensor2tensor/blob/master/tensor2tensor/layers/common_attention.py'],
  ['transformers\' modeling_gpt2.py', 'https://github.com/huggingface/transformers/blob/main/src/transformers/models/gpt2/modeling_gpt2.py'],
  ['transformers\' modeling_bert.py', 'https://github.com/huggingface/transformers/blob/main/src/transformers/models/bert/modeling_bert.py'],
];

/**
 * Citations that link themselves, so a new source needs no line above: "Name et al. 2025 (arXiv 2412.17739)" links
 * to the paper's arXiv page, and "github.com/owner/repo" to the repository.
 */
const SELF_LINKED = [
  { pattern: '[A-Z][A-Za-z-]+ et al\\. (?:19|20)\\d\\d \\(arXiv (\\d{4}\\.\\d{4,5})\\)', url: (id) => `https://arxiv.org/abs/${id}` },
  { pattern: 'github\\.com/([A-Za-z0-9-]+/[A-Za-z0-9_.-]*[A-Za-z0-9_-])', url: (repo) => `https://github.com/${repo}` },
];

const escaped = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PATTERN = new RegExp([CITATIONS.map(([words]) => escaped(words)).join('|'), ...SELF_LINKED.map((s) => s.pattern)].join('|'), 'g');
const URLS = new Map(CITATIONS);

/** Where the matched words of a citation link: CITATIONS' URL, or a self-linked one's. */
function urlOf(match) {
  if (URLS.has(match[0])) return URLS.get(match[0]);
  const k = match.slice(1).findIndex((group) => group !== undefined);
  return SELF_LINKED[k].url(match[k + 1]);
}

/**
 * The citations in `text`, in order: where each starts and ends (indices into text) and where it links.
 * @param {string} text
 * @returns {{start: number, end: number, url: string}[]}
 */
export function citationsIn(text) {
  const straight = String(text ?? '').replaceAll('’', '\'');  // the same length: indices carry over
  return [...straight.matchAll(PATTERN)].map((match) => ({ start: match.index, end: match.index + match[0].length, url: urlOf(match) }));
}

/** Whether `href` is where some citation links: one of CITATIONS, or an arXiv paper or a GitHub repository. */
export function isCitationUrl(href) {
  return [...URLS.values()].includes(href) ||
    /^https:\/\/(arxiv\.org\/abs\/\d{4}\.\d{4,5}|github\.com\/[A-Za-z0-9-]+\/[A-Za-z0-9_.-]+)$/.test(href);
}

/**
 * `text` as nodes: its citations (CITATIONS' words, typographic apostrophes too, and the self-linked ones) as links, the
 * rest as text.
 * @param {string} text
 * @returns {(string|HTMLAnchorElement)[]}
 */
export function linkify(text) {
  const plain = String(text ?? '');
  const nodes = [];
  let at = 0;
  for (const { start, end, url } of citationsIn(plain)) {
    if (start > at) nodes.push(plain.slice(at, start));
    const link = document.createElement('a');
    link.href = url;
    link.rel = 'noopener noreferrer';
    link.target = '_blank';
    link.className = 'citation';
    link.textContent = plain.slice(start, end);
    nodes.push(link);
    at = end;
  }
  if (at < plain.length) nodes.push(plain.slice(at));
  return nodes;
}
