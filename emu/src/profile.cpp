// The memory-behaviour counters (emu/profile.hpp). While a profile is on, every block records the
// instrumented accesses of its threads (checks.cpp calls profile_access) and, when it ends, groups them
// into warp requests and adds its counters to its kernel's. Outside a profile nothing is recorded: the
// hooks test emu_tls_profiling and go on.
// This file itself is compiled without instrumentation.
#include "emu/profile.hpp"

#include "engine.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

extern __thread uint3 emu_tls_threadIdx;
extern __thread uint3 emu_tls_blockDim;
extern __thread unsigned char* emu_tls_shared_base;

__thread bool emu_tls_profiling = false;   // the block running on this worker is counted

namespace emu {

AccessCounters& AccessCounters::operator+=(const AccessCounters& o)
{
    requests += o.requests;
    lanes += o.lanes;
    bytes += o.bytes;
    sectors += o.sectors;
    wavefronts += o.wavefronts;
    ideal_wavefronts += o.ideal_wavefronts;
    divergent += o.divergent;
    return *this;
}

KernelCounters& KernelCounters::operator+=(const KernelCounters& o)
{
    launches += o.launches;
    blocks += o.blocks;
    threads += o.threads;
    global_load += o.global_load;
    global_store += o.global_store;
    shared_load += o.shared_load;
    shared_store += o.shared_store;
    barriers += o.barriers;
    return *this;
}

}   // namespace emu

namespace emu::detail {

namespace {

std::atomic<bool> profiling{false};

/// The counters of the profile in progress, per kernel name, in launch order.
struct ProfileStore {
    std::mutex mutex;
    std::vector<KernelCounters> kernels;
    KernelCounters& of(const char* name)
    {
        for (KernelCounters& k : kernels) {
            if (k.kernel == name) return k;
        }
        kernels.push_back({});
        kernels.back().kernel = name;
        return kernels.back();
    }
};

ProfileStore& store()
{
    static ProfileStore* s = new ProfileStore();   // never destroyed: workers may still report at exit
    return *s;
}

/// One instrumented access of the running block.
struct Access {
    std::uintptr_t pc;
    std::uintptr_t address;
    std::uint32_t thread;   // linear thread index in the block
    std::uint32_t k;        // this thread's k-th access at this pc (from 0)
    std::uint8_t bytes;
    bool write;
    bool shared;
};

/// What a worker records for the block it runs.
struct BlockProfile {
    std::vector<Access> accesses;
    std::unordered_map<std::uint64_t, std::uint32_t> executions;   // (pc, thread) -> accesses so far
    std::uint64_t barriers = 0;
    // the device allocation the last global access fell in (a lookup costs a lock)
    std::uintptr_t allocation_lo = 0, allocation_hi = 0;
};

BlockProfile& block_profile()
{
    static thread_local BlockProfile profile;
    return profile;
}

std::uint64_t execution_key(std::uintptr_t pc, std::uint32_t thread)
{
    return (static_cast<std::uint64_t>(pc) * 0x9E3779B97F4A7C15ull) ^ thread;
}

/// Adds the counters of one warp request (accesses [first, last), same warp, site and k) to @p out.
void count_request(const Access* first, const Access* last, int warp_lanes, AccessCounters& out)
{
    ++out.requests;
    unsigned lanes = 0;
    for (const Access* a = first; a != last; ++a) {
        lanes |= 1u << (a->thread % 32);
        out.bytes += a->bytes;
    }
    const int taking_part = __builtin_popcount(lanes);
    out.lanes += static_cast<std::uint64_t>(taking_part);
    if (taking_part < warp_lanes) ++out.divergent;

    if (!first->shared) {
        std::vector<std::uintptr_t> sectors;
        for (const Access* a = first; a != last; ++a) {
            const std::uintptr_t end = a->address + std::max<std::uint8_t>(a->bytes, 1) - 1;
            for (std::uintptr_t s = a->address / 32; s <= end / 32; ++s) sectors.push_back(s);
        }
        std::sort(sectors.begin(), sectors.end());
        out.sectors += static_cast<std::uint64_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
        return;
    }
    // Shared memory: 32 banks of 4-byte words, served per phase (a whole warp for accesses of 4 bytes or
    // less, half-warps for 8 bytes, quarter-warps for 16). Word w lies in bank w % 32.
    const int widest =
        std::max_element(first, last, [](const Access& a, const Access& b) { return a.bytes < b.bytes; })->bytes;
    const int phase_lanes = widest >= 16 ? 8 : (widest >= 8 ? 16 : 32);
    for (int phase = 0; phase < 32 / phase_lanes; ++phase) {
        std::vector<std::uintptr_t> words;
        for (const Access* a = first; a != last; ++a) {
            if (static_cast<int>(a->thread % 32) / phase_lanes != phase) continue;
            const std::uintptr_t end = a->address + std::max<std::uint8_t>(a->bytes, 1) - 1;
            for (std::uintptr_t w = a->address / 4; w <= end / 4; ++w) words.push_back(w);
        }
        if (words.empty()) continue;
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        int per_bank[32] = {};
        for (std::uintptr_t w : words) ++per_bank[w % 32];
        out.wavefronts += static_cast<std::uint64_t>(*std::max_element(per_bank, per_bank + 32));
        ++out.ideal_wavefronts;
    }
}

}   // namespace

bool profiling_requested() { return profiling.load(std::memory_order_relaxed); }

void profile_block_start()
{
    BlockProfile& p = block_profile();
    p.accesses.clear();
    p.executions.clear();
    p.barriers = 0;
    emu_tls_profiling = true;
}

void profile_barrier() { ++block_profile().barriers; }

void profile_access(const void* address, std::size_t bytes, bool write, const void* pc)
{
    BlockProfile& p = block_profile();
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    const auto shared_base = reinterpret_cast<std::uintptr_t>(emu_tls_shared_base);
    const bool shared = emu_tls_shared_base && a - shared_base < kSharedArenaBytes;
    if (!shared && (a < p.allocation_lo || a >= p.allocation_hi)) {
        // Only device memory counts as global: a kernel's arguments, its stack and host data do not.
        if (!device_allocation_bounds(a, p.allocation_lo, p.allocation_hi)) return;
    }
    const uint3 t = emu_tls_threadIdx, d = emu_tls_blockDim;
    const auto thread = static_cast<std::uint32_t>(t.x + d.x * (t.y + d.y * t.z));
    const auto site = reinterpret_cast<std::uintptr_t>(pc);
    const std::uint32_t k = p.executions[execution_key(site, thread)]++;
    p.accesses.push_back({site, shared ? a - shared_base : a, thread, k,
                          static_cast<std::uint8_t>(std::min<std::size_t>(bytes, 255)), write, shared});
}

void profile_block_end(const char* kernel)
{
    emu_tls_profiling = false;
    BlockProfile& p = block_profile();
    const uint3 d = emu_tls_blockDim;
    const int threads = static_cast<int>(d.x * d.y * d.z);
    // Group into warp requests: same warp, site, k (and kind of access).
    std::sort(p.accesses.begin(), p.accesses.end(), [](const Access& a, const Access& b) {
        const auto key = [](const Access& x) {
            return std::make_tuple(x.thread / 32, x.pc, x.k, x.shared, x.write, x.thread);
        };
        return key(a) < key(b);
    });
    KernelCounters counted;
    for (std::size_t i = 0; i < p.accesses.size();) {
        const Access& head = p.accesses[i];
        std::size_t j = i + 1;
        while (j < p.accesses.size() && p.accesses[j].thread / 32 == head.thread / 32 && p.accesses[j].pc == head.pc &&
               p.accesses[j].k == head.k && p.accesses[j].shared == head.shared && p.accesses[j].write == head.write) {
            ++j;
        }
        const int warp_lanes = std::min(32, threads - static_cast<int>(head.thread / 32) * 32);
        AccessCounters& out = head.shared ? (head.write ? counted.shared_store : counted.shared_load)
                                          : (head.write ? counted.global_store : counted.global_load);
        count_request(&p.accesses[i], &p.accesses[0] + j, warp_lanes, out);
        i = j;
    }
    counted.blocks = 1;
    counted.threads = static_cast<std::uint64_t>(threads);
    counted.barriers = p.barriers;
    p.accesses.clear();
    p.executions.clear();
    std::lock_guard<std::mutex> lock(store().mutex);
    store().of(kernel) += counted;
}

void profile_launch(const char* kernel)
{
    std::lock_guard<std::mutex> lock(store().mutex);
    ++store().of(kernel).launches;
}

}   // namespace emu::detail

namespace emu {

void profile_begin()
{
    cudaDeviceSynchronize();
    {
        std::lock_guard<std::mutex> lock(detail::store().mutex);
        detail::store().kernels.clear();
    }
    detail::profiling = true;
}

std::vector<KernelCounters> profile_end()
{
    cudaDeviceSynchronize();
    detail::profiling = false;
    std::lock_guard<std::mutex> lock(detail::store().mutex);
    std::vector<KernelCounters> kernels = std::move(detail::store().kernels);
    detail::store().kernels.clear();
    return kernels;
}

KernelCounters profile_total(const std::vector<KernelCounters>& kernels)
{
    KernelCounters total;
    for (const KernelCounters& k : kernels) {
        total.kernel += (total.kernel.empty() ? "" : " + ") + k.kernel;
        total += k;
    }
    return total;
}

}   // namespace emu
