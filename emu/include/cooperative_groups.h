/// @file cooperative_groups.h
/// @brief The CPU backend's cooperative groups: the commonly used part of CUDA's
/// <cooperative_groups.h>, built on the emulator's barriers and warp operations.
///
/// Every group operation is one of the built-ins of emu/device_functions.hpp with the mask CUDA's
/// own header computes for the group (a tile of N threads names the N lanes of its warp that share
/// its tile), so the emulator's checks apply to groups as they do to `__shfl_sync` and friends: a
/// lane that has returned, a tile that reaches past the end of the block, lanes that meet at
/// different operations. Each call records the caller's source line for those reports.
///
/// Supported: this_thread_block(), tiled_partition<N>() and tiled_partition(group, n) for tiles of
/// 1 to 32 threads (powers of two), their shuffles, votes and sync, cg::reduce with cg::plus, less,
/// greater and the bit operations, cg::sync, and this_grid() without grid.sync().
/// Not supported (a compile-time or run-time message says so): coalesced_threads(), which needs to
/// know which lanes a GPU runs together; grid.sync(), which needs a cooperative launch; tiles of
/// more than 32 threads; memcpy_async.
#pragma once

#include "cuda_runtime.h"

#include <type_traits>
#include <utility>

namespace cooperative_groups {

namespace details {
#define EMU_CG_SITE const char *emu_file = __builtin_FILE(), int emu_line = __builtin_LINE()

/// The calling thread's rank in its block, x fastest (CUDA's linear thread index).
inline unsigned block_thread_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_num_threads() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane_id() { return block_thread_rank() % 32u; }

/// The lanes of the caller's tile of @p n threads (a power of two up to 32), as CUDA builds it.
inline unsigned tile_mask(unsigned n)
{
    if (n >= 32) return 0xffffffffu;
    return ((1u << n) - 1u) << (lane_id() & ~(n - 1u));
}
/// The first lane of the caller's tile of @p n threads.
inline unsigned tile_base_lane(unsigned n) { return lane_id() & ~(n - 1u); }

inline bool valid_tile_size(unsigned n) { return n >= 1 && n <= 32 && (n & (n - 1)) == 0; }

inline void check_tile_size(unsigned n, const char* file, int line)
{
    if (!valid_tile_size(n)) {
        emu::detail::trap(
            "cooperative_groups::tiled_partition(parent, n): n must be a power of two from 1 to 32 "
            "(the GPU aborts the kernel too)",
            file, line);
    }
}
}   // namespace details

// ---- thread_group: what every group converts to ------------------------------------------------------
/// A group whose kind is known at run time: the block, a tile made by tiled_partition(parent, n)
/// or the grid. Like CUDA's, it offers size, rank and sync only.
class thread_group {
public:
    unsigned long long size() const { return size_; }
    unsigned long long num_threads() const { return size_; }
    unsigned long long thread_rank() const { return rank_; }
    void sync(EMU_CG_SITE) const
    {
        if (kind_ == kind::block) {
            __syncthreads(emu_file, emu_line);
        } else if (kind_ == kind::tile) {
            __syncwarp(mask_, emu_file, emu_line);
        } else {
            emu::detail::trap(
                "grid-wide sync needs a cooperative launch (cudaLaunchCooperativeKernel), which the "
                "CPU emulator does not run",
                emu_file, emu_line);
        }
    }

protected:
    enum class kind { block, tile, grid };
    thread_group(kind k, unsigned long long size, unsigned long long rank, unsigned mask)
        : kind_(k), size_(size), rank_(rank), mask_(mask)
    {}
    friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size, const char*, int);

    kind kind_;
    unsigned long long size_;
    unsigned long long rank_;
    unsigned mask_;
};

// ---- the block ------------------------------------------------------------------------------------------
class thread_block : public thread_group {
public:
    static void sync(EMU_CG_SITE) { __syncthreads(emu_file, emu_line); }
    static unsigned thread_rank() { return details::block_thread_rank(); }
    static unsigned size() { return details::block_num_threads(); }
    static unsigned num_threads() { return details::block_num_threads(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 dim_threads() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static dim3 group_dim() { return dim_threads(); }

private:
    thread_block() : thread_group(kind::block, details::block_num_threads(), details::block_thread_rank(), 0u) {}
    friend thread_block this_thread_block();
};

inline thread_block this_thread_block() { return thread_block(); }

// ---- the grid (no grid-wide sync) -----------------------------------------------------------------------
class grid_group : public thread_group {
public:
    static unsigned long long thread_rank()
    {
        const unsigned long long block =
            blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                             (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
        return block * details::block_num_threads() + details::block_thread_rank();
    }
    static unsigned long long num_threads()
    {
        return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z * details::block_num_threads();
    }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long block_rank()
    {
        return blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                                (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    }
    static unsigned long long num_blocks()
    {
        return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
    }
    static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    /// A kernel launched with <<<>>> is not a cooperative launch: is_valid() is false on a GPU too.
    static bool is_valid() { return false; }
    void sync(EMU_CG_SITE) const { thread_group::sync(emu_file, emu_line); }

private:
    grid_group() : thread_group(kind::grid, num_threads(), thread_rank(), 0u) {}
    friend grid_group this_grid();
};

inline grid_group this_grid() { return grid_group(); }

// ---- tiles of 1 to 32 threads known at compile time ------------------------------------------------------
template <unsigned Size, class ParentT = void>
class thread_block_tile;

namespace details {
/// What every thread_block_tile<Size, ...> can do: the shuffles and votes of its lanes.
template <unsigned Size>
class tile_base {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "the CPU emulator supports thread_block_tile<N> for N a power of two from 1 to 32 (larger tiles "
                  "need block_tile_memory on a GPU)");

public:
    static constexpr unsigned numThreads = Size;
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    static unsigned thread_rank() { return block_thread_rank() & (Size - 1u); }
    static unsigned build_mask() { return tile_mask(Size); }
    static void sync(EMU_CG_SITE) { __syncwarp(build_mask(), emu_file, emu_line); }

    template <class T>
    T shfl(T var, int src_rank, EMU_CG_SITE) const
    {
        return __shfl_sync(build_mask(), var, src_rank, static_cast<int>(Size), emu_file, emu_line);
    }
    template <class T>
    T shfl_down(T var, unsigned delta, EMU_CG_SITE) const
    {
        return __shfl_down_sync(build_mask(), var, static_cast<int>(delta), static_cast<int>(Size), emu_file, emu_line);
    }
    template <class T>
    T shfl_up(T var, unsigned delta, EMU_CG_SITE) const
    {
        return __shfl_up_sync(build_mask(), var, static_cast<int>(delta), static_cast<int>(Size), emu_file, emu_line);
    }
    template <class T>
    T shfl_xor(T var, unsigned lane_mask, EMU_CG_SITE) const
    {
        return __shfl_xor_sync(build_mask(), var, static_cast<int>(lane_mask), static_cast<int>(Size), emu_file,
                               emu_line);
    }
    int any(int predicate, EMU_CG_SITE) const { return __any_sync(build_mask(), predicate, emu_file, emu_line); }
    int all(int predicate, EMU_CG_SITE) const { return __all_sync(build_mask(), predicate, emu_file, emu_line); }
    /// Bit i is rank i's predicate (the warp's ballot shifted down to the tile).
    unsigned ballot(int predicate, EMU_CG_SITE) const
    {
        return __ballot_sync(build_mask(), predicate, emu_file, emu_line) >> tile_base_lane(Size);
    }
    template <class T>
    unsigned match_any(T value, EMU_CG_SITE) const
    {
        return __match_any_sync(build_mask(), value, emu_file, emu_line) >> tile_base_lane(Size);
    }
    template <class T>
    unsigned match_all(T value, int& predicate, EMU_CG_SITE) const
    {
        return __match_all_sync(build_mask(), value, &predicate, emu_file, emu_line) >> tile_base_lane(Size);
    }
    /// Every tile is also a thread_group (size, rank and sync known at run time).
    operator thread_group() const;
};
}   // namespace details

/// A tile whose parent type was forgotten (`thread_block_tile<32> t = tiled_partition<32>(block)`).
template <unsigned Size>
class thread_block_tile<Size, void> : public details::tile_base<Size> {
public:
    template <class P>
    thread_block_tile(const thread_block_tile<Size, P>& tile)
        : meta_rank_(tile.meta_group_rank()), meta_size_(tile.meta_group_size())
    {}
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }

private:
    unsigned meta_rank_;
    unsigned meta_size_;
};

/// A tile of a thread block.
template <unsigned Size>
class thread_block_tile<Size, thread_block> : public details::tile_base<Size> {
public:
    static unsigned meta_group_rank() { return details::block_thread_rank() / Size; }
    static unsigned meta_group_size() { return (details::block_num_threads() + Size - 1) / Size; }

private:
    thread_block_tile() = default;
    template <unsigned N, class P>
    friend thread_block_tile<N, P> tiled_partition(const P&);
};

/// A tile of a tile.
template <unsigned Size, unsigned ParentSize, class GrandParentT>
class thread_block_tile<Size, thread_block_tile<ParentSize, GrandParentT>> : public details::tile_base<Size> {
    static_assert(Size <= ParentSize, "tiled_partition<N>(tile): a tile can only be split into smaller tiles");

public:
    static unsigned meta_group_rank() { return (details::block_thread_rank() % ParentSize) / Size; }
    static constexpr unsigned meta_group_size() { return ParentSize / Size; }

private:
    thread_block_tile() = default;
    template <unsigned N, class P>
    friend thread_block_tile<N, P> tiled_partition(const P&);
};

/// Splits @p parent (the block or a tile) into tiles of N consecutive threads.
template <unsigned N, class ParentT>
thread_block_tile<N, ParentT> tiled_partition(const ParentT&)
{
    return thread_block_tile<N, ParentT>();
}

namespace details {
/// A tile of @p n threads as a thread_group (what the dynamic tiled_partition returns).
class dynamic_tile : public thread_group {
public:
    dynamic_tile(unsigned n) : thread_group(kind::tile, n, block_thread_rank() & (n - 1u), tile_mask(n)) {}
};
}   // namespace details

template <unsigned Size>
details::tile_base<Size>::operator thread_group() const
{
    return dynamic_tile(Size);
}

/// Splits @p parent into tiles of @p tile_size threads (a power of two from 1 to 32), known at run time.
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size, EMU_CG_SITE)
{
    details::check_tile_size(tile_size, emu_file, emu_line);
    if (parent.kind_ == thread_group::kind::grid) {
        emu::detail::trap("tiled_partition(grid, n): only the block and its tiles can be partitioned", emu_file,
                          emu_line);
    }
    return details::dynamic_tile(tile_size);
}

/// A warp-divergent group of the lanes that run together: the emulator cannot know which lanes a
/// GPU would have converged at this point, so it refuses instead of guessing.
template <class Unsupported = void>
thread_group coalesced_threads()
{
    static_assert(
        !std::is_void_v<Unsupported> && std::is_void_v<Unsupported>,
        "cooperative_groups::coalesced_threads() is not supported by the CPU emulator: it cannot tell "
        "which lanes a GPU runs together after a branch. Write it with tiled_partition<32>(this_thread_block()) "
        "and explicit masks, or grade this stage on a GPU.");
    return details::dynamic_tile(32);
}

// ---- free functions --------------------------------------------------------------------------------------
template <class Group>
void sync(const Group& group, EMU_CG_SITE)
{
    group.sync(emu_file, emu_line);
}
template <class Group>
auto thread_rank(const Group& group) -> decltype(group.thread_rank())
{
    return group.thread_rank();
}
template <class Group>
auto group_size(const Group& group) -> decltype(group.num_threads())
{
    return group.num_threads();
}
template <class Group>
auto num_threads(const Group& group) -> decltype(group.num_threads())
{
    return group.num_threads();
}

#undef EMU_CG_SITE
}   // namespace cooperative_groups
