// posenc/kernels.hpp: the hot loops, on raw row-major float32 arrays (llm.c
// style: shapes in each comment, a plain scalar reference beside each fast
// kernel, the native tests compare the two). The fast ones are written with
// posenc/simd.hpp (WebAssembly SIMD in the page, SSE2 natively).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace posenc::kernels {

// ---------------------------------------------------------------------------
// Matrix products

/// out [m, n] = a [m, k] . b [k, n]. Register-blocked: 4 x 8 output tiles held
/// in 8 vectors while p runs over k (11 live v128 values, under the 16 XMM
/// registers V8 gives wasm on x86-64). Each output is the float sum over p in
/// order 0..k-1, the order of matmul_reference, so the two agree bit for bit.
void matmul(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n);

/// out [m, n] = a [m, k] . b [n, k]^T: every q_i . k_j at once (b's rows are the
/// columns of the product). Same tiles and summation order as matmul.
void matmul_bt(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n);

/// The plain i-p-j loops that matmul and matmul_bt are checked against.
void matmul_reference(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n);
void matmul_bt_reference(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n);

/// out [m, n] += a [m, k] . b [k, n]: each entry's terms a[i, p] b[p, j] added to it one at a time, in
/// order p = 0..k-1 (the order of a plain `out += x * b` loop: matmul_accumulate_reference's). Same tiles
/// as matmul, the accumulators loaded from out. a_lower: a is lower triangular (m = k, a[i, p] = 0 for
/// p > i, a causal head's weights): the sum for a tile of 4 rows stops after its last row's diagonal.
/// Skipping a term 0 * b[p, j] changes nothing but, at most, the sign of a zero result (b finite).
void matmul_accumulate(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n,
                       bool a_lower = false);

/// out [k, n] += a [m, k]^T . b [m, n] (the gradient of the right factor of a product): each entry's
/// terms a[r, p] b[r, j] added to it in order r = 0..m-1, as matmul_at_accumulate_reference. The same
/// tiles, 4 rows of out (4 adjacent columns of a) by 8 columns, a read down its columns. a_lower: a is
/// lower triangular (m = k, a[r, p] = 0 for r < p): the sum for a tile of rows p.. starts at r = p.
void matmul_at_accumulate(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n,
                          bool a_lower = false);

/// The plain loops matmul_accumulate and matmul_at_accumulate are checked against (every term, zeros included).
void matmul_accumulate_reference(const float* a, const float* b, float* out, std::size_t m, std::size_t k,
                                 std::size_t n);
void matmul_at_accumulate_reference(const float* a, const float* b, float* out, std::size_t m, std::size_t k,
                                    std::size_t n);

// ---------------------------------------------------------------------------
// Magnitudes (the float32 range checks of the callers' inputs)

/// out [n] = the largest |a[r, c]| over the rows r of a [m, n], per column c.
/// For finite inputs (the callers check that first); 0 for m = 0.
void column_max_abs(const float* a, std::size_t m, std::size_t n, float* out);

/// The largest |a[i]| of a [count]; 0 for count = 0. For finite inputs.
float max_abs(const float* a, std::size_t count);

// ---------------------------------------------------------------------------
// Softmax

/// Row-wise softmax in place of x [m, n], stable (the row's max is subtracted
/// first), with simd::exp (within 2 ulp) and each row's sum accumulated in
/// double over blocks of 64; weights below 2^-126 (subnormal) are flushed to 0,
/// -infinity entries get 0. A row of only -infinity becomes all 0.
void softmax_rows(float* x, std::size_t m, std::size_t n);

/// The scalar reference: std::exp per entry, the sum in double.
void softmax_rows_reference(float* x, std::size_t m, std::size_t n);

// ---------------------------------------------------------------------------
// The head: one attention head in full [n, n], the steps every head of posenc
// takes (the page's attention::run and training's forward pass, train.cpp):
// logits = scores(q, k) (+ the family's bias or after its rotation), then
// attend(logits, v). attentionForward runs the same head fused (attention below).

/// out [n_q, n_k] = q [n_q, d] . k [n_k, d]^T * scale: every scaled q_i . k_j
/// (matmul_bt, then one float32 product per entry).
void scores(const float* q, const float* k, float* out, std::size_t n_q, std::size_t n_k, std::size_t d, float scale);

/// logits [n, n] become the head's weights in place (causal: -infinity above the
/// diagonal first, so those weights are exactly 0; then softmax_rows), and
/// out [n, d_v] = weights . v [n, d_v] (matmul).
void attend(float* logits, const float* v, float* out, std::size_t n, std::size_t d_v, bool causal);

// The head's backward pass (training, train.cpp), causal: attend's, then scores'.

/// Given a causal head's weights [n, n] (0 above the diagonal), v [n, d_v] and dout [n, d_v] = d loss / d out:
/// dlogits [n, n] = d loss / d logits, 0 above the diagonal (ds_ij = dout_i . v_j by matmul_bt, blocks wholly
/// above the diagonal skipped; then the softmax's Jacobian per row, w_ij (ds_ij - sum_j' w_ij' ds_ij'), that
/// sum in order j' = 0..i), and dv [n, d_v] += weights^T . dout (matmul_at_accumulate, a_lower). Every
/// output is the float sum attend_backward_reference forms, in its order: the two agree bit for bit
/// (up to the sign of a zero).
void attend_backward(const float* weights, const float* v, const float* dout, float* dlogits, float* dv, std::size_t n,
                     std::size_t d_v);

/// Given dscores [n, n] = d loss / d scores (0 above the diagonal, a causal head) of scores = q . k^T * scale
/// (q, k [n, d]): dq [n, d] += (dscores * scale) . k and dk [n, d] += (dscores * scale)^T . q, each entry
/// * scale rounded once (matmul_accumulate and matmul_at_accumulate, a_lower). Bit for bit as
/// scores_backward_reference (up to the sign of a zero).
void scores_backward(const float* dscores, const float* q, const float* k, float* dq, float* dk, std::size_t n,
                     std::size_t d, float scale);

/// The plain loops over j <= i that attend_backward and scores_backward are checked against, in any
/// precision: the float64 training (train_slots.hpp) runs these, for its finite-difference checks.
template <class Real>
void attend_backward_reference(const Real* weights, const Real* v, const Real* dout, Real* dlogits, Real* dv,
                               std::size_t n, std::size_t d_v) {
    for (std::size_t i = 0; i < n; ++i) {
        const Real* w = weights + i * n;
        Real* ds = dlogits + i * n;
        Real weighted = 0;
        for (std::size_t j = 0; j <= i; ++j) {
            Real s = 0;
            for (std::size_t c = 0; c < d_v; ++c) s += dout[i * d_v + c] * v[j * d_v + c];
            ds[j] = s;
            for (std::size_t c = 0; c < d_v; ++c) dv[j * d_v + c] += w[j] * dout[i * d_v + c];
            weighted += w[j] * s;
        }
        for (std::size_t j = 0; j < n; ++j) ds[j] = j <= i ? w[j] * (ds[j] - weighted) : Real(0);  // the softmax's Jacobian
    }
}

template <class Real>
void scores_backward_reference(const Real* dscores, const Real* q, const Real* k, Real* dq, Real* dk, std::size_t n,
                               std::size_t d, Real scale) {
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            const Real s = dscores[i * n + j] * scale;
            for (std::size_t c = 0; c < d; ++c) {
                dq[i * d + c] += s * k[j * d + c];
                dk[j * d + c] += s * q[i * d + c];
            }
        }
}

// ---------------------------------------------------------------------------
// Fused attention

/// Adds a logit bias b(i, j) to a tile of scores: s[r * ld + c] += b(i0 + r, j0 + c)
/// for r < rows, c < cols. One call per tile of the fused kernel.
class BiasTile {
public:
    virtual ~BiasTile() = default;
    virtual void add(std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols, float* s,
                     std::size_t ld) const = 0;
};

/// A bias that depends only on j - i: b(i, j) = f[j - i + n - 1], f of length 2n - 1
/// (ALiBi, T5 buckets, KERPLE). Adds a contiguous slice of f to each row of a tile.
class RelativeBias final : public BiasTile {
public:
    RelativeBias(std::vector<float> f, std::int64_t n) : f_(std::move(f)), n_(n) {}
    void add(std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols, float* s,
             std::size_t ld) const override;

private:
    std::vector<float> f_;
    std::int64_t n_;
};

/// out [n, d_v] = softmax(q k^T * scale + b, causal mask) v, with q, k [n, d] and
/// v [n, d_v] row-major, in one pass over blocks of keys (FlashAttention's online
/// softmax, Dao et al. 2022, Algorithm 1, on one core): for each block of 32
/// queries and 64 keys (36 and 72 with MicroKernels::tile6 installed), the scores tile, its running max and sum, and the
/// weighted sum of v, rescaled when the max grows. Memory beyond the inputs is
/// O(n d), never n x n. causal: a block of queries [i0, i0 + 32) takes the keys
/// before i0, which all its queries see, as plain blocks of 64 (no mask); then
/// one block from the last multiple of 64 to its last query: 0 or 32 keys all
/// see, then the 32 x 32 diagonal, where each group of 4 queries (6 with
/// MicroKernels::tile6 installed) computes its
/// scores (8-key tiles), bias, softmax and P.V only up to its last query's key
/// (the entries a tile holds past a query's own key get weight 0); keys after
/// the block's last query are never touched. bias may be null; a row whose
/// every logit is -infinity (a bias can do that) gets 0. The scores are in base 2 (the logits times log2(e): q is
/// scaled by scale * log2(e); with a bias, by scale, and each tile times log2(e) once the bias is added), so each
/// weight e^(logit - max) is 2^(score - max), from simd::exp2_fast (within 2.0e-7 relative), and the rescale
/// factors from std::exp2 (none when the max is unchanged); with MicroKernels::softmax_rows installed, both from its
/// 2^x (within 2.0e-7) for the blocks every query of the block sees. q is scaled and K packed into panels of 8 keys
/// once per call.
void attention(const float* q, const float* k, const float* v, std::int64_t n, std::int64_t d, std::int64_t d_v,
               float scale, bool causal, const BiasTile* bias, float* out);

/// The reference: the whole [n, n] score matrix, softmax_rows_reference, matmul_reference.
void attention_reference(const float* q, const float* k, const float* v, std::int64_t n, std::int64_t d,
                         std::int64_t d_v, float scale, bool causal, const BiasTile* bias, float* out);

// ---------------------------------------------------------------------------
// Rotations and sinusoids

/// The unit phasors (cos, sin)(p w_i), times amplitude * g_i^p, of pairs i < half
/// at positions p = start + r: the angles of RoPE and of the sinusoid table
/// without a sin or cos per entry. Rows come in blocks of 16: a block's anchor,
/// (cos, sin)(p0 w_i) amplitude g_i^p0 in float64, advances from block to block
/// by the exact 16-token phasor (16 w_i is exact in float64), and row p0 + k is the
/// anchor times the k-token phasor (a float64 table of 16 rows made once), both
/// rounded to float32 and multiplied in float32. Errors do not build up from row
/// to row: each value is within about 5 * 2^-24 (3e-7) of the exact one, relative
/// to amplitude g_i^p, for any position the float64 anchors carry (under 1e-12
/// after 2^24 positions). log_gain (may be null) gives g_i = e^log_gain[i].
class Phasors {
public:
    Phasors(const double* inv_freq, const double* log_gain, std::size_t half, std::int64_t start, double amplitude);
    /// The phasors of position start + r as float32, [half rounded up to a multiple of 4] each (zero-padded).
    /// Rows must be asked for in increasing order (each block's anchor is reached by stepping).
    void row(std::int64_t r, float* c, float* s);

private:
    static constexpr int kBlock = 16;
    std::size_t padded_;
    std::int64_t block_ = 0;
    std::vector<double> anchor_c_, anchor_s_, jump_c_, jump_s_;
    std::vector<float> anchor_cf_, anchor_sf_, table_c_, table_s_;  // [padded], [kBlock][padded]
};

/// Rotates the rows of x [n, head_dim] in place: row r is at position offset + r;
/// pair i (interleaved: dims 2i, 2i+1; else i, i + half) turns by position * inv_freq[i]
/// radians and is scaled by amplitude * e^(position * log_gain[i]) (log_gain may be
/// null). Dims from 2 * half on are left as they are. Phasors from kernels::Phasors, the
/// products in float32 (4 lanes; interleaved pairs by shuffles).
void rotate(float* x, std::int64_t n, std::int64_t head_dim, bool interleaved, const double* inv_freq,
            std::size_t half, std::int64_t offset, double amplitude, const double* log_gain);

/// The reference: sin, cos and exp per entry in float64.
void rotate_reference(float* x, std::int64_t n, std::int64_t head_dim, bool interleaved, const double* inv_freq,
                      std::size_t half, std::int64_t offset, double amplitude, const double* log_gain);

/// out [n, 2 * half]: sin and cos of position * inv_freq[i] for positions offset .. offset + n - 1,
/// interleaved (sin at 2i, cos at 2i + 1) or concatenated (sin at i, cos at half + i).
void sinusoid_table(float* out, std::int64_t n, std::size_t half, bool interleaved, const double* inv_freq,
                    std::int64_t offset);

/// The index of the first item of x [n] that is NaN or infinite, or n when every item is finite: x * 0 summed in
/// four running sums of 4 lanes over blocks of 256 (NaN once any item is not finite), then only that block scanned
/// one by one.
/// What the JS API checks every float32 input array with, before the core reads it (so a NaN is named where it is).
std::size_t first_nonfinite(const float* x, std::size_t n);

/// The SIMD backend this build uses: "wasm-simd128", "sse2" or "scalar".
const char* backend();

// ---------------------------------------------------------------------------
// Micro-kernels from outside the C++ build (the page's fused multiply-add path)
//
// The two innermost loops can be swapped, at run time, for versions written elsewhere: in the page,
// wasm/relaxed-kernels.wat (relaxed SIMD's f32x4.relaxed_madd, which Emscripten 3.1.6 cannot emit),
// assembled at build time and installed by wasm/post.js when the engine accepts relaxed SIMD. A
// kernel left null (the default, and always natively) is the C++ SIMD code. With fused products the
// sums are rounded once per term instead of twice: results differ from the C++ path's (and from the
// references) in the last bits, within the same error bounds; they are no longer bit for bit.

/// tile<R> of kernels.cpp (R = 6, 4 or 1 rows): out[r, 0..8) (=, or += when accumulate != 0)
/// sum_{p0 <= p < p1} a[r * lda + p * ldp] * panel[p * 8 + 0..8) for the rows r < R, in order p.
/// Strides in floats. Used by matmul, matmul_bt, the two accumulating products and attention's scores (a partial
/// panel's tile goes through a buffer of 8 columns).
using TileKernel = void (*)(const float* a, std::size_t lda, std::size_t ldp, const float* panel, std::size_t p0,
                            std::size_t p1, float* out, std::size_t ldo, int accumulate);

/// weighted_sum<R, 2> of kernels.cpp (R = 6, 4 or 1 rows), attention's P.V update: out[r, 0..8) = alpha[r] *
/// out[r, 0..8) + sum_{p < keys} w[r * ldw + p] * v[p * ldv + 0..8) for the rows r < R, in order p. Strides in floats.
using WeightedSumKernel = void (*)(const float* w, std::size_t ldw, const float* v, std::size_t ldv,
                                   std::size_t keys, const float* alpha, float* out, std::size_t ldo);

/// Attention's online-softmax step (relaxed-kernels.wat's softmaxRows) for `rows` rows of a block of scores that every
/// query of the block sees, cols a multiple of 8; the scores are in base 2 (attention's logits times log2(e)): for
/// each row r, m = max(running_max[r], max_c s[r * lds + c]); s[r * lds + c] becomes 2^(s - m) (+0 below 2^-126),
/// alpha[r] = 2^(running_max[r] - m) (1 when m is unchanged), sums[r] = the float sum of the row's weights,
/// running_max[r] = m; a row and running max of only -infinity give weights, alpha and sum 0. The 2^x is within
/// 2.0e-7 relative (as simd::exp2_fast). Strides in floats.
using SoftmaxKernel = void (*)(float* s, std::size_t lds, std::size_t rows, std::size_t cols, float* running_max,
                               float* alpha, float* sums);

/// The installable kernels. Install all four or none: with the 1-row ones, every entry of a product (and every
/// row of attention's output) takes the same arithmetic whatever its row, so equal rows stay equal and permuted
/// rows give exactly permuted results (the page's word-order view shows that difference as 0).
/// tile6 and weighted_sum_6x2 (optional, both or neither, and only beside the four): the same contracts for 6 rows,
/// 12 accumulators (the relaxed path's register-filling tile). With them, attention takes its rows 6 at a time
/// (in blocks of 36 queries: 6 groups of 6); the products take their rows 6 at a time too.
/// softmax_rows (optional): attention's softmax step for the blocks of keys every query of the block sees (all
/// but a causal head's diagonal blocks, whose rows see different keys and keep the C++ code), when their width is a
/// multiple of 8; the rows of a block all take it or all do not.
struct MicroKernels {
    TileKernel tile4 = nullptr, tile1 = nullptr;
    WeightedSumKernel weighted_sum_4x2 = nullptr, weighted_sum_1x2 = nullptr;
    TileKernel tile6 = nullptr;
    WeightedSumKernel weighted_sum_6x2 = nullptr;
    SoftmaxKernel softmax_rows = nullptr;
};

/// Installs the kernels every later product and attention call uses (a null one: the C++ kernel). Not
/// thread-safe: the wasm module is single-threaded; natively nothing calls it but the tests.
void set_micro_kernels(const MicroKernels& kernels);

/// Whether set_micro_kernels has installed a kernel (either one).
bool external_micro_kernels();

}  // namespace posenc::kernels
