// The formula beside each view, as TeX for KaTeX (lib/katex.js), with the
// current values written in where they say something: the base and width of
// a frequency, the slope of the chosen head, the ends of YaRN's ramp (the last two
// the core's, from the view's result). One
// place, keyed by view id; a view shown by several families (decay, compare,
// the attention lab) reads params.encoding. Each formula is the one the core
// computes; the docstrings of core/include/posenc/*.hpp cite the paper equations.
import FORMULAS_OF_CORE from '../generated/family-formulas.json' with { type: 'json' };
import { familyDescription, ropeTypeReads } from './describe.js';
import { dropeSteps } from './labs/drope.js';
import { stepsOf } from './labs/schedule.js';
import { EVAL_CHARACTERS } from './labs/lm-test.js';

/** A number as TeX: integers in full, others to 4 significant digits (a × 10^k when tiny or huge). */
export function num(x) {
  if (!Number.isFinite(x)) return x > 0 ? '\\infty' : x < 0 ? '-\\infty' : '\\mathrm{NaN}';
  if (Number.isInteger(x) && Math.abs(x) < 1e21) return String(x);
  const [mantissa, exponent] = Number(x.toPrecision(4)).toExponential().split('e');
  const e = Number(exponent);
  return e >= -4 && e < 9 ? String(Number(x.toPrecision(4))) : `${mantissa}\\times 10^{${e}}`;
}

const text = (s) => `\\text{${s}}`;
/** `+ x` or `- |x|`: a number added to a term. */
const plus = (x) => (x < 0 ? `- ${num(-x)}` : `+ ${num(x)}`);
// Upright names (pos, PE) and (1, …, 1) rather than \mathit, \mathbf and \mathbb: KaTeX_Main and KaTeX_Math
// carry them, so a formula loads two or three fonts, not five.
const join = (...parts) => parts.filter(Boolean).join(',\\quad ');
/** Lines of a formula, set one under the other, flush left (formulaOf turns the '\n' into an aligned environment). */
const lines = (...parts) => parts.filter(Boolean).join('\n');

/** What a view's own formula writes with (formulaOf's `own`), so that it needs not import this module. */
const HELPERS = { num, text, join, lines };
/** Where a learned table's rows come from: trained (families/trained.js), or drawn N(0, std^2) (where training started). */
const learnedRows = (p) => (p.weights === 'trained' ? text('trained on Moby-Dick (language-model lab)')
  : `P_{\\mathrm{pos},\\,c} \\sim \\mathcal{N}(0,\\ ${num(p.std)}^2)${p.weights === 'initial' ? text(', where training started') : ''}`);

// --- widths and frequencies -------------------------------------------------------------------------

/** The rotated width d of a rotary spec: head_dim × partial_rotary_factor rounded down to even (rope.hpp). */
function rotaryDim(p) {
  if (p.encoding === 'rope' && p.rope_type === 'proportional') return p.head_dim;  // its zero pairs span the rest
  return p.encoding === 'rope' ? Math.floor((p.head_dim * p.partial_rotary_factor) / 2) * 2 : p.head_dim;
}

/** ω_k of the sinusoidal table (sinusoidal.hpp: Vaswani et al. 2017 §3.5, or tensor2tensor's timescales), index k. */
function omega(p, k = 'i') {
  return p.timescales === 'tensor2tensor'
    ? `\\omega_${k} = ${num(p.base)}^{-${k}/${Math.max(p.d_model / 2 - 1, 1)}}`
    : `\\omega_${k} = ${num(p.base)}^{-2${k}/${p.d_model}}`;
}

/** θ_i of a rotary spec before any scaling (RoFormer eq. 15); a number i is written with its value. */
function theta(p, i = 'i') {
  const d = rotaryDim(p);
  return typeof i === 'number'
    ? `\\theta_{${i}} = ${num(p.rope_theta)}^{-2\\cdot ${i}/${d}} = ${num(p.rope_theta ** ((-2 * i) / d))}`
    : `\\theta_i = ${num(p.rope_theta)}^{-2i/${d}}`;
}

/**
 * The scaled frequency θ'_i of the rope_type at a sequence of seqLen tokens (dynamic and longrope read it);
 * '' without scaling (rope.cpp, one function per rope_type). `scaled`: the core's frequencies of the spec
 * (ropeInvFreq), whose ramp_low and ramp_high are YaRN's ramp ends; without them the formula has no numbers.
 */
function scaledTheta(p, seqLen, scaled) {
  const d = rotaryDim(p);
  const s = num(p.factor);
  const L = p.original_max_position_embeddings || p.max_position_embeddings;
  switch (p.encoding === 'rope' ? p.rope_type : 'default') {
    case 'linear':  // Position Interpolation (Chen et al. 2023, eq. 4)
      return `\\theta'_i = \\theta_i / ${s}`;
    case 'ntk':  // NTK-aware base change (bloc97 2023)
      return `\\theta'_i = \\big(${num(p.rope_theta)}\\cdot ${s}^{${d}/${d - 2}}\\big)^{-2i/${d}}`;
    case 'dynamic': {  // dynamic NTK: L is max_position_embeddings, ℓ = max(seq_len, L)
      const ell = Math.max(seqLen, p.max_position_embeddings);
      return `\\theta'_i = \\Big(${num(p.rope_theta)}\\big(${s}\\cdot\\tfrac{${ell}}{${p.max_position_embeddings}} - ${num(p.factor - 1)}\\big)^{${d}/${d - 2}}\\Big)^{-2i/${d}}`;
    }
    case 'yarn': {  // YaRN (Peng et al. 2023, §3.2): α = beta_slow, β = beta_fast rotations within L
      const [lo, hi] = p.truncate ? [(x) => `\\lfloor ${x} \\rfloor`, (x) => `\\lceil ${x} \\rceil`] : [(x) => x, (x) => x];
      const value = (x) => (typeof x === 'number' ? ` = ${num(x)}` : '');  // the core's ramp ends (ropeInvFreq)
      return `\\theta'_i = (1-\\gamma_i)\\,\\theta_i + \\gamma_i\\,\\frac{\\theta_i}{${s}},\\ ` +
        `\\gamma_i = \\operatorname{clamp}\\Big(\\frac{i - i_{\\beta}}{i_{\\alpha} - i_{\\beta}}, 0, 1\\Big)\n` +
        `i_{\\beta} = ${lo(`i(${num(p.beta_fast)})`)}${value(scaled?.ramp_low)},\\ i_{\\alpha} = ${hi(`i(${num(p.beta_slow)})`)}${value(scaled?.ramp_high)},\\ ` +
        `i(r) = \\frac{${d}\\,\\ln(${L}/2\\pi r)}{2\\ln ${num(p.rope_theta)}},\\ ` +
        `\\beta = ${text('beta\\_fast')},\\ \\alpha = ${text('beta\\_slow')}`;
    }
    case 'llama3': {  // Llama 3.1: keep below L/high_freq_factor, divide above L/low_freq_factor, blend between
      const hi = num(L / p.high_freq_factor);
      const lo = num(L / p.low_freq_factor);
      return `\\theta'_i = \\begin{cases} \\theta_i & \\lambda_i < ${hi} \\\\ \\theta_i/${s} & \\lambda_i > ${lo} \\\\ ` +
        `(1-\\sigma_i)\\,\\theta_i/${s} + \\sigma_i\\theta_i & \\text{else} \\end{cases},\\ ` +
        `\\sigma_i = \\frac{${L}/\\lambda_i - ${num(p.low_freq_factor)}}{${num(p.high_freq_factor)} - ${num(p.low_freq_factor)}}`;
    }
    case 'longrope':  // LongRoPE as Phi-3 uses it: long_factor past L, else short_factor
      return `\\theta'_i = \\theta_i / f_i,\\ f = ${text(seqLen > L ? 'long\\_factor' : 'short\\_factor')}\\ (${seqLen} ${seqLen > L ? '>' : '\\le'} L = ${L})`;
    case 'proportional': {  // p-RoPE (Gemma-4): floor(prf·head_dim/2) pairs turn, the rest have frequency 0
      const k = Math.floor((p.partial_rotary_factor * p.head_dim) / 2);
      return `\\theta'_i = \\begin{cases} \\theta_i/${s} & i < ${k} = \\lfloor ${num(p.partial_rotary_factor)}\\cdot ${p.head_dim}/2 \\rfloor \\\\ ` +
        `0 & \\text{else (no position)} \\end{cases}`;
    }
    default:
      return '';
  }
}

/**
 * ALiBi's slope of head h as the core computed it (alibiSlopes: Press et al. 2022, §3, and the reference
 * get_slopes), from a view's result: its `slopes` (families/page/alibi.js formulaNeeds) or its heads view's; undefined
 * before the result has come.
 */
function coreSlopes(result) {
  return result?.slopes ?? result?.heads?.slopes;
}

// --- what each family adds -----------------------------------------------------------------------

/**
 * The attention head's width d (d_head) and its d_model, as the families hand them to attention() (attention-lab.js):
 * the family's width key (its description's width_key), else its hidden_size, else 64; d_model its hidden_size where it
 * has one (DeBERTa, FoX), else d; learned differs.
 * @param {object} p  the params
 * @param {?object} f  the core's description of p.encoding (describe.js familyDescription), null in compare mode
 */
function headWidths(p, f) {
  if (p.trained_head) return { d: 32, dModel: 32 };  // engine/calls.js trainedHead: d_model 32, one head
  if (p.encoding === 'learned') return { d: p.projections === 'identity' ? p.d_model : Math.min(p.d_model, 64), dModel: p.d_model };
  // A family whose spec reads the head's input width (hidden_size: DeBERTa's projections, FoX's gates) has that d_model;
  // the head's own width is its width key's, else d_model's.
  const key = f?.width_key;
  const d = key ? p[key] : p.hidden_size ?? 64;
  return { d, dModel: p.hidden_size ?? d };
}

/** Where the family's position enters the head (its description's acts: absolute, rotary, bias, none); compare mode: bias. */
const carrierOf = (f) => f?.acts ?? 'bias';

/** b(i, j) of a bias family with the current values (bias.hpp: relative position j − i, key minus query). */
function biasOf(p, result) {
  switch (p.encoding) {
    case 'alibi': {
      const m = coreSlopes(result)?.[p.head];
      return lines(`b(i,j) = -m_{${p.head}}\\,|i-j|${m === undefined ? '' : `,\\ m_{${p.head}} = ${num(m)}`}`, ...slopeRule(p.n_heads));
    }
    case 't5':
      return `b(i,j) = t_{${p.head}}\\big[\\operatorname{bucket}(j-i)\\big],\\ t_{${p.head}}:\\ ${text(`${p.num_buckets} scalars`)}`;
    case 'shaw':
      return `b(i,j) = q_i\\cdot a_{\\operatorname{clip}(j-i,\\,-${p.max_relative_position},\\,${p.max_relative_position})},\\ ` +
        `q_i = (1,\\dots,1),\\ a_k:\\ ${text(`${p.head_dim} numbers`)}`;
    case 'transformer_xl':
      return `b(i,j) = \\underbrace{q_i^{\\top} W_R R_{i-j}}_{(b)} + \\underbrace{v^{\\top} W_R R_{i-j}}_{(d)} = \\big((1,\\dots,1) + v\\big)^{\\top} R_{i-j}\n` +
        `R_r = \\big[\\sin(r\\omega_c) \\,|\\, \\cos(r\\omega_c)\\big],\\ \\omega_c = 10000^{-2c/${p.d_head}}`;
    case 'deberta':
      return `b(i,j) = \\frac{u\\cdot K_r[\\delta(i-j)] + u\\cdot Q_r[\\delta(i-j)]}{\\sqrt{${debertaFactor(p)}\\cdot ${p.head_dim}}},\\ ` +
        `K_r, Q_r = \\operatorname{${p.norm_rel_ebd === 'layer_norm' ? 'LN' : ''}}(E)\\,W_k,\\ \\operatorname{${p.norm_rel_ebd === 'layer_norm' ? 'LN' : ''}}(E)\\,W_q\\ ${text('(u, W drawn)')}`;
    case 'cope':
      return `b(i,j) = (1-w)\\,q_i\\cdot e_{\\lfloor p_{ij}\\rfloor} + w\\,q_i\\cdot e_{\\lceil p_{ij}\\rceil},\\ w = p_{ij} - \\lfloor p_{ij}\\rfloor\n` +
        `p_{ij} = \\min\\Big(\\sum_{t=j}^{i} \\sigma\\Big(\\frac{q_i\\cdot k_t}{\\sqrt{${p.head_dim}}}\\Big),\\ ${p.npos_max - 1}\\Big)`;
    case 'fox':
      return lines(`b(i,j) = \\sum_{l=j+1}^{i} \\log f_l,\\ f_l = \\sigma(w\\cdot x_l ${plus(p.fgate_bias)})`,
        `w:\\ ${text(`${p.hidden_size} numbers `)}${text(p.weights === 'trained' ? '(trained on Moby-Dick)' : p.weights === 'initial' ? '(where training started)' : `(drawn from seed ${p.seed})`)}`);
    case 'kerple':
      return p.variant === 'power'
        ? `b(i,j) = -${num(p.r1)}\\,|i-j|^{${num(p.r2)}}`
        : `b(i,j) = -${num(p.r1)}\\,\\ln\\big(1 + ${num(p.r2)}\\,|i-j|\\big)`;
    case 'fire':
      return lines(`b(i,j) = f_{\\theta}\\Big(\\frac{\\psi(i-j)}{\\psi(\\max(${num(p.init_L)},\\, i)) + 10^{-6}}\\Big),\\ ` +
        `\\psi(x) = \\ln(1 + ${num(p.init_c)}\\,|x|)`, fireMlp(p));
    default:  // a family without a case here: its formula with symbols, the core's (<family>::formula())
      return FAMILY_FORMULAS[p.encoding]?.tex ?? null;
  }
}

/** FIRE's MLP f_θ, the chosen head's output (fire.hpp: Linear(1, W), ReLU, Linear(W, H), nn.Linear's default init, or the trained set's). */
function fireMlp(p) {
  return `f_{\\theta}(x) = w^{(2)}_{${p.head}}\\cdot\\operatorname{ReLU}(w^{(1)}x + b^{(1)}) + b^{(2)}_{${p.head}},\\ ` +
    `w^{(1)}, b^{(1)} \\in \\mathbb{R}^{${p.mlp_width}},\\ ${text(`head ${p.head} of ${p.n_heads}, ${p.weights === 'trained'
      ? 'trained on Moby-Dick' : p.weights === 'initial' ? 'where training started' : `drawn from seed ${p.seed}`}`)}`;
}

/** The causal mask's clause of a bias matrix. */
const masked = (causal) => (causal ? 'b(i,j) = -\\infty \\text{ for } j > i' : '');

/** The rotation matrix of pair i at position t (xPos: with its scale). */
function rotationAt(p, t) {
  const a = p.encoding === 'rope' && ropeTypeReads(p.rope_type, 'attention_factor') ? 'a\\,' : '';
  const zeta = p.encoding === 'xpos' ? `\\zeta_i^{${p.role === 'key' ? '-' : ''}${t}/${num(p.scale_base)}}\\,` : '';
  const th = p.encoding === 'rope' && p.rope_type !== 'default' ? "\\theta'_i" : '\\theta_i';
  return `${a}${zeta}R(${t}\\,${th})`;
}

/** ζ_i of xPos (Sun et al. 2022, §3.2); a number i is written with its value. */
const zeta = (p, i = 'i') => (typeof i === 'number'
  ? `\\zeta_{${i}} = \\frac{2\\cdot ${i}/${p.head_dim} + 0.4}{1.4} = ${num((2 * i / p.head_dim + 0.4) / 1.4)}`
  : `\\zeta_i = \\frac{2i/${p.head_dim} + 0.4}{1.4}`);

/** The frequencies a rotary view turns by at seqLen tokens: θ_i, the scaling's θ'_i, xPos's ζ_i. */
function rotaryFrequencies(p, seqLen) {
  return lines(join(theta(p), p.encoding === 'xpos' && zeta(p)), scaledTheta(p, seqLen));
}

/** The logit of query i and key j in the attention head, /√d, with the family's encoding in its place (attention.hpp). */
function logit(p, f) {
  const { d } = headWidths(p, f);
  const root = `\\sqrt{${d}}`;
  switch (carrierOf(f)) {
    case 'rotary': {
      const a = p.encoding === 'rope' && ropeTypeReads(p.rope_type, 'attention_factor') ? 'a^2\\,' : '';
      const g = p.encoding === 'xpos' ? '\\zeta^{(i-j)/' + num(p.scale_base) + '}' : '';
      // A rotary family besides RoPE's and xPos's turns q and k by a map of their positions that is not R_(j-i) (FoPE's
      // series): the dot of the two as turned, its formula the family's (the sidebar's).
      if (p.encoding !== 'rope' && p.encoding !== 'xpos') return `\\frac{(T_i\\, q_i)\\cdot (T_j\\, k_j)}{${root}}`;
      return `\\frac{${a}q_i^{\\top} ${g}R_{j-i}\\, k_j}{${root}}`;
    }
    case 'bias': return `\\frac{q_i\\cdot k_j}{${root}} + b(i,j)`;
    case 'polar': return `\\frac{1}{${root}}\\sum_c \\mathrm{softplus}(q_{ic})\\,\\mathrm{softplus}(k_{jc})\\cos\\big((j-i)\\theta_c + \\delta_c\\big)`;
    default: return `\\frac{q_i\\cdot k_j}{${root}}`;
  }
}

/** What q and k are for the family (x_i the scaled word embedding, W the head's projections). */
function projections(p, f) {
  const { dModel } = headWidths(p, f);
  const x = p.trained_head ? 'x_i = E_{\\mathrm{id}(w_i)}\\ (\\text{trained})'
    : `x_i = ${num(p.sharpness)}\\cdot\\sqrt{${dModel}}\\,w_i`;
  const W = p.trained_head ? 'W_q, W_k, W_v\\ \\text{trained}' : p.projections === 'identity' ? 'W_q = W_k = W_v = I' : '';
  switch (carrierOf(f)) {
    case 'absolute': return join(x, 'q_i = (x_i + p_i)W_q', 'k_j = (x_j + p_j)W_k', W);
    case 'rotary': return join(x, 'q_i = x_iW_q', 'k_j = x_jW_k', W);
    default: return join(x, 'q_i = x_iW_q', 'k_j = x_jW_k', W);
  }
}

/** Whether the lab's head is causal: its switch, or the trained head (always causal). */
const labCausal = (p) => Boolean(p.attn_causal || p.trained_head);

const softmax = (inner, causal) => `\\alpha_{ij} = \\operatorname{softmax}_{j${causal ? '\\le i' : ''}}\\Big(${inner}\\Big)`;

/** f(Δ) of the decay comparison for the current family (registry.hpp decay; families/comparison.js: q·k scaled by 1/√d). */
function compared(p, result) {
  switch (p.encoding) {
    case 'sinusoidal': return `f(\\Delta) = \\frac{1}{\\sqrt{${p.d_model}}}\\sum_{i=0}^{${p.d_model / 2 - 1}}\\cos(\\Delta\\,\\omega_i),\\ ${omega(p)}`;
    case 'rope': case 'xpos':  // the decay's frequencies are taken at seq_len = max distance + 1 (rope.hpp Decay)
      return lines(`f(\\Delta) = \\frac{1}{\\sqrt{${p.head_dim}}}\\,${ropeOnes(p)}`, rotaryFrequencies(p, p.compare_distance + 1));
    case 'none': return 'f(\\Delta) = p_t\\cdot p_{t+\\Delta} = 0';
    case 'learned': return text('(an untrained learned table has no such curve)');
    case 'fox':  // fox.hpp decay: the mean over random tokens
      return `f(\\Delta) = \\Delta\\,\\operatorname{E}\\big[\\log\\sigma(w\\cdot x ${plus(p.fgate_bias)})\\big],\\ x \\sim \\mathcal{N}(0, I)`;
    case 'pope':  // pope.hpp decay: q = k = 1
      return `f(\\Delta) = \\frac{1}{\\sqrt{${p.head_dim}}}\\sum_{c=0}^{${p.head_dim - 1}} \\mathrm{softplus}(1)^2\\cos(\\delta_c - \\Delta\\,\\theta_c),\\ \\theta_c = ${num(p.theta)}^{-c/${p.head_dim}}`;
    case 'fire':  // fire.hpp decay: the row of the query at the largest distance
      return `f(\\Delta) = b(${p.compare_distance}, ${p.compare_distance}-\\Delta),\\ ${biasOf(p, result)}`;
    default:  // by where the family acts, with its formula (biasOf: the core's where there is no case above)
      if (familyDescription(p.encoding)?.acts === 'bias') return `f(\\Delta) = b(i, i-\\Delta),\\ ${biasOf(p, result)}`;
      return `f(\\Delta) = \\frac{q\\cdot k_{\\Delta}}{\\sqrt{d}}\\Big|_{q = k = (1,\\dots,1)},\\ ${FAMILY_FORMULAS[p.encoding]?.tex ?? ''}`;
  }
}

/** q·R_Δ k for q = k = 1 (rope.hpp Decay::ones; xPos with its gain ζ_i^(Δ/γ)). */
function ropeOnes(p) {
  const d = rotaryDim(p);
  const a = p.encoding === 'rope' && ropeTypeReads(p.rope_type, 'attention_factor') ? 'a^2' : '';
  const gain = p.encoding === 'xpos' ? `\\zeta_i^{\\Delta/${num(p.scale_base)}}\\,` : '';
  const th = p.encoding === 'rope' && p.rope_type !== 'default' ? "\\theta'" : '\\theta';
  const tail = p.encoding === 'rope' && p.head_dim > d ? ` + ${p.head_dim - d}` : '';
  return `${a}\\sum_{i=0}^{${d / 2 - 1}} 2\\,${gain}\\cos(\\Delta\\,${th}_i)${tail}`;
}

// --- one formula per view ----------------------------------------------------------------------------

const FORMULAS = {
  heatmap: (p) => (p.layout === 'concat'
    ? join(`\\mathrm{PE}_{\\mathrm{pos},\\,i} = \\sin(\\mathrm{pos}\\,\\omega_i)`, `\\mathrm{PE}_{\\mathrm{pos},\\,${p.d_model / 2}+i} = \\cos(\\mathrm{pos}\\,\\omega_i)`, omega(p))
    : join('\\mathrm{PE}_{\\mathrm{pos},\\,2i} = \\sin(\\mathrm{pos}\\,\\omega_i)', '\\mathrm{PE}_{\\mathrm{pos},\\,2i+1} = \\cos(\\mathrm{pos}\\,\\omega_i)', omega(p))),
  waves: (p) => {
    const last = p.d_model / 2 - 1;  // the slowest pair
    const slowest = p.timescales === 'tensor2tensor' ? p.base ** (-last / Math.max(last, 1)) : p.base ** ((-2 * last) / p.d_model);
    return join(`\\mathrm{PE}_{\\mathrm{pos},\\,${p.layout === 'concat' ? 'i' : '2i'}} = \\sin(\\mathrm{pos}\\,\\omega_i)`, omega(p),
      `\\lambda_i = \\frac{2\\pi}{\\omega_i} \\in [2\\pi,\\ ${num((2 * Math.PI) / slowest)}]`);
  },
  'dot-decay': (p) => p.encoding === 'sinusoidal' && join(`p_t\\cdot p_{t+\\Delta} = \\sum_{i=0}^{${p.d_model / 2 - 1}}\\cos(\\Delta\\,\\omega_i)`, omega(p)),
  similarity: (p) => {
    const sim = p.metric === 'cosine' ? 's(i,j) = \\frac{p_i\\cdot p_j}{\\lVert p_i\\rVert\\,\\lVert p_j\\rVert}' : 's(i,j) = p_i\\cdot p_j';
    if (p.encoding === 'sinusoidal') {
      const half = p.d_model / 2;
      const scale = p.metric === 'cosine' ? `\\frac{1}{${half}}` : '';
      return join(`${sim} = ${scale}\\sum_{k=0}^{${half - 1}}\\cos\\big((i-j)\\,\\omega_k\\big)`, omega(p, 'k'));
    }
    return join(sim, learnedRows(p), `i, j < ${Math.min(p.similarity_n, p.max_position_embeddings)}`);
  },
  table: (p) => (p.encoding === 'learned'
    ? join(`P:\\ ${p.max_position_embeddings}\\times ${p.d_model}`, learnedRows(p),
      `\\text{no row for } \\mathrm{pos} \\ge ${p.max_position_embeddings}`)
    : join(`P = 0\\ (${p.n}\\times ${p.d_model})`, text('no position information'))),
  spectrum: (p, data) => lines(join(`\\lambda_i = \\frac{2\\pi}{\\theta_i}`, theta(p), `i = 0,\\dots,${rotaryDim(p) / 2 - 1}`),
    scaledTheta(p, p.seq_len, data?.scaled)),
  rotation: (p, data) => lines(join(`\\begin{pmatrix}x'\\\\ y'\\end{pmatrix} = ${rotationAt(p, 't')}\\begin{pmatrix}1\\\\ 0\\end{pmatrix}`,
    `t = ${p.start},\\dots,${p.start + 10}`), join(`i = ${p.pair}`, theta(p, p.pair), p.encoding === 'xpos' && zeta(p, p.pair)),
    scaledTheta(p, p.start + 11, data?.rotation)),  // engine/calls.js pairTrajectory: frequencies for start + 11 tokens
  decay: (p) => lines(`q\\cdot R_{\\Delta} k\\,\\big|_{q=k=(1,\\dots,1)} = ${ropeOnes(p)}`,
    `\\frac{1}{${rotaryDim(p) / 2}}\\sum_{j=1}^{${rotaryDim(p) / 2}}|S_j|,\\ S_j = \\sum_{k<j} e^{\\mathrm{i}\\Delta${p.encoding === 'rope' && p.rope_type !== 'default' ? "\\theta'_k" : '\\theta_k'}}`,
    rotaryFrequencies(p, p.max_distance + 1)),
  rotated: (p) => lines(`(x'_{2i}, x'_{2i+1}) = ${rotationAt(p, '\\mathrm{pos}')}\\,(x_{2i}, x_{2i+1})\\ ${text('interleaved')}`,
    `(x'_{i}, x'_{i+${rotaryDim(p) / 2}}) = ${rotationAt(p, '\\mathrm{pos}')}\\,(x_{i}, x_{i+${rotaryDim(p) / 2}})\\ ${text('half')}`,
    `x = ${p.input === 'random' ? '\\text{one } \\mathcal{N}(0, I) \\text{ draw}' : '(1,\\dots,1)'}`, rotaryFrequencies(p, p.n)),
  bias: (p, data) => lines(biasOf(p, data), masked(p.causal)),
  heads: (p, data) => lines(join(`b_h(i,j) = -m_h\\,|i-j|`, masked(p.causal),
    p.heads_show !== 'bias' && `${text('shown:')}\\ e^{b_h(i,j)} = e^{-m_h|i-j|}`), slopes(p, data)),
  slopes: (p, data) => slopes(p, data),
  buckets: (p) => buckets(p),
  'fire-sections': (p) => lines(`b(i, i-m) = f_{\\theta}(x),\\ x = \\frac{\\psi(m)}{\\psi(\\max(${num(p.init_L)},\\, i)) + 10^{-6}},\\ ` +
    `\\psi(m) = \\ln(1 + ${num(p.init_c)}\\,m)`, `i \\in \\{N/8,\\ N/4,\\ N/2,\\ N\\},\\ N = ${p.sections_n},\\ m = 0,\\dots,i`),
  'decay-comparison': (p, data) => lines(p.compare_values !== 'raw' &&
    `y(\\Delta) = \\frac{f(\\Delta) - f(0)}{\\max_{\\Delta'\\le ${p.compare_distance}}|f(\\Delta') - f(0)|}`, compared(p, data)),
  worked: (p) => (p.encoding === 'rope'
    ? join(`x_t = ${num(p.sharpness)}\\cdot\\sqrt{8}\\,w_t`, 'q_t = R(t\\theta)\\,x_tW_q', 'k_t = R(t\\theta)\\,x_tW_k', 'v_t = x_tW_v',
      softmax('\\frac{q_i\\cdot k_j}{\\sqrt{8}}', p.attn_causal), `\\theta_i = ${num(p.rope_theta)}^{-2i/8}`)
    : join(`x_t = ${num(p.sharpness)}\\cdot\\sqrt{8}\\,w_t + p_t`, 'q_t, k_t, v_t = x_tW_q, x_tW_k, x_tW_v',
      softmax('\\frac{q_i\\cdot k_j}{\\sqrt{8}}', p.attn_causal), `\\omega_i = ${num(p.base)}^{-2i/8}`)),
  attention: (p, _, f) => lines(softmax(logit(p, f), labCausal(p)), projections(p, f)),
  ablation: (p, _, f) => lines(softmax(logit(p, f), labCausal(p)),
    `\\alpha^{\\varnothing}_{ij} = \\operatorname{softmax}_{j${labCausal(p) ? '\\le i' : ''}}\\Big(\\frac{x_iW_q\\cdot x_jW_k}{\\sqrt{${headWidths(p, f).d}}}\\Big)`,
    `x_i = x_{i'} \\Rightarrow \\alpha^{\\varnothing}_{i\\cdot} = \\alpha^{\\varnothing}_{i'\\cdot}${labCausal(p) ? '\\ \\text{(up to the mask)}' : ''}`),
  'word-order': (p, _, f) => lines(`D_{ij} = \\alpha^{B}_{\\pi(i)\\pi(j)} - \\alpha^{A}_{ij}`, `\\pi\\!:\\ ${text('where each token of A stands in B')}`,
    `${softmax(logit(p, f), labCausal(p))}`),
  terms: (p, _, f) => {
    const { d } = headWidths(p, f);
    const W = p.projections === 'identity' ? '' : 'W_qW_k^{\\top}';
    return `\\frac{(w_i + p_i)W_q\\big((w_j + p_j)W_k\\big)^{\\top}}{\\sqrt{${d}}} = \\frac{1}{\\sqrt{${d}}}\\Big(` +
      `\\underbrace{w_i${W}w_j^{\\top}}_{\\text{cc}} + \\underbrace{w_i${W}p_j^{\\top}}_{\\text{cp}} + ` +
      `\\underbrace{p_i${W}w_j^{\\top}}_{\\text{pc}} + \\underbrace{p_i${W}p_j^{\\top}}_{\\text{pp}}\\Big)\n` +
      `${p.projections === 'identity' ? 'W_q = W_k = I,\\quad ' : ''}w_i = ${num(p.sharpness)}\\cdot\\sqrt{${headWidths(p, f).dModel}}\\,e_i`;
  },
  // Compare mode (labs/compare-mode.js): two to four configurations of any families.
  'compare-decay': (p) => lines(p.compare_values !== 'raw' &&
    `y(\\Delta) = \\frac{f(\\Delta) - f(0)}{\\max_{\\Delta'\\le ${p.compare_distance}}|f(\\Delta') - f(0)|}`,
  `f(\\Delta) = \\frac{1}{\\sqrt{d}}\\sum_i 2\\cos(\\Delta\\,\\theta_i)\\ ${text('(RoPE; xPos: each term times')}\\ \\zeta_i^{\\Delta/\\gamma}),\\quad ` +
    `\\frac{1}{\\sqrt{d}}\\sum_i \\cos(\\Delta\\,\\omega_i)\\ ${text('(sinusoidal)')},\\quad b(i, i-\\Delta)\\ ${text('(bias)')},\\quad ` +
    `\\frac{1}{\\sqrt{d}}\\sum_c \\mathrm{softplus}(1)^2\\cos(\\delta_c - \\Delta\\,\\theta_c)\\ ${text('(PoPE)')}`),
  'compare-spectrum': () => join('\\lambda_i = \\frac{2\\pi}{\\theta_i}', `\\theta_i = \\mathrm{rope\\_theta}^{-2i/d}\\ ${text('or its scaling’s')}\\ \\theta'_i`),
  'compare-attention': (p) => lines(softmax('\\frac{q_i\\cdot k_j}{\\sqrt{d}} + b(i,j)', p.attn_causal),
    join(`x_i = ${num(p.sharpness)}\\cdot\\sqrt{d_{\\mathrm{model}}}\\,w_i`, `${text('each configuration’s encoding in its place: ')}p_i,\\ R_i\\ ${text('or')}\\ b(i,j)`)),
  panels: (p, data, f) => (p.encoding === 'deberta' ? debertaLogit(p)
    : lines(`\\underbrace{\\frac{q_i\\cdot k_j}{\\sqrt{${headWidths(p, f).d}}}}_{\\text{content}} + \\underbrace{b(i,j)}_{\\text{bias}} = \\text{biased}`,
      biasOf(p, data))),
  'deberta-buckets': (p) => debertaBuckets(p),
  'train-extrapolation': (p) => lines(`\\text{accuracy}(L) = \\frac{\\#\\{t: \\arg\\max_c z_{t,c} = y_t\\}}{\\#\\{t: y_t \\text{ defined}\\}}\\ ${text('over 16 sequences of length')}\\ L \\in \\{${[1, 2, 4, 8].map((f) => f * p.train_length).join(', ')}\\}`,
    `z_t = \\big(x_t + \\textstyle\\sum_j \\alpha_{tj} v_j\\big) W_{\\mathrm{out}} + c\\ ${text(`(${p.layers} layer${p.layers > 1 ? 's' : ''}, each with the encoding in its place)`)}`),
  'train-loss': (p) => lines(`\\mathcal{L} = -\\frac{1}{T}\\sum_{t} \\ln \\operatorname{softmax}(z_t)_{y_t},\\ ${text(`Adam, peak lr ${p.lr}, ${stepsOf(p)} steps of ${p.batch_size} sequence${p.batch_size > 1 ? 's' : ''} of ${p.train_length} tokens`)}`,
    p.drope && `${text(`DroPE: then ${dropeSteps(stepsOf(p))} more steps (steps / 4) with the encoding dropped:`)}\\ q_i \\cdot k_j\\ ${text('in place of')}\\ R_i q_i \\cdot R_j k_j`),
  'lm-extrapolation': (p) => lines(`\\mathrm{PPL}(L) = \\exp\\Big(-\\frac{1}{W_L\\,L}\\sum_{w=1}^{W_L}\\sum_{t=1}^{L} \\ln p_\\theta(c^{(w)}_{t+1} \\mid c^{(w)}_{\\le t})\\Big)`,
    `L \\in \\{${[0.25, 0.5, 1, 2, 4, 8].map((f) => Math.round(f * p.train_length)).join(', ')}\\},\\ ${text('trained at')}\\ L_{\\mathrm{train}} = ${p.train_length}`,
    `W_L = \\lceil ${EVAL_CHARACTERS} / L \\rceil\\ ${text('of the')}\\ \\lfloor (V - 1) / L \\rfloor\\ ${text('windows of the V held-out characters, spread evenly')}`),
  'lm-loss': (p) => lines(`\\mathcal{L} = -\\frac{1}{16\\,L}\\sum_{w=1}^{16}\\sum_{t=1}^{L} \\ln p_\\theta(c^{(w)}_{t+1} \\mid c^{(w)}_{\\le t}),\\ L = ${p.train_length}`,
    text(`Adam, ${p.steps} steps, peak lr 0.01 after a warm-up,`), text('cosine decay to a tenth, gradient norm clipped at 1')),
  'lm-table': (p) => `\\text{ratio} = \\frac{\\mathrm{PPL}(${4 * p.train_length})}{\\mathrm{PPL}(${p.train_length})},\\quad \\mathrm{PPL} = e^{\\mathcal{L}}`,
  'lm-samples': () => `c_{t+1} \\sim \\operatorname{softmax}(z_t / 0.8)`,
  // The model lab (labs/model-profile.js): what each layer kind computes, in symbols (its numbers are in the views).
  'profile-layers': () => lines(`${text('layer')}\\ \\ell:\\ q_m \\mapsto R^{(\\ell)}_{m}\\,q_m\\ ${text('(RoPE of its layer type, or the identity: NoPE)')}`,
    `${text('attends to')}\\ j \\le i\\ ${text('with')}\\ i - j < W_\\ell\\ ${text('(sliding window) or')}\\ \\lfloor i/C \\rfloor = \\lfloor j/C \\rfloor\\ ${text('(chunk)')}`),
  'profile-spectrum': () => lines(`\\lambda^{(k)}_i = \\frac{2\\pi}{\\theta^{(k)}_i}\\ ${text('for each layer kind')}\\ k`,
    `${text('proportional:')}\\ \\theta_i = \\mathrm{rope\\_theta}^{-2i/d}\\ (i < \\lfloor f d/2 \\rfloor),\\ \\theta_i = 0\\ ${text('otherwise')}`),
  'profile-decay': () => `\\frac{q\\cdot R_{\\Delta}k}{q\\cdot k}\\Big|_{q=k=(1,\\dots,1)} = \\frac{a^2\\sum_{i} 2\\cos(\\Delta\\,\\theta_i) + (d - d_{\\mathrm{rot}})}{2a^2\\,d_{\\mathrm{rot}}/2 + (d - d_{\\mathrm{rot}})}\\ ${text('(NoPE: 1)')}`,
  'profile-stacks': () => lines(`\\epsilon_i = \\frac{\\theta_i^{\\mathrm{stack}}}{\\theta_i^{\\mathrm{transformers}}} - 1\\ ${text('for llama.cpp and vLLM')}`,
    `${text('llama.cpp:')}\\ \\theta_i = \\mathrm{fl}\\big(\\theta_{i-1}\\cdot \\mathrm{fl}(b^{-2/d})\\big)\\ ${text('(float32), freq\\_scale = 1/factor')}`),
  'profile-temperature': () => `s(p) = \\ln\\!\\Big(1 + \\Big\\lfloor \\frac{p + 1}{\\mathrm{floor\\_scale}} \\Big\\rfloor\\Big)\\cdot \\mathrm{attn\\_scale} + 1,\\ q_p \\mapsto s(p)\\,q_p`,
  'profile-mrope': () => lines(`${text('text:')}\\ (t, h, w) = (s, s, s);\\ ${text('image cell')}\\ (r, c):\\ (t, h, w) = (s,\\ s + r,\\ s + c)`,
    `${text('pair')}\\ i\\ ${text('turns by')}\\ p_{a(i)}\\,\\theta_i,\\ a(i) \\in \\{t, h, w\\}\\ ${text('from mrope\\_section')}`),
  'train-attention': (p) => lines(`\\alpha^{(\\ell)}_{ij} = \\operatorname{softmax}_{j \\le i}\\big(s^{(\\ell)}_{ij}\\big),\\ i, j < L \\in \\{${p.train_length}, ${4 * p.train_length}\\}`,
    `s^{(\\ell)}_{ij}:\\ ${text('the trained scores of layer')}\\ \\ell\\ ${text('of the')}\\ ${p.map_arm.split(' → ').map(text).join('\\to ')}\\ ${text('model')}`),
  'pope-pairs': (p) => lines(`${text('RoPE:')}\\ q\\cdot R_{-m}k = \\sum_{p} \\lVert q_p\\rVert\\,\\lVert k_p\\rVert \\cos(m\\theta'_p + \\alpha_{k_p} - \\alpha_{q_p}),\\ \\theta'_p = ${num(p.theta)}^{-2p/${p.head_dim}}`,
    `${text('PoPE:')}\\ \\sum_{c} \\mathrm{softplus}(q_c)\\,\\mathrm{softplus}(k_c)\\cos(\\delta_c - m\\theta_c),\\ \\theta_c = ${num(p.theta)}^{-c/${p.head_dim}}`),
  'fox-gates': (p) => lines(`f_t = \\sigma(w\\cdot x_t ${p.trained_head ? `+ b)\\ ${text('(the trained head’s w, b)')}` : `${plus(p.fgate_bias)})`} = e^{\\,b(t,\\,t-1)}`,
    `b(n-1,\\,n-1-m) = \\sum_{l=n-m}^{n-1} \\log f_l,\\ ${text('mean over random tokens:')}\\ m\\,\\operatorname{E}[\\log f],\\ x \\sim \\mathcal{N}(0, I)`),
  'cope-count': (p) => lines(`g_{ij} = \\sigma(q_i\\cdot k_j) \\approx [\\,${p.count === 'word' ? `\\text{token } j = \\text{“${p.count_word.replace(/[\\{}$&#^_%~]/g, '')}”}` : 'j \\in \\{.\\,!\\,?\\}'}\\,],\\ ` +
    `q_i\\cdot k_j = \\pm 8`, `p_{ij} = \\sum_{t=j}^{i} g_{it}\\ ${text('(clamped at')}\\ ${p.npos_max - 1})`,
    `e_m = 4\\,[m = ${p.target}] \\Rightarrow b(i,j) = 4\\,\\max(0,\\ 1 - |p_{ij} - ${p.target}|)`),
};

/**
 * ALiBi's rule for H heads (Press et al. 2022, §3): for a power of two m_h = 2^(−8(h+1)/H); otherwise the slopes of
 * the power of two p below H first, then every other slope of 2p. The rule as written, with H's numbers; its values
 * are the core's (coreSlopes).
 */
function slopeRule(H) {
  const pow = 2 ** Math.floor(Math.log2(H));
  return pow === H ? [`m_h = 2^{-8(h+1)/${H}}`]
    : [`m_h = 2^{-8(h+1)/${pow}}\\ (h < ${pow})`, `m_{${pow}+k} = 2^{-8(2k+1)/${2 * pow}}\\ (k < ${H - pow})`];
}

/** ALiBi's slopes for n_heads: the rule, and the first and last slope as the core computed them (once drawn). */
function slopes(p, result) {
  const H = p.n_heads;
  const values = coreSlopes(result);
  return lines(...slopeRule(H), join(`h = 0,\\dots,${H - 1}`,
    values?.length === H && `m_0 = ${num(values[0])},\\ \\dots,\\ m_{${H - 1}} = ${num(values[H - 1])}`));
}

/** DeBERTa's scale_factor: 1 + the position terms of pos_att_type (p.pos_att: "p2c|c2p", "c2p", "p2c", "none"). */
function debertaFactor(p) {
  return p.pos_att === 'none' ? 1 : 1 + p.pos_att.split('|').length;
}

/** DeBERTa's logit, its three terms (deberta.hpp; modeling_deberta_v2.py's disentangled_attention_bias). */
function debertaLogit(p) {
  const f = debertaFactor(p);
  const on = (t) => p.relative_attention && p.pos_att.includes(t);
  const terms = ['\\underbrace{q_i\\cdot k_j}_{\\text{content}}',
    on('c2p') && '\\underbrace{q_i\\cdot K_r[\\delta(i-j)]}_{\\text{c2p}}',
    on('p2c') && '\\underbrace{k_j\\cdot Q_r[\\delta(i-j)]}_{\\text{p2c}}'].filter(Boolean);
  return lines(`a_{ij} = \\frac{${terms.join(' + ')}}{\\sqrt{${f}\\cdot ${p.head_dim}}}`,
    `K_r = ${p.norm_rel_ebd === 'layer_norm' ? '\\operatorname{LN}(E)' : 'E'}\\,W_k,\\ Q_r = ${p.norm_rel_ebd === 'layer_norm' ? '\\operatorname{LN}(E)' : 'E'}\\,W_q` +
      `${p.share_att_key ? `\\ ${text('(the head’s own W)')}` : `\\ ${text('(their own W, drawn)')}`}`);
}

/** DeBERTa's bucket of a relative position r = i − j (make_log_bucket_position) and the row it reads. */
function debertaBuckets(p) {
  const M = p.max_relative_positions < 1 ? p.max_position_embeddings : p.max_relative_positions;
  const S = p.position_buckets > 0 ? p.position_buckets : M;
  if (p.position_buckets <= 0) return join('\\delta(r) = r,\\ r = i - j', `\\text{row} = \\operatorname{clamp}(\\delta + ${S},\\ 0,\\ ${2 * S - 1})`);
  const mid = Math.floor(p.position_buckets / 2);
  return join(`\\delta(r) = \\begin{cases} r & |r| \\le ${mid} \\\\ \\operatorname{sign}(r)\\Big(\\Big\\lceil \\frac{\\ln(|r|/${mid})}{\\ln(${M - 1}/${mid})}\\cdot ${mid - 1}\\Big\\rceil + ${mid}\\Big) & \\text{else} \\end{cases}`,
    'r = i - j', `\\text{row} = \\operatorname{clamp}(\\delta + ${S},\\ 0,\\ ${2 * S - 1})`);
}

/** T5's bucket of a relative position r = j − i (t5.hpp; the reference _relative_position_bucket). */
function buckets(p) {
  const B = p.bidirectional ? Math.floor(p.num_buckets / 2) : p.num_buckets;
  const exact = Math.floor(B / 2);
  const r = p.bidirectional ? '|r|' : 'r^{-}';
  const log = `\\min\\Big(${B - 1},\\ ${exact} + \\Big\\lfloor \\frac{\\ln(${r}/${exact})}{\\ln(${p.max_distance}/${exact})}\\cdot ${B - exact}\\Big\\rfloor\\Big)`;
  return join(`\\operatorname{bucket}(r) = ${p.bidirectional ? `${B}\\,[r > 0] + ` : ''}\\begin{cases} ${r} & ${r} < ${exact} \\\\ ${log} & \\text{else} \\end{cases}`,
    `r = j - i`, p.bidirectional ? '' : 'r^{-} = \\max(-r, 0)');
}

/**
 * The formula of view `viewId` with the current values substituted.
 * @param {string} viewId   a view id (views/index.js)
 * @param {object} params   the parsed params of the view's family (state.js), with `encoding`
 * @param {object} [result] the view's result, when it has been computed: the numbers a formula shows that are the
 *   core's own (YaRN's ramp ends) come from it, and are left out without it
 * @param {?object} [family] the core's description of params.encoding (describe.js familyDescription: where its
 *   position acts, its width key), for the attention lab's formulas; null in compare mode
 * @param {?function} [own] the view module's own `formula(params, result, helpers)`, for a view FORMULAS has no entry
 *   for (a family's own view: views/index.js): helpers are {num, text, join, lines} as here
 * @returns {string|null}   TeX for KaTeX, or null for a view without a formula (an unknown id)
 */
export function formulaOf(viewId, params, result, family = null, own = null) {
  const tex = (Object.hasOwn(FORMULAS, viewId) ? FORMULAS[viewId](params, result, family) : own?.(params, result, HELPERS)) || null;
  return tex?.includes('\n') ? `\\begin{aligned}&${tex.replaceAll('\n', ' \\\\ &')}\\end{aligned}` : tex;
}

/**
 * Each family's formula, with symbols rather than values (the playground's sidebar), and what the page says beside
 * the core's source of it (describe()'s source): the core's own, each family's `formula()` beside its descriptor
 * (describe()'s formula and formula_note, which scripts/describe.mjs writes to web/generated/family-formulas.json).
 * @type {Record<string, {tex: string, note: string}>}
 */
export const FAMILY_FORMULAS = FORMULAS_OF_CORE;
