/// @file 07_sgemm/stream_k.hpp
/// @brief Chapter 7: the stream-K schedule of stage 9: which block computes which tiles, and which
/// K steps of the tiles that are split between blocks (include it in your stage file).
///
/// A grid of one block per tile ends with a partial wave: 512 tiles on 132 block slots run as 4
/// waves, the last one 88% full. Here the tiles of the whole waves keep one block each (a first
/// kernel, "data-parallel"); the K steps of the tiles that are left, numbered tile after tile, are
/// cut into one equal share per block slot, and a second kernel of one wave takes one share per
/// block: its blocks start together and end together. A share may start or end in the middle of a
/// tile: its block writes its partial sums to a workspace, in one of its two slots (its first
/// segment, its last segment), and a third kernel adds the partial sums of each split tile. Plain
/// arithmetic on integers, the same on the host and on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace ch07 {

/// The operands of one product, C = alpha * A * B + beta * C (row-major, chapters/07_sgemm/stages.cuh).
struct GemmArgs {
    int M, N, K;
    float alpha;
    const float* A;
    const float* B;
    float beta;
    float* C;
};

/// The position of a tile in the grid of tiles of C.
struct TileOrigin {
    int row, col;
};

struct StreamK {
    int tiles_m, tiles_n;       ///< tiles of C down and across
    int group_rows;             ///< consecutive tiles walk down this many tile rows (L2 reuse), then across
    int steps_per_tile;         ///< K steps of one tile: ceil(K / BK)
    int whole_tiles;            ///< tiles 0 .. whole_tiles - 1: one block each (a whole number of waves)
    int split_tiles;            ///< the tiles after them are shared out by K steps
    int shares;                 ///< one block each, all in one wave
    std::int64_t split_steps;   ///< split_tiles * steps_per_tile

    /// The schedule of an M x N x K product in BM x BN x BK tiles on @p slots resident blocks.
    /// Whole waves stay data-parallel; the remainder is split. A remainder under half a wave is split
    /// together with the last whole wave, so that no share is a small sliver of a tile (each share
    /// pays a pipeline start), and a remainder of 95% of a wave or more is not split at all: each
    /// split tile costs a write and a read of its partial sums, more than the 5% of idle SMs.
    static StreamK make(int M, int N, int K, int BM, int BN, int BK, int slots, int group_rows = 16)
    {
        StreamK s{};
        s.tiles_m = (M + BM - 1) / BM;
        s.tiles_n = (N + BN - 1) / BN;
        s.group_rows = group_rows;
        s.steps_per_tile = (K + BK - 1) / BK;
        const int tiles = s.tiles_m * s.tiles_n;
        const int waves = tiles / slots, rest = tiles % slots;
        if (rest == 0 || 20 * rest >= 19 * slots) {
            s.split_tiles = 0;   // the last wave is (nearly) full: splitting would cost more than it saves
        } else if (waves == 0) {
            s.split_tiles = tiles;
        } else {
            s.split_tiles = rest >= slots / 2 ? rest : rest + slots;
        }
        s.whole_tiles = tiles - s.split_tiles;
        s.split_steps = static_cast<std::int64_t>(s.split_tiles) * s.steps_per_tile;
        // One share per block slot, but none empty (a product with very few K steps).
        s.shares = static_cast<int>(std::min<std::int64_t>(slots, s.split_steps));
        return s;
    }

    /// The first split K step of share @p b; share b is [share_begin(b), share_begin(b + 1)).
    __host__ __device__ std::int64_t share_begin(int b) const { return b * split_steps / shares; }

    /// The share that holds split K step @p step (0 <= step < split_steps).
    __host__ __device__ int share_of_step(std::int64_t step) const
    {
        int b = static_cast<int>(step * shares / split_steps);
        while (b + 1 < shares && share_begin(b + 1) <= step) ++b;
        while (b > 0 && share_begin(b) > step) --b;
        return b;
    }

    /// Workspace slot of share @p b's partial sums: its first segment, or its last one. Two per share.
    __host__ __device__ std::int64_t partial_slot(int b, bool first_segment) const
    {
        return 2 * static_cast<std::int64_t>(b) + (first_segment ? 0 : 1);
    }

    /// Tile number @p tile in the order blocks take them: down a group of group_rows tile rows, then
    /// across, so that the tiles computed at the same time share rows of A and columns of B in L2.
    __host__ __device__ TileOrigin origin(int tile) const
    {
        const int per_group = group_rows * tiles_n;
        const int first_row = tile / per_group * group_rows;
        const int rows = tiles_m - first_row < group_rows ? tiles_m - first_row : group_rows;
        const int in_group = tile % per_group;
        return {first_row + in_group % rows, in_group / rows};
    }
};

}   // namespace ch07
