// Memory-behaviour counters of the CPU backend: what a GPU's profiler would count for the same
// kernel, computed from the accesses of instrumented kernel code (the access checks' hooks, see
// emu/src/checks.cpp). Counting happens only between emu::profile_begin() and emu::profile_end(), and
// only for code compiled with the checks (learner and catalog code; the references only in their
// instrumented copy, see cmake/WorkbookChapter.cmake). Outside a profile the hooks test one flag.
//
// The model, per warp of 32 consecutive threads of a block:
//   - A warp request is the k-th execution of one access site (one load or store instruction of the
//     kernel's code) by the lanes of one warp: lane L's k-th access at site S belongs to request
//     (warp, S, k). This is how the hardware groups the lanes of straight-line and loop code.
//   - Global memory (device allocations): the sectors of a request are the distinct 32-byte-aligned
//     segments its lanes touch.
//   - Shared memory: 32 banks of 4 bytes. Accesses of 4 bytes or less are served for the whole warp at
//     once, 8-byte accesses per half-warp and 16-byte accesses per quarter-warp (the phases). In each
//     phase that has lanes, the wavefronts are the largest number of distinct 4-byte words that fall in
//     one bank (lanes reading the same word share it: a broadcast). Ideal: one wavefront per phase.
//   - Divergence (a proxy: the emulator sees accesses, not branches): a request in which fewer lanes
//     take part than the warp has (a lane that has returned still counts as one of the warp's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace emu {

/// Counters of one kind of access (e.g. global loads) of one kernel.
struct AccessCounters {
    std::uint64_t requests = 0;           ///< warp requests
    std::uint64_t lanes = 0;              ///< lane accesses (sum over requests of the lanes taking part)
    std::uint64_t bytes = 0;              ///< bytes the lanes asked for
    std::uint64_t sectors = 0;            ///< global: distinct 32-byte sectors, summed over requests
    std::uint64_t wavefronts = 0;         ///< shared: wavefronts the banks serve, summed over requests
    std::uint64_t ideal_wavefronts = 0;   ///< shared: one per phase that has lanes
    std::uint64_t divergent = 0;          ///< requests with fewer lanes than the warp has

    double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0.0; }
    /// Sectors per 128 requested bytes: 4 when the requested bytes are contiguous (whatever the access
    /// width), 32 when each 4-byte access of a warp lands in a sector of its own.
    double sectors_per_128_bytes() const { return bytes ? 128.0 * double(sectors) / double(bytes) : 0.0; }
    /// Wavefronts over ideal wavefronts: 1 without bank conflicts, 32 for a 32-way conflict.
    double conflict_degree() const { return ideal_wavefronts ? double(wavefronts) / double(ideal_wavefronts) : 0.0; }
    AccessCounters& operator+=(const AccessCounters& o);
};

/// The counters of one kernel (all its launches in the profile).
struct KernelCounters {
    std::string kernel;   ///< the kernel's name as written at the launch
    std::uint64_t launches = 0;
    std::uint64_t blocks = 0;
    std::uint64_t threads = 0;
    AccessCounters global_load, global_store, shared_load, shared_store;
    std::uint64_t barriers = 0;   ///< __syncthreads() (and its variants) completed, summed over blocks

    std::uint64_t requests() const
    {
        return global_load.requests + global_store.requests + shared_load.requests + shared_store.requests;
    }
    std::uint64_t divergent_requests() const
    {
        return global_load.divergent + global_store.divergent + shared_load.divergent + shared_store.divergent;
    }
    double barriers_per_block() const { return blocks ? double(barriers) / double(blocks) : 0.0; }
    KernelCounters& operator+=(const KernelCounters& o);
};

/// Starts counting every launch from now on (forgets what an earlier profile counted).
void profile_begin();
/// Stops counting; the counters per kernel, in the order the kernels were first launched. Waits for
/// the device first.
std::vector<KernelCounters> profile_end();
/// All kernels of a profile added up (kernel: their names joined with " + ").
KernelCounters profile_total(const std::vector<KernelCounters>& kernels);

}   // namespace emu
