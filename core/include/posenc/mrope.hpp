// posenc/mrope.hpp: multimodal RoPE (M-RoPE) of Qwen2-VL, Qwen2.5-VL and Qwen3-VL:
// each token carries three position ids (t: temporal, h: height, w: width) instead
// of one, and each rotary pair of the head turns by the id of one axis. Text tokens
// have t = h = w, so on text M-RoPE is plain RoPE; an image's tokens share one t
// and spread over h and w by their row and column in the image's grid.
//
// Sources (huggingface/transformers, read for this file):
//   which axis drives each pair, sectioned (Qwen2-VL, Qwen2.5-VL):
//     src/transformers/models/qwen2_vl/modeling_qwen2_vl.py, apply_multimodal_rotary_pos_emb
//     (commit 00b676f8f0489b88652a31d70751cc540dd06305);
//   interleaved (Qwen3-VL, mrope_interleaved / its default):
//     src/transformers/models/qwen3_vl/modeling_qwen3_vl.py,
//     Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope
//     (commit 00709b862bb8f14a5435bb7195592579168496e4);
//   the three ids of a sequence: modeling_qwen2_vl.py, Qwen2VLModel.get_rope_index
//     (same commit as above).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace posenc::mrope {

/// The axes: a pair's driving id, a token's id row.
enum Axis : int { t = 0, h = 1, w = 2 };

/// The most rotary pairs mrope_pair_axes takes (sum of the sections): 4096 (head_dim 8192).
constexpr std::int64_t kMaxPairs = 4096;
/// mrope_positions' ranges: text runs of [0, 256] tokens, an image grid (after the spatial
/// merge) of [1, 64] x [1, 64] tokens.
constexpr std::int64_t kMaxText = 256;
constexpr std::int64_t kMaxGrid = 64;

/// Which position id drives each rotary pair (0 = t, 1 = h, 2 = w), [sum(sections)]:
/// one per pair i of the half (rotate_half) layout, i.e. of dimensions (i, i + head_dim / 2),
/// so sum(sections) = head_dim / 2 as in every released config ([16, 24, 24] for Qwen2-VL-7B,
/// head_dim 128; [24, 20, 20] for Qwen3-VL).
///
/// sectioned (interleaved = false; Qwen2-VL's apply_multimodal_rotary_pos_emb splits cos and
/// sin, [head_dim], into chunks of sizes sections * 2 = [t, h, w, t, h, w] and takes chunk k
/// from axis k % 3): pair i is driven by t for i < s_t, by h for s_t <= i < s_t + s_h, by w
/// for the rest. Both halves of the head get the same split, so each pair has one axis.
///
/// interleaved (Qwen3-VL's apply_interleaved_mrope starts from the t frequencies of all
/// head_dim / 2 pairs and overwrites, for axis a = 1 (h) and 2 (w), the pairs
/// slice(a, 3 * s_a, 3)): pair i is driven by h when i % 3 == 1 and i < 3 s_h, by w when
/// i % 3 == 2 and i < 3 s_w, by t otherwise: T H W T H W ... then the tail all t. s_t is not
/// read; t gets what is left. For [24, 20, 20]: h at 1, 4, ..., 58; w at 2, 5, ..., 59;
/// t at 0, 3, ..., 57 and 60..63 (24 pairs). Where 3 s_h or 3 s_w passes the pair count, the
/// slice stops at the last pair, so an axis can get fewer pairs than its section says.
///
/// Throws BadParam ("sections") unless sections is 3 integers >= 0 whose sum is in
/// [1, kMaxPairs].
std::vector<int> mrope_pair_axes(const std::vector<std::int64_t>& sections, bool interleaved);

/// The three position ids of each token and its kind, [3][n] and [n]: ids[0] = t, ids[1] = h,
/// ids[2] = w; kind 0 text, 1 image.
struct Positions {
    std::array<std::vector<std::int32_t>, 3> ids;
    std::vector<std::int32_t> kind;
};

/// The ids of text_before text tokens, one image of grid_h x grid_w tokens (the grid after the
/// vision tower's spatial merge: image_grid_thw's h and w divided by spatial_merge_size; one
/// frame, t = 1), then text_after text tokens, n = text_before + grid_h * grid_w + text_after,
/// as Qwen2VLModel.get_rope_index computes them: text tokens take t = h = w = the running index,
/// starting at 0 (the text before: 0 .. text_before - 1); the image's token at row r and
/// column c (row-major) takes t = s, h = s + r, w = s + c with s = text_before; the text after
/// starts at the largest id so far plus 1: s + max(grid_h, grid_w). (In a real prompt the text
/// before includes the <|vision_start|> token and the text after starts with <|vision_end|>.)
/// Throws BadParam ("textBefore", "textAfter") outside [0, 256] and ("gridH", "gridW") outside
/// [1, 64].
Positions mrope_positions(std::int64_t text_before, std::int64_t grid_h, std::int64_t grid_w, std::int64_t text_after);

}  // namespace posenc::mrope
