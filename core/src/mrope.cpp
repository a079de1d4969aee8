// M-RoPE's axes and position ids (posenc/mrope.hpp has the rules and their sources).
#include "posenc/mrope.hpp"

#include <algorithm>
#include <string>

#include "posenc/config.hpp"

namespace posenc::mrope {

std::vector<int> mrope_pair_axes(const std::vector<std::int64_t>& sections, bool interleaved) {
    const std::string allowed = "3 integers >= 0 (t, h, w) whose sum, the rotary pairs head_dim / 2, is in [1, " +
                                std::to_string(kMaxPairs) + "]";
    if (sections.size() != 3) throw_bad_param("sections", "an array of length " + std::to_string(sections.size()), allowed);
    std::int64_t pairs = 0;
    for (std::size_t a = 0; a < 3; ++a) {
        if (sections[a] < 0 || sections[a] > kMaxPairs)
            throw_bad_param("sections[" + std::to_string(a) + "]", std::to_string(sections[a]), allowed);
        pairs += sections[a];
    }
    if (pairs < 1 || pairs > kMaxPairs)
        throw_bad_param("sections", "[" + std::to_string(sections[0]) + ", " + std::to_string(sections[1]) + ", " +
                                        std::to_string(sections[2]) + "] (sum " + std::to_string(pairs) + ")", allowed);
    std::vector<int> axes(std::size_t(pairs), Axis::t);
    for (std::int64_t i = 0; i < pairs; ++i) {
        if (interleaved) {
            // apply_interleaved_mrope: t everywhere, then h over slice(1, 3 s_h, 3) and w over slice(2, 3 s_w, 3)
            if (i % 3 == 1 && i < 3 * sections[1]) axes[std::size_t(i)] = Axis::h;
            if (i % 3 == 2 && i < 3 * sections[2]) axes[std::size_t(i)] = Axis::w;
        } else {
            axes[std::size_t(i)] = i < sections[0] ? Axis::t : i < sections[0] + sections[1] ? Axis::h : Axis::w;
        }
    }
    return axes;
}

Positions mrope_positions(std::int64_t text_before, std::int64_t grid_h, std::int64_t grid_w, std::int64_t text_after) {
    check_integer("textBefore", text_before, 0, kMaxText);
    check_integer("gridH", grid_h, 1, kMaxGrid);
    check_integer("gridW", grid_w, 1, kMaxGrid);
    check_integer("textAfter", text_after, 0, kMaxText);
    Positions out;
    const auto push = [&out](std::int64_t t_id, std::int64_t h_id, std::int64_t w_id, int kind) {
        out.ids[Axis::t].push_back(std::int32_t(t_id));
        out.ids[Axis::h].push_back(std::int32_t(h_id));
        out.ids[Axis::w].push_back(std::int32_t(w_id));
        out.kind.push_back(kind);
    };
    for (std::int64_t i = 0; i < text_before; ++i) push(i, i, i, 0);
    const std::int64_t start = text_before;
    for (std::int64_t r = 0; r < grid_h; ++r)
        for (std::int64_t c = 0; c < grid_w; ++c) push(start, start + r, start + c, 1);
    const std::int64_t next = start + std::max(grid_h, grid_w);  // largest id so far (start + max(h, w) - 1) plus 1
    for (std::int64_t i = 0; i < text_after; ++i) push(next + i, next + i, next + i, 0);
    return out;
}

}  // namespace posenc::mrope
