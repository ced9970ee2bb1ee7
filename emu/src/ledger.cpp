// The ledger of emu/ledger.hpp: the runtime calls ledger_note_* at every launch, copy, fill,
// allocation and release; they write only while a window is open.
#include "emu/ledger.hpp"

#include "engine.hpp"

#include <algorithm>
#include <memory>
#include <mutex>

namespace emu {

namespace {

struct Recorder {
    std::mutex mutex;
    bool open = false;
    Ledger ledger;
    std::vector<std::shared_ptr<const detail::LaunchState>> launches;   // to read static shared memory at the end
};

Recorder& recorder()
{
    static Recorder* r = new Recorder();   // never destroyed: the worker may outlive main's statics
    return *r;
}

}   // namespace

void ledger_begin()
{
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.open = true;
    r.ledger = Ledger{};
    r.launches.clear();
}

Ledger ledger_end()
{
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.open = false;
    for (std::size_t i = 0; i < r.launches.size() && i < r.ledger.kernels.size(); ++i) {
        r.ledger.kernels[i].static_shared = r.launches[i]->static_shared_seen.load();
    }
    r.launches.clear();
    return std::move(r.ledger);
}

namespace detail {

void ledger_note_kernel(const std::shared_ptr<const LaunchState>& launch, cudaStream_t stream)
{
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.open) return;
    LedgerKernel k;
    k.name = launch->site.name ? launch->site.name : "kernel";
    k.where = where(launch->site.file, launch->site.line);
    k.grid = launch->grid;
    k.block = launch->block;
    k.dynamic_shared = launch->dynamic_shared;
    k.stream = stream;
    r.ledger.kernels.push_back(std::move(k));
    r.launches.push_back(launch);
}

void ledger_note_operation(const char* what, cudaStream_t stream)
{
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.open) r.ledger.operations.push_back(LedgerOperation{what, stream});
}

void ledger_note_allocation(const void* address, std::size_t bytes)
{
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.open) r.ledger.allocated.push_back(LedgerAllocation{reinterpret_cast<std::uintptr_t>(address), bytes});
}

void ledger_note_release(const void* address)
{
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.open) r.ledger.released.push_back(reinterpret_cast<std::uintptr_t>(address));
}

}   // namespace detail
}   // namespace emu
