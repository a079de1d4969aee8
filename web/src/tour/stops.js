// The guided tour (tour.html): about ten stops, each a live view of the playground
// in a chosen state, with what to look at and one thing to try. A stop's view
// and state are the playground's own (view id, encoding, URL keys); the tour
// shows them with the view's own controls beside it. Plain data: no family,
// view or engine is imported here.

/**
 * @typedef {object} Stop
 * @property {string} id       the stop's name in its URL (tour.html?stop=<id>)
 * @property {string} title
 * @property {string} text     what to look at (two or three sentences)
 * @property {string} try      one thing to try with the controls beside the view
 * @property {string} view     the view's id (web/src/views/<id>.js)
 * @property {Record<string, string>} state  the playground's URL keys: encoding and the values that show the lesson
 * @property {string[]} controls  the controls the Try moves, shown in a strip above the figure (the others folded below)
 */

/** @type {Stop[]} */
export const STOPS = [
  {
    id: 'why-order', title: 'Why order needs help', view: 'word-order',
    state: { encoding: 'sinusoidal', trained_head: 'false', text: 'the dog chased the cat', text2: 'the cat chased the dog' },
    text: 'Attention compares every word with every other word, and on its own it has no idea where a word stands: ' +
      '“the dog chased the cat” and “the cat chased the dog” are the same bag of words. The map “difference, no positions” is the ' +
      'proof: without positions, swapping the words changes no weight at all. With a positional encoding (the maps “with positions”), it does.',
    try: 'Type two sentences made of the same words in another order.',
    controls: ['text', 'text2'],
  },
  {
    id: 'sinusoidal', title: 'Absolute positions: the sinusoids', view: 'heatmap',
    state: { encoding: 'sinusoidal', n: '128', d_model: '128' },
    text: 'The original Transformer adds to each token a vector that depends only on its position: sines and cosines of ' +
      'the position at frequencies from fast (left) to slow (right). Each row is one position’s vector; no two rows are alike.',
    try: 'Drag base: the slow dimensions on the right stretch out or squeeze in.',
    controls: ['base'],
  },
  {
    id: 'dot-decay', title: 'Near positions look alike', view: 'dot-decay',
    state: { encoding: 'sinusoidal', d_model: '128' },
    text: 'The dot product of two position vectors depends only on how far apart they are, and it falls with distance: ' +
      'nearby positions look alike, far ones less so. This is what lets attention tell “next to” from “far away”.',
    try: 'Lower d_model: with fewer frequencies the curve gets bumpier.',
    controls: ['d_model'],
  },
  {
    id: 'learned', title: 'Learned tables, and where they end', view: 'table',
    state: { encoding: 'learned', n: '96' },
    text: 'GPT-2 and BERT learn one vector per position instead. Shown as a small model learned it on Moby-Dick, at ' +
      '64 characters a window: 64 rows of 64 numbers. Its limit is built in: the table has exactly max_position_embeddings ' +
      'rows, and past them (hatched) there is no embedding at all.',
    try: 'Switch “position parameters” to “where training started”: the same table before its first step, noise with no ' +
      'pattern from row to row; it ends at the same row.',
    controls: ['weights'],
  },
  {
    id: 'rope', title: 'Rotary: positions as angles', view: 'rotation',
    state: { encoding: 'rope', pair: '0', start: '0' },
    text: 'RoPE, in Llama and most models since, does not add anything to the token: it turns q and k pair by pair, by an ' +
      'angle proportional to the position. Each arrow is one position; the dot product of two turned vectors depends only ' +
      'on the difference of their angles, so only on relative position.',
    try: 'Move pair: low pairs turn fast, high pairs barely move.',
    controls: ['pair'],
  },
  {
    id: 'rope-scaling', title: 'Stretching RoPE to longer contexts', view: 'spectrum',
    state: { encoding: 'rope', rope_type: 'yarn', factor: '8', original_max_position_embeddings: '4096', seq_len: '32768' },
    text: 'Each RoPE pair has a wavelength; the slow ones never finished a turn during training. Context-extension ' +
      'scalings (linear, NTK, YaRN, Llama 3) stretch the wavelengths so a model reads longer texts: YaRN leaves the fast ' +
      'pairs alone, stretches the slow ones, and blends in between.',
    try: 'Switch rope_type between linear, dynamic, yarn and llama3 and compare the curves.',
    controls: ['rope_type'],
  },
  {
    id: 'alibi', title: 'Biases: ALiBi', view: 'panels',
    state: { encoding: 'alibi', n_heads: '8', head: '0', trained_head: 'false', attn_causal: 'true' },
    text: 'Another family leaves q and k alone and adds a number to each attention logit that depends on the distance. ' +
      'ALiBi subtracts a slope times the distance. The three maps are the content scores, the bias and their sum, which is what ' +
      'the softmax sees; they share one colour scale. Far keys are pushed down, more in the steep heads.',
    try: 'Raise head to 7: later heads have gentler slopes, so their bias map fades and the sum looks like the content scores.',
    controls: ['head'],
  },
  {
    id: 't5', title: 'Buckets: T5', view: 'buckets',
    state: { encoding: 't5', weights: 'random', bidirectional: 'true', num_buckets: '32', max_distance: '128' },
    text: 'T5 learns one bias per bucket of relative positions: one bucket per distance close by, then logarithmically ' +
      'wider buckets, and every distance past max_distance shares the last one. Near words are told apart exactly, far ' +
      'ones only roughly.',
    try: 'Untick bidirectional: the buckets for keys after the query disappear.',
    controls: ['bidirectional'],
  },
  {
    id: 'cope', title: 'Counting what matters: CoPE', view: 'cope-count',
    state: { encoding: 'cope', text: 'the dog ran . it was fast . the cat sat on the mat . then it slept' },
    text: 'Some encodings live inside attention itself. CoPE counts with gates: here each gate fires on a sentence end, so ' +
      'the contextual position (blue) counts sentences back from the last word, not tokens. The head can then attend to ' +
      '“one sentence back”, however long that sentence is.',
    try: 'Add a sentence with a full stop, or make one sentence much longer.',
    controls: ['text'],
  },
  {
    id: 'extrapolation', title: 'Train short, test long', view: 'train-extrapolation',
    state: { encoding: 'experiment' },
    text: 'Here every encoding trains a tiny model at 32 tokens, then is tested on 64, 128 and 256. Flat curves extrapolate; ' +
      'falling ones learned positions only up to the length they saw. Faint curves never learned the task at all.',
    try: 'Change the task to induction and the attention layers to 2 (induction needs two), and see which encodings hold up.',
    controls: ['task', 'layers'],
  },
];

/** The index (0-based) of the stop named `id` or numbered `id` (1-based); 0 for anything else. */
export function stopIndex(id) {
  const byName = STOPS.findIndex((s) => s.id === id);
  if (byName >= 0) return byName;
  const number = Number(id);
  return Number.isInteger(number) && number >= 1 && number <= STOPS.length ? number - 1 : 0;
}
