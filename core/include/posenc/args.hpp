// posenc/args.hpp: the integer arguments of the JS API's functions, each with
// its name as the JS function names it and its range, from the limits the core
// exports (describe()'s "limits"). The registry, alibi, t5 and attention entry
// points check them; wasm/bindings.cpp converts JS numbers with them, so no
// range is written twice.
#pragma once

#include "posenc/alibi.hpp"
#include "posenc/attention.hpp"
#include "posenc/bias.hpp"
#include "posenc/config.hpp"
#include "posenc/deberta.hpp"
#include "posenc/mrope.hpp"
#include "posenc/t5.hpp"

namespace posenc::args {

/// positionTable(spec, n), applyRope(x, n, ...): rows of a table.
inline constexpr IntArg rows{"n", 1, kMaxTableElements};
/// applyRope(x, n, d, ...): the width of x.
inline constexpr IntArg width{"d", 1, kMaxTableElements};
/// attentionBias, alibiBias, positionSimilarity: the side of an [n, n] matrix.
inline constexpr IntArg matrix_n{"n", 1, bias::kMaxN};
/// ropeInvFreq(spec, seqLen).
inline constexpr IntArg seq_len{"seqLen", 1, kMaxPosition};
/// applyRope(..., positionOffset): the position of row 0.
inline constexpr IntArg position_offset{"positionOffset", 0, kMaxPosition};
/// decay(spec, maxDistance, seed).
inline constexpr IntArg max_distance{"maxDistance", 0, kMaxDistance};
inline constexpr IntArg seed{"seed", 0, kMaxSeed};
/// alibiSlopes(nHeads), alibiBias(n, nHeads, head, causal); head is in [0, nHeads - 1] (checked there).
inline constexpr IntArg n_heads{"nHeads", 1, alibi::kMaxHeads};
inline constexpr IntArg head{"head", 0, alibi::kMaxHeads - 1};
/// t5Bucket(relativePositions, bidirectional, numBuckets, maxDistance) (t5::check_buckets says more).
inline constexpr IntArg num_buckets{"numBuckets", 2, t5::kMaxBuckets};
inline constexpr IntArg bucket_distance{"maxDistance", 1, kMaxPosition};
/// t5Bucket's relativePositions, each item.
inline constexpr IntArg relative_position{"relativePositions", -kMaxPosition, kMaxPosition};
/// debertaRelativePosition(queryLength, keyLength, position_buckets, max_relative_positions)
/// (deberta::relative_position checks position_buckets against max_relative_positions).
inline constexpr IntArg query_length{"queryLength", 1, deberta::kMaxLength};
inline constexpr IntArg key_length{"keyLength", 1, deberta::kMaxLength};
inline constexpr IntArg position_buckets{"position_buckets", -1, deberta::kMaxLength};
inline constexpr IntArg max_relative_positions{"max_relative_positions", -1, deberta::kMaxSpan};
/// embedTokens(text, dModel, seed).
inline constexpr IntArg model_dim{"dModel", 1, attention::kMaxModelDim};

/// attentionTemperature(floorScale, attnScale, maxPosition): the last position, named as
/// the core names it (nope::attention_temperature).
inline constexpr IntArg max_position{"max_position", 1, kMaxPosition};
/// mropePairAxes(sections, interleaved): each section (their sum is checked by mrope_pair_axes).
inline constexpr IntArg mrope_section{"sections", 0, mrope::kMaxPairs};
/// mropePositions(textBefore, gridH, gridW, textAfter).
inline constexpr IntArg text_before{"textBefore", 0, mrope::kMaxText};
inline constexpr IntArg grid_h{"gridH", 1, mrope::kMaxGrid};
inline constexpr IntArg grid_w{"gridW", 1, mrope::kMaxGrid};
inline constexpr IntArg text_after{"textAfter", 0, mrope::kMaxText};

/// tokenIds(text, vocab): the ids' range.
inline constexpr IntArg vocab{"vocab", 1, 1024};
/// trainerStep's count: steps per chunk.
inline constexpr IntArg train_steps{"count", 1, 100000};

}  // namespace posenc::args
