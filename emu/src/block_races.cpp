// The race checker between blocks: a value one block of a launch stores with a plain store and another
// block of the same launch reads with a plain load, when the reading block has not synchronised with
// the others (no atomic, no volatile read of a flag) before that load.
//
// Blocks of one launch run in no fixed order and at the same time; nothing orders a plain store of one
// block before a plain load of another. The classic bug is `out[0] += block_sum` by thread 0 of every
// block: a load, an add and a store that two blocks interleave on a GPU, losing one of the sums. Here
// blocks run whole, one after another on each worker, so the load almost always sees the other block's
// store and the sum comes out right; the checker reports the unordered load instead of waiting for the
// interleaving that loses an update.
//
// The model, kept lenient (it may miss a race, it never blames a right kernel):
//   - every plain store of a block to device memory (cudaMalloc'd or a `__device__` variable) is noted
//     in a table of the last writer of each 4-byte word: the block and the launch (checks.cpp);
//   - a plain load by another block of the same launch of a word whose last writer it finds there is a
//     race, unless the loading block has synchronised before: taken a global atomic (the ticket of the
//     last-block pattern, a flag) or made a volatile read of global memory (a flag polled the old way).
//     What the writers must do before such a handshake (a __threadfence()) is the fence checker's
//     business (fences.cpp);
//   - the table keeps one word per slot (2^20 slots): a word whose slot another store took since is
//     forgotten, which may miss a race and never invents one. Stores narrower than a word, or not on a
//     word boundary, are not noted (two blocks may own the halves of one word).
// Two plain stores of one word by two blocks are not reported (blocks storing the same flag or the same
// value is common and harmless); the loss of an update always comes with a load, and that load is what
// is reported. This file is compiled without instrumentation.
#include "engine.hpp"

#include <atomic>
#include <cstdint>
#include <string>

extern __thread uint3 emu_tls_blockIdx;
extern __thread uint3 emu_tls_gridDim;

/// Read by checks.cpp before every store: the running thread is in a block of a launch.
__thread bool emu_tls_races_note_stores = false;
/// Read by checks.cpp before every load: the running block has not synchronised with other blocks yet.
__thread bool emu_tls_races_check_loads = false;

namespace emu::detail {
namespace {

// A slot holds, for the last word stored in it: 16 bits of the word's address above the slot's index
// (its tag), the launch (24 bits) and the writing block's linear index (24 bits). Two words with the same
// slot and tag lie a multiple of 2^38 bytes apart.
constexpr int kSlotBits = 20;
constexpr std::uint64_t kSlots = std::uint64_t(1) << kSlotBits;
constexpr std::uint64_t kMask24 = (std::uint64_t(1) << 24) - 1;

std::atomic<std::uint64_t> last_writer[kSlots];
std::atomic<const void*> last_store_pc[kSlots];   // the line of that store, for the report
std::atomic<std::uint64_t> launch_number{0};

__thread std::uint64_t tls_launch = 0;                          // the running launch, 24 bits
__thread std::uint64_t tls_block = 0;                           // the running block's linear index, 24 bits
__thread std::uintptr_t tls_device_lo = 0, tls_device_hi = 0;   // the device range last stored to
__thread std::uintptr_t tls_host_page = 0;                      // the 64 KiB page last found outside device memory, + 1

std::uint64_t slot_of(std::uintptr_t word) { return (word >> 2) & (kSlots - 1); }
std::uint64_t tag_of(std::uintptr_t word) { return (word >> (2 + kSlotBits)) & 0xFFFF; }
std::uint64_t entry(std::uintptr_t word, std::uint64_t block)
{
    return tag_of(word) | (tls_launch << 16) | (block << 40);
}

/// Whether a store to @p address is one to device memory. The last device range and the last page found
/// outside it are remembered (the emulator's own helpers, such as the tensor-core exchange areas, store
/// to the heap): a device array that shares such a page is missed, never a host one taken for it.
bool stored_to_device(std::uintptr_t address)
{
    if (address - tls_device_lo < tls_device_hi - tls_device_lo) return true;
    if ((address >> 16) + 1 == tls_host_page) return false;
    std::uintptr_t lo = 0, hi = 0;
    if (!device_memory(address, lo, hi)) {
        tls_host_page = (address >> 16) + 1;
        return false;
    }
    tls_device_lo = lo, tls_device_hi = hi;
    return true;
}

uint3 block_of(std::uint64_t linear)
{
    const std::uint64_t gx = emu_tls_gridDim.x, gy = emu_tls_gridDim.y;
    return uint3{static_cast<unsigned>(linear % gx), static_cast<unsigned>(linear / gx % gy),
                 static_cast<unsigned>(linear / gx / gy)};
}

}   // namespace

void races_launch_begin() { launch_number.fetch_add(1); }

void races_block_begin()
{
    tls_launch = 1 + launch_number.load() % kMask24;   // 1 .. 2^24 - 1: never the 0 of an empty slot
    tls_block = (emu_tls_blockIdx.x +
                 static_cast<std::uint64_t>(emu_tls_gridDim.x) *
                     (emu_tls_blockIdx.y + static_cast<std::uint64_t>(emu_tls_gridDim.y) * emu_tls_blockIdx.z)) &
                kMask24;
    tls_device_lo = tls_device_hi = 0;   // allocations may have changed since the last block
    tls_host_page = 0;
    emu_tls_races_note_stores = true;
    emu_tls_races_check_loads = true;
}

void races_block_end()
{
    emu_tls_races_note_stores = false;
    emu_tls_races_check_loads = false;
}

void races_note_sync(const void* address)
{
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    if (!emu_tls_races_note_stores || in_shared_arena(a) || on_own_stack(a, __builtin_frame_address(0))) return;
    emu_tls_races_check_loads = false;   // this block has synchronised with the others
}

void races_note_store(const void* address, std::size_t bytes, const void* pc)
{
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    // Stores of 1 or 2 bytes, or not on a word boundary, are left out: two blocks may own the two halves
    // of one word (half-precision outputs), and the table knows words only.
    if (bytes < 4 || (a & 3) != 0 || !stored_to_device(a)) return;   // not on the stack nor shared (checks.cpp)
    for (std::uintptr_t w = a & ~std::uintptr_t(3); w < a + bytes; w += 4) {
        const std::uint64_t slot = slot_of(w);
        last_writer[slot].store(entry(w, tls_block), std::memory_order_relaxed);
        last_store_pc[slot].store(pc, std::memory_order_relaxed);
    }
}

void races_check_load(const void* address, std::size_t bytes, const void* pc)
{
    const auto a = reinterpret_cast<std::uintptr_t>(address);   // not on the stack nor shared (checks.cpp)
    for (std::uintptr_t w = a & ~std::uintptr_t(3); w < a + bytes; w += 4) {
        const std::uint64_t slot = slot_of(w);
        const std::uint64_t found = last_writer[slot].load(std::memory_order_relaxed);
        const std::uint64_t same_word_this_launch = entry(w, 0);
        if ((found & ((std::uint64_t(1) << 40) - 1)) != same_word_this_launch || found >> 40 == tls_block) continue;
        const std::uint64_t writer = found >> 40;
        const void* store_pc = last_store_pc[slot].load(std::memory_order_relaxed);
        fail_running_thread(
            "read, at " + line_of(pc) + ", a value that block " + triple(block_of(writer)) +
            " of the same launch stored at " + line_of(store_pc) +
            ", and nothing orders that store before this read: blocks run in no fixed order and at the same "
            "time. On a GPU the read may come first, and when several blocks update one value with a plain load "
            "and store (`out[0] += block_sum`), updates are lost. Update a value that several blocks share "
            "with atomicAdd (or atomicMax, atomicCAS), or write one partial result per block and combine them "
            "in a second kernel; when one block must read what others wrote, they store, __threadfence() and "
            "take an atomic ticket, and it reads after its own atomic.");
        return;
    }
}

}   // namespace emu::detail
