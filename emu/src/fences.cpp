// The fence checker: a value one block stores and another block of the same launch reads, when the
// writer announced it with an atomic (the last-block ticket, a flag) and no __threadfence() came
// between its store and that atomic.
//
// On a GPU a plain store and a later atomic to another address may become visible to other SMs in
// either order; only a GPU-scope fence (__threadfence()) between them orders them. The classic bug is
// the single-pass reduction whose blocks store their partial sum and take a ticket with atomicAdd: the
// last block may see every ticket taken and still read a partial that is not there yet. On a GPU this
// is rare enough that the tests pass; here blocks run whole, one after another on each worker, so the
// values are always there, and the checker reports the missing fence instead of waiting for it to bite.
//
// The model, kept lenient (it may miss a badly placed fence, it never blames a right kernel):
//   - while a kernel that uses global atomics runs, every plain store of a block is noted (checks.cpp);
//   - a __threadfence() (or __threadfence_system()) by any thread of the block publishes the block's
//     stores so far; __threadfence_block() does not, it orders the block only;
//   - a global atomic (a read-modify-write or an atomic store) by the block makes the stores it has not
//     published *unsafe*: another block may see the atomic first;
//   - a plain read, by another block of the same launch, of bytes that are unsafe stops the kernel with
//     both lines (the store, the atomic) and the fix.
// Which kernels use global atomics is learnt at their first atomic, so a kernel's stores are noted from
// its next block on. This file is compiled without instrumentation.
#include "engine.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

extern __thread uint3 emu_tls_blockIdx;
extern __thread uint3 emu_tls_gridDim;

/// Read by checks.cpp before every read: false unless some bytes are unsafe in the running launch.
std::atomic<bool> emu_fence_unsafe_any{false};
/// Read by checks.cpp before every store: the running block's stores are noted.
__thread bool emu_tls_note_stores = false;

namespace emu::detail {
namespace {

struct PendingStore {
    std::uintptr_t address;
    std::size_t bytes;
    const void* pc;
};

struct UnsafeWord {
    std::uint64_t block;     // linear index of the writing block
    uint3 block_idx;         // its blockIdx, for the report
    const void* store_pc;    // the store
    const void* atomic_pc;   // the atomic that announced it
};

__thread bool tls_in_block = false;
__thread std::vector<PendingStore>* tls_pending = nullptr;

std::mutex kernels_mutex;
std::set<std::pair<std::string, int>> kernels_with_atomics;   // (kernel name, launch line)
std::atomic<bool> launch_notes_stores{false};                 // the running launch's kernel is among them
KernelSite running_site{};

std::mutex unsafe_mutex;
std::unordered_map<std::uintptr_t, UnsafeWord> unsafe_words;   // by 4-byte word address

std::uint64_t this_block()
{
    return emu_tls_blockIdx.x +
           static_cast<std::uint64_t>(emu_tls_gridDim.x) *
               (emu_tls_blockIdx.y + static_cast<std::uint64_t>(emu_tls_gridDim.y) * emu_tls_blockIdx.z);
}

std::vector<PendingStore>& pending()
{
    if (!tls_pending) tls_pending = new std::vector<PendingStore>();   // one per worker, kept for its life
    return *tls_pending;
}

}   // namespace

// The main program's static storage: `__device__` variables live there (on the CPU they are globals).
extern "C" char __data_start[];
extern "C" char _end[];

bool device_memory(std::uintptr_t address, std::uintptr_t& lo, std::uintptr_t& hi)
{
    if (device_allocation_bounds(address, lo, hi)) return true;
    lo = reinterpret_cast<std::uintptr_t>(__data_start);
    hi = reinterpret_cast<std::uintptr_t>(_end);
    return address >= lo && address < hi;
}

std::string line_of(const void* pc)
{
    const std::string line = source_line(pc);
    return line.empty() ? std::string("an unknown line") : line;
}

void fences_launch_begin(const KernelSite& site)
{
    {
        std::lock_guard<std::mutex> lock(unsafe_mutex);
        unsafe_words.clear();
        emu_fence_unsafe_any.store(false);
    }
    std::lock_guard<std::mutex> lock(kernels_mutex);
    running_site = site;
    launch_notes_stores.store(kernels_with_atomics.count({site.name ? site.name : "", site.line}) != 0);
}

void fences_launch_end()
{
    std::lock_guard<std::mutex> lock(unsafe_mutex);
    unsafe_words.clear();
    emu_fence_unsafe_any.store(false);
}

void fences_block_begin()
{
    tls_in_block = true;
    pending().clear();
    emu_tls_note_stores = launch_notes_stores.load(std::memory_order_relaxed);
}

void fences_block_end()
{
    tls_in_block = false;
    emu_tls_note_stores = false;
    pending().clear();
}

void fences_note_store(const void* address, std::size_t bytes, const void* pc)
{
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    if (!tls_in_block || in_shared_arena(a)) return;
    auto& stores = pending();
    if (!stores.empty() && stores.back().address == a && stores.back().bytes == bytes) {
        stores.back().pc = pc;   // the same word again (an accumulator in global memory): one entry
        return;
    }
    stores.push_back({a, bytes, pc});
}

void fences_note_fence(bool gpu_scope)
{
    if (!tls_in_block || !gpu_scope) return;
    auto& stores = pending();
    if (emu_fence_unsafe_any.load()) {
        // Bytes this block announced too early and has stored again since: published now.
        const std::uint64_t block = this_block();
        std::lock_guard<std::mutex> lock(unsafe_mutex);
        for (const PendingStore& s : stores) {
            for (std::uintptr_t w = s.address & ~std::uintptr_t(3); w < s.address + s.bytes; w += 4) {
                auto it = unsafe_words.find(w);
                if (it != unsafe_words.end() && it->second.block == block) unsafe_words.erase(it);
            }
        }
    }
    stores.clear();
}

void fences_note_atomic(const void* address, const void* pc)
{
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    if (!tls_in_block || in_shared_arena(a)) return;
    if (!emu_tls_note_stores) {
        // The first global atomic of this kernel: note its stores from now on, in this launch and later.
        std::lock_guard<std::mutex> lock(kernels_mutex);
        kernels_with_atomics.insert({running_site.name ? running_site.name : "", running_site.line});
        launch_notes_stores.store(true);
        emu_tls_note_stores = true;
        return;
    }
    auto& stores = pending();
    if (stores.empty()) return;
    // Only stores to device memory matter (cudaMalloc'd or `__device__` variables), not local arrays on a
    // thread's stack.
    std::sort(stores.begin(), stores.end(),
              [](const PendingStore& x, const PendingStore& y) { return x.address < y.address; });
    const std::uint64_t block = this_block();
    std::uintptr_t lo = 0, hi = 0;
    std::lock_guard<std::mutex> lock(unsafe_mutex);
    for (const PendingStore& s : stores) {
        if (!(s.address >= lo && s.address < hi) && !device_memory(s.address, lo, hi)) continue;
        for (std::uintptr_t w = s.address & ~std::uintptr_t(3); w < s.address + s.bytes; w += 4)
            unsafe_words[w] = UnsafeWord{block, emu_tls_blockIdx, s.pc, pc};
    }
    if (!unsafe_words.empty()) emu_fence_unsafe_any.store(true);
    stores.clear();
}

void fences_check_read(const void* address, std::size_t bytes, const void* pc)
{
    if (!tls_in_block) return;
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    const std::uint64_t block = this_block();
    std::string report;
    {
        std::lock_guard<std::mutex> lock(unsafe_mutex);
        for (std::uintptr_t w = a & ~std::uintptr_t(3); w < a + bytes; w += 4) {
            auto it = unsafe_words.find(w);
            if (it == unsafe_words.end() || it->second.block == block) continue;
            const UnsafeWord& u = it->second;
            report = "read, at " + line_of(pc) + ", a value that block " + triple(u.block_idx) + " stored at " +
                     line_of(u.store_pc) + " and then announced with an atomic at " + line_of(u.atomic_pc) +
                     ", with no __threadfence() between the store and the atomic: on a GPU another block can "
                     "see the atomic before the value (a stale partial result). Put __threadfence() after "
                     "the store and before the atomic (__threadfence_block() orders one block only).";
            break;
        }
    }
    if (!report.empty()) fail_running_thread(report);
}

}   // namespace emu::detail
