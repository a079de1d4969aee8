#!/usr/bin/env python3
"""The PyTorch-CPU peer of the bench's train-lm section (tests/bench/train-lm.mjs): posenc's text model
and training step (core/include/posenc/train.hpp's model, core/src/train.cpp's Trainer::step) written in
PyTorch, float32, on one CPU thread. A bench peer only: nothing of `npm test` imports or runs it.

The model, for B windows of n characters (d = d_model, H heads of hd = d / H, F = intermediate_size,
V = the text's distinct characters):
    h = E[tokens] (+ P[0:n]: learned), or sqrt(d) E[tokens] + sinusoidal's table  [B, n, d]
    per layer: u = rms(h) g1;  q, k, v = u Wq, u Wk, u Wv (heads side by side)    [B, H, n, hd]
               rope: q, k rotated (rotate_half layout, theta 10000)
               s = q k^T / sqrt(hd) + b(i, j) (alibi, t5, kerple, fire), causal   [B, H, n, n]
               h += concat_h(softmax(s) v) Wo;  h += relu(rms(h) g2 W1 + b1) W2 + b2
    z = rms(h) g Wout + c;  loss = mean over the B n positions of cross-entropy(z, next character)
with rms(x) = x / sqrt(mean(x^2) + 1e-5) over d. The step: the loss's gradient, clipped to a global L2
norm of grad_clip (torch.nn.utils.clip_grad_norm_, as the core's clip_gradient), Adam (Kingma and Ba,
bias-corrected, eps 1e-8: torch.optim.Adam computes the same update) at learning_rate() below, then
KERPLE's r1, r2 kept >= 1e-3 (the core's constrain). The initial values are drawn from the same
distributions as the core's make_model, from torch's generator: only speed is compared (and the loss,
as a check that it trains the same model). A bias that depends only on (i, j) is computed once per batch
and broadcast over its windows (posenc computes it per window): PyTorch at its best.

Run by train-lm.mjs as `python3 torch_lm.py TEXT_FILE`; it answers JSON lines on stdin with one JSON
line each on stdout:
    (at start, unasked)                          -> {torch, threads, blas, vocab, characters}
    {"cmd": "init", "encoding": {type, ...}, "request": {the lab's train request keys}, "seed": s}
                                                 -> {parameters}
    {"cmd": "steps", "count": k}                 -> {seconds, losses: [k]}   (seconds: the k steps' wall time)
A failure answers {error}. It exits at the end of its input.
"""
import json
import math
import sys
import time

import torch
import torch.nn.functional as F

NORM_EPS = 1e-5          # the core's kNormEps
VALIDATION_FRACTION = 0.1  # the core's default: the training windows come from the first 90% of the text


def learning_rate(lr, step, steps, warmup, cosine):
    """The core's learning_rate() (train.cpp): step is 0-based of `steps`; a linear warm-up from lr / warmup
    to lr over the first `warmup` steps, then constant or (cosine) a half cosine from lr to lr / 10."""
    if step < warmup:
        return lr * (step + 1) / warmup
    if not cosine or steps - warmup <= 1:
        return lr
    progress = (step - warmup) / (steps - warmup - 1)
    return lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress)))


def corpus(text):
    """(tokens int64 [characters], vocab, train_end) as the core's corpus_of: the distinct code points
    ascending; the validation part starts at the line start after 90% of the text."""
    vocabulary = sorted(set(text))
    index = {ch: i for i, ch in enumerate(vocabulary)}
    tokens = torch.tensor([index[ch] for ch in text], dtype=torch.int64)
    size = len(text)
    end = int(size * (1.0 - VALIDATION_FRACTION))
    while 0 < end < size and text[end - 1] != '\n':
        end += 1
    if end >= size:
        end = int(size * (1.0 - VALIDATION_FRACTION))
    return tokens, len(vocabulary), end


def alibi_slopes(heads):
    """Press et al.'s slopes (the core's alibi::slopes): 2^(-8 k / p) for the closest power of two p <= heads,
    then every other slope of 2p for the rest."""
    def powers(p):
        return [2.0 ** (-8.0 * (k + 1) / p) for k in range(p)]
    p = 1
    while p * 2 <= heads:
        p *= 2
    return powers(p) + powers(2 * p)[0::2][:heads - p]


def t5_buckets(n, num_buckets=32, max_distance=128):
    """[n, n] int64: the one-way (bidirectional false) bucket of key j for query i, as the core's
    relative_position_bucket of j - i: distances below num_buckets / 2 exact, then logarithmic up to
    max_distance (the ratio in float32, as transformers computes it), the last bucket beyond."""
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    distance = (i - j).clamp(min=0)
    exact = num_buckets // 2
    ratio = (torch.log(distance.float().clamp(min=1) / exact) / math.log(max_distance / exact) * (num_buckets - exact))
    large = (exact + ratio.to(torch.int64)).clamp(max=num_buckets - 1)
    return torch.where(distance < exact, distance, large)


def fire_inputs(n, c=0.1, threshold=512.0, eps=1e-6):
    """[n, n] float32: FIRE's normalised distance psi(i - j) / (psi(max(i, L)) + eps), psi(x) = log(1 + |c x|),
    in float64 rounded once (the core's normalized_distance at its defaults init_c 0.1, init_L 512)."""
    i = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(n, dtype=torch.float64)[None, :]
    psi = lambda x: torch.log1p((c * x).abs())
    return (psi(i - j) / (psi(torch.clamp(i, min=threshold)) + eps)).float()


def rope_tables(n, hd, theta=10000.0):
    """(cos, sin) [n, hd] for the rotate_half layout (the core's default, 'half'): angle t theta^(-2i/hd),
    in float64 rounded once."""
    inv_freq = theta ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)
    angles = torch.arange(n, dtype=torch.float64)[:, None] * inv_freq[None, :]
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().float(), angles.sin().float()


def sinusoidal_table(n, d, base=10000.0):
    """[n, d]: interleaved sin/cos pairs at timescales base^(-2i/d) (the core's defaults), float64 rounded once."""
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = torch.arange(n, dtype=torch.float64)[:, None] * inv_freq[None, :]
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(n, d).float()


class Layer(torch.nn.Module):
    """One pre-normalised block: its weights and its family's position parameters (per head)."""

    def __init__(self, family, d, heads, mlp, normal, uniform):
        super().__init__()
        self.heads = heads
        self.g1 = torch.nn.Parameter(torch.ones(d))
        self.Wqkv = torch.nn.Parameter(normal(d, 3 * d, std=d ** -0.5))  # [Wq | Wk | Wv], each H heads of [d, hd]
        self.Wo = torch.nn.Parameter(normal(d, d, std=d ** -0.5))
        self.g2 = torch.nn.Parameter(torch.ones(d))
        self.W1 = torch.nn.Parameter(normal(d, mlp, std=d ** -0.5))
        self.b1 = torch.nn.Parameter(torch.zeros(mlp))
        self.W2 = torch.nn.Parameter(normal(mlp, d, std=mlp ** -0.5))
        self.b2 = torch.nn.Parameter(torch.zeros(d))
        if family == 't5':  # relative_attention_bias per head, from zeros
            self.table = torch.nn.Parameter(torch.zeros(heads, 32))
        elif family == 'kerple':  # [r1, r2] per head, log variant, from the spec's 1, 1
            self.r = torch.nn.Parameter(torch.ones(heads, 2))
        elif family == 'fire':  # the MLP 1 -> 32 -> 1 per head, drawn as torch.nn.Linear draws it
            width = 32
            self.w1 = torch.nn.Parameter(uniform(heads, width, bound=1.0))
            self.fb1 = torch.nn.Parameter(uniform(heads, width, bound=1.0))
            self.w2 = torch.nn.Parameter(uniform(heads, width, bound=width ** -0.5))
            self.fb2 = torch.nn.Parameter(uniform(heads, bound=width ** -0.5))


class LanguageModel(torch.nn.Module):
    """posenc's text model for one encoding family (none, sinusoidal, learned, rope, alibi, t5, kerple, fire)."""

    FAMILIES = ('none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'kerple', 'fire')

    def __init__(self, family, vocab, d, layers, heads, mlp, max_length, seed):
        super().__init__()
        if family not in self.FAMILIES:
            raise ValueError(f'encoding {family!r}: the PyTorch peer has {", ".join(self.FAMILIES)}')
        generator = torch.Generator().manual_seed(seed)
        normal = lambda *shape, std: torch.randn(*shape, generator=generator) * std
        uniform = lambda *shape, bound: (torch.rand(*shape, generator=generator) * 2 - 1) * bound
        self.family, self.d, self.heads, self.hd = family, d, heads, d // heads
        self.E = torch.nn.Parameter(normal(vocab, d, std=d ** -0.5))
        self.blocks = torch.nn.ModuleList(Layer(family, d, heads, mlp, normal, uniform) for _ in range(layers))
        self.g = torch.nn.Parameter(torch.ones(d))
        self.Wout = torch.nn.Parameter(normal(d, vocab, std=d ** -0.5))
        self.c = torch.nn.Parameter(torch.zeros(vocab))
        if family == 'learned':
            self.P = torch.nn.Parameter(normal(max_length, d, std=0.02))
        self.fixed = {}  # per length: the family's fixed tables

    def tables(self, n):
        """The family's fixed values for n positions (made once per length): the causal mask and its own."""
        if n not in self.fixed:
            t = {'mask': torch.ones(n, n, dtype=torch.bool).triu(1)}
            if self.family == 'sinusoidal':
                t['P'] = sinusoidal_table(n, self.d)
            elif self.family == 'rope':
                t['cos'], t['sin'] = rope_tables(n, self.hd)
            elif self.family == 'alibi':
                slopes = torch.tensor(alibi_slopes(self.heads), dtype=torch.float32)
                distance = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).clamp(min=0).float()
                t['bias'] = -slopes[:, None, None] * distance
            elif self.family == 't5':
                t['buckets'] = t5_buckets(n)
            elif self.family == 'kerple':
                t['distance'] = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).clamp(min=0).float()
            elif self.family == 'fire':
                t['x'] = fire_inputs(n)
            self.fixed[n] = t
        return self.fixed[n]

    def bias(self, block, t):
        """b(i, j) [H, n, n] of the bias families (None for the others); only j <= i is read."""
        if self.family == 'alibi':
            return t['bias']
        if self.family == 't5':
            return block.table[:, t['buckets']]
        if self.family == 'kerple':
            r1, r2 = block.r[:, 0, None, None], block.r[:, 1, None, None]
            return -r1 * torch.log1p(r2 * t['distance'])
        if self.family == 'fire':
            hidden = torch.relu(t['x'][None, :, :, None] * block.w1[:, None, None, :] + block.fb1[:, None, None, :])
            return (hidden * block.w2[:, None, None, :]).sum(-1) + block.fb2[:, None, None]
        return None

    @staticmethod
    def rms(x, gain):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + NORM_EPS) * gain

    def forward(self, tokens, targets):
        """The mean cross-entropy over tokens [B, n] (targets [B, n]: the next characters)."""
        B, n = tokens.shape
        H, hd = self.heads, self.hd
        t = self.tables(n)
        h = self.E[tokens]
        if self.family == 'learned':
            h = h + self.P[:n]
        elif self.family == 'sinusoidal':  # the embeddings scaled by sqrt(d_model) (Vaswani et al. 2017, section 3.4)
            h = h * math.sqrt(self.d) + t['P']
        for block in self.blocks:
            u = self.rms(h, block.g1)
            q, k, v = (u @ block.Wqkv).view(B, n, 3, H, hd).permute(2, 0, 3, 1, 4)  # each [B, H, n, hd]
            if self.family == 'rope':
                def rotate(x):
                    half = torch.cat([-x[..., hd // 2:], x[..., :hd // 2]], dim=-1)
                    return x * t['cos'] + half * t['sin']
                q, k = rotate(q), rotate(k)
            s = (q @ k.transpose(-1, -2)) * (hd ** -0.5)
            b = self.bias(block, t)
            if b is not None:
                s = s + b
            weights = torch.softmax(s.masked_fill(t['mask'], float('-inf')), dim=-1)
            o = (weights @ v).transpose(1, 2).reshape(B, n, self.d)
            h = h + o @ block.Wo
            hidden = torch.relu(self.rms(h, block.g2) @ block.W1 + block.b1)
            h = h + hidden @ block.W2 + block.b2
        z = self.rms(h, self.g) @ self.Wout + self.c
        return F.cross_entropy(z.reshape(B * n, -1), targets.reshape(B * n))

    @torch.no_grad()
    def constrain(self):
        """KERPLE's r1, r2 kept >= 1e-3 after a step (the core's constrain; the log variant has no upper bound)."""
        if self.family == 'kerple':
            for block in self.blocks:
                block.r.clamp_(min=1e-3)


class Run:
    """One encoding's model, its optimiser and its schedule, a request of the lab's keys (requestOf)."""

    def __init__(self, tokens, vocab, train_end, encoding, request, seed):
        self.tokens, self.train_end, self.r = tokens, train_end, request
        self.model = LanguageModel(encoding['type'], vocab, request['d_model'], request['layers'], request['n_heads'],
                                   request['intermediate_size'], max(request['train_length'], *request['eval_lengths']), seed)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=request['lr'], betas=(0.9, 0.999), eps=1e-8)
        self.generator = torch.Generator().manual_seed(seed + 1)
        self.done = 0
        self.offsets = torch.arange(request['train_length'] + 1)

    def batch(self):
        """B windows of train_length + 1 characters at uniform offsets in the training part: (tokens, targets)."""
        n = self.r['train_length']
        starts = torch.randint(0, self.train_end - n, (self.r['batch_size'], 1), generator=self.generator)
        windows = self.tokens[starts + self.offsets]
        return windows[:, :-1], windows[:, 1:]

    def step(self):
        r = self.r
        lr = learning_rate(r['lr'], self.done, r['steps'], r['warmup_steps'], r['lr_decay'] == 'cosine')
        for group in self.optimizer.param_groups:
            group['lr'] = lr
        inputs, targets = self.batch()
        loss = self.model(inputs, targets)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if r['grad_clip'] > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), r['grad_clip'])
        self.optimizer.step()
        self.model.constrain()
        self.done += 1
        return loss.item()


def blas_library():
    """The folders of the BLAS libraries this process mapped (the folder says which alternative: openblas-serial, ...)."""
    try:
        with open('/proc/self/maps') as maps:
            paths = {line.split()[-1] for line in maps if 'blas' in line.lower() and '/' in line}
        return ', '.join(sorted({p.rsplit('/', 1)[0] for p in paths})) or 'none mapped'
    except OSError:
        return 'unknown'


def main():
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    with open(sys.argv[1], encoding='utf-8', newline='') as f:
        text = f.read()
    tokens, vocab, train_end = corpus(text)
    torch.ones(8, 8) @ torch.ones(8, 8)  # loads the BLAS before it is named
    say = lambda obj: (sys.stdout.write(json.dumps(obj) + '\n'), sys.stdout.flush())
    say({'torch': torch.__version__, 'threads': torch.get_num_threads(), 'blas': blas_library(), 'vocab': vocab,
         'characters': len(text)})
    run = None
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            if message['cmd'] == 'init':
                run = Run(tokens, vocab, train_end, message['encoding'], message['request'], message.get('seed', 0))
                say({'parameters': sum(p.numel() for p in run.model.parameters())})
            elif message['cmd'] == 'steps':
                start = time.perf_counter()
                losses = [run.step() for _ in range(message['count'])]
                say({'seconds': time.perf_counter() - start, 'losses': losses})
            else:
                say({'error': f'unknown command {message["cmd"]!r}'})
        except Exception as e:  # answered, so the bench reports it and goes on
            say({'error': f'{type(e).__name__}: {e}'})


if __name__ == '__main__':
    main()
