// posenc's text model (core/include/posenc/train.hpp, its top comment) written in
// TensorFlow.js ops, trained with tf.train.adam (at the core's schedule, learningRate below, and
// with its global gradient-norm clip): the tfjs side of the train-lm
// workload (train-lm.mjs). The same shapes as posenc's model with learned absolute
// positions, and its flops but for the two noted below, for a pre-normalised decoder of `layers` layers
// (B sequences of n tokens, d = d_model, H heads of hd = d / H, F = intermediate_size):
//   h = onehot(tokens) E + P[0:n]                      [B n, d]
//   per layer: u = rms(h) g1;  q, k, v = u Wq, u Wk, u Wv  [B n, d] = H heads side by side
//              s = q k^T / sqrt(hd) + causal mask   [B H, n, n];  o = softmax(s) v
//              h += concat(heads) Wo;  h += relu(rms(h) g2 W1 + b1) W2 + b2
//   z = rms(h) g Wout + c;  loss = mean over the B n positions of cross-entropy(z, next token)
//   step: the gradient scaled to a global L2 norm of at most gradClip, then Adam at the step's rate
// rms(x) = x / sqrt(mean(x^2) + 1e-5) over d. The heads' W_q (each [d, hd]) side by side are
// one [d, d] matrix: the same products as posenc's per-head ones. The embedding is a one-hot
// product (tfjs-backend-wasm has no UnsortedSegmentSum, which gather's gradient needs):
// 2 V d flops a token more than posenc's row lookup, forward and again for E's gradient
// (about 2.5% of a step at V = 48). And tfjs computes the full [n, n] scores and masks them
// (it has no causal matmul) where posenc's causal loops do about half (about 7% of a step
// here). Both are tfjs's cost of this model, not a handicap added to it. Initialisation as
// posenc draws it (make_model), from a tfjs seed: only speed is compared.
import { register } from 'node:module';

// Node resolves the extensionless relative imports of tfjs-core's ES build (dist/*.js) with '.js'.
const EXTENSIONLESS_HOOK = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith('.') && !specifier.endsWith('.js') && context.parentURL?.includes('/@tensorflow/tfjs-core/dist/'))
    return next(specifier + '.js', context);
  return next(specifier, context);
}`;

let gradientsRegistered = false;

/**
 * Registers tfjs-core's own gradients (dist/register_all_gradients.js, what the @tensorflow/tfjs
 * package imports): tfjs-core's Node build (tf-core.node.js) has none, and that file is in its ES
 * build, whose relative imports name no extension, so a resolve hook adds '.js' within
 * tfjs-core/dist. The gradients land in tfjs's global registry, which the Node build reads (their
 * ops, from the ES build's modules, run on the one global engine). About 1 s, before any timing.
 */
export async function registerGradients() {
  if (gradientsRegistered) return;
  register(`data:text/javascript,${encodeURIComponent(EXTENSIONLESS_HOOK)}`);
  await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  gradientsRegistered = true;
}

/**
 * The core's learning_rate() (core/src/train.cpp): the rate of step `step` (0-based) of `steps`, a linear warm-up
 * from lr / warmup to lr over the first `warmup` steps, then constant or (cosine) a half cosine down to lr / 10.
 */
export function learningRate(lr, step, steps, warmup, cosine) {
  if (step < warmup) return lr * (step + 1) / warmup;
  if (!cosine || steps - warmup <= 1) return lr;
  const progress = (step - warmup) / (steps - warmup - 1);
  return lr * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * progress)));
}

/**
 * A model and its optimiser: {step(tokens, targets, lr) -> loss, variables, dispose()}.
 * tokens, targets: Int32Array [B n] (targets[t] = the character after tokens[t]); lr: this step's learning rate.
 * @param {object} tf  tfjs-core with its backend set
 * @param {object} shape  {vocab, d, layers, heads, intermediate, maxLength, batch, length, seed, gradClip (0: none)}
 */
export function createLanguageModel(tf, { vocab, d, layers, heads, intermediate, maxLength, batch, length, seed = 0, gradClip = 0 }) {
  const hd = d / heads;
  const n = length, rows = batch * length;
  let nextSeed = seed + 1;   // tfjs draws an unseeded (Math.random) stream for seed 0
  // In tidy: a variable keeps its initial tensor's data, and tidy disposes the initial tensor itself.
  const variable = (make) => tf.tidy(() => tf.variable(make()));
  const normal = (shape, std) => variable(() => tf.randomNormal(shape, 0, std, 'float32', nextSeed++));
  const ones = (size) => variable(() => tf.ones([size]));
  const zeros = (size) => variable(() => tf.zeros([size]));

  const params = {
    E: normal([vocab, d], 1 / Math.sqrt(d)),
    P: normal([maxLength, d], 0.02),
    layers: Array.from({ length: layers }, () => ({
      g1: ones(d), Wq: normal([d, d], 1 / Math.sqrt(d)), Wk: normal([d, d], 1 / Math.sqrt(d)), Wv: normal([d, d], 1 / Math.sqrt(d)),
      Wo: normal([d, d], 1 / Math.sqrt(d)),
      g2: ones(d), W1: normal([d, intermediate], 1 / Math.sqrt(d)), b1: zeros(intermediate),
      W2: normal([intermediate, d], 1 / Math.sqrt(intermediate)), b2: zeros(d),
    })),
    g: ones(d), Wout: normal([d, vocab], 1 / Math.sqrt(d)), c: zeros(vocab),
  };
  const variables = [params.E, params.P, ...params.layers.flatMap((l) => Object.values(l)), params.g, params.Wout, params.c];

  // Constants: the causal mask [n, n] (0 on and below the diagonal, -Infinity above), 1 / sqrt(hd).
  const maskValues = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) maskValues[i * n + j] = -Infinity;
  const mask = tf.tensor2d(maskValues, [n, n]);
  const scale = tf.scalar(1 / Math.sqrt(hd));
  const eps = tf.scalar(1e-5);

  const rms = (x, gain) => tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps))), gain);
  /** [B n, d] -> [B H, n, hd]: each head's columns as its own batch entry. */
  const splitHeads = (x) => tf.reshape(tf.transpose(tf.reshape(x, [batch, n, heads, hd]), [0, 2, 1, 3]), [batch * heads, n, hd]);
  const mergeHeads = (x) => tf.reshape(tf.transpose(tf.reshape(x, [batch, heads, n, hd]), [0, 2, 1, 3]), [rows, d]);

  const loss = (inputs, targets) => {
    const positions = tf.slice(params.P, [0, 0], [n, d]);
    let h = tf.reshape(tf.add(tf.reshape(tf.matMul(inputs, params.E), [batch, n, d]), positions), [rows, d]);
    for (const l of params.layers) {
      const u = rms(h, l.g1);
      const q = splitHeads(tf.mul(tf.matMul(u, l.Wq), scale));
      const k = splitHeads(tf.matMul(u, l.Wk));
      const v = splitHeads(tf.matMul(u, l.Wv));
      const weights = tf.softmax(tf.add(tf.matMul(q, tf.transpose(k, [0, 2, 1])), mask));   // [B H, n, n]
      h = tf.add(h, tf.matMul(mergeHeads(tf.matMul(weights, v)), l.Wo));
      const hidden = tf.relu(tf.add(tf.matMul(rms(h, l.g2), l.W1), l.b1));
      h = tf.add(h, tf.add(tf.matMul(hidden, l.W2), l.b2));
    }
    const logits = tf.add(tf.matMul(rms(h, params.g), params.Wout), params.c);              // [B n, V]
    return tf.neg(tf.mean(tf.sum(tf.mul(tf.logSoftmax(logits), targets), -1)));
  };

  const optimizer = tf.train.adam(1e-3, 0.9, 0.999, 1e-8);   // its learningRate is set before each step
  const clip = tf.scalar(gradClip);

  /** The gradients scaled by min(1, gradClip / their global L2 norm), as torch's clip_grad_norm_ and the core do. */
  const clipped = (grads) => {
    if (!(gradClip > 0)) return grads;
    const norm = tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g)))));
    const scale = tf.div(clip, tf.maximum(norm, clip));
    return Object.fromEntries(Object.entries(grads).map(([name, g]) => [name, tf.mul(g, scale)]));
  };

  return {
    variables,
    /** One Adam step at rate lr on a batch; returns its loss (the mean over its B n positions). */
    step(tokens, targets, lr) {
      optimizer.learningRate = lr;
      const cost = tf.tidy(() => {
        // oneHot's int32 form, cast: its float32 form reads all zeros in tfjs-backend-wasm 4.22.
        const inputs = tf.cast(tf.oneHot(tf.tensor1d(tokens, 'int32'), vocab), 'float32');
        const wanted = tf.cast(tf.oneHot(tf.tensor1d(targets, 'int32'), vocab), 'float32');
        const { value, grads } = optimizer.computeGradients(() => loss(inputs, wanted), variables);
        optimizer.applyGradients(clipped(grads));
        return value;
      });
      const value = cost.dataSync()[0];
      cost.dispose();
      return value;
    },
    dispose() {
      optimizer.dispose();
      for (const v of variables) v.dispose();
      mask.dispose();
      scale.dispose();
      clip.dispose();
      eps.dispose();
    },
  };
}
