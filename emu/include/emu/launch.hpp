/// @file launch.hpp
/// @brief What `kernel<<<grid, block, shared_bytes, stream>>>(args...)` becomes on the CPU.
///
/// The build's rewrite step turns a launch into
///     ::emu::launch(::emu::KernelSite{"kernel", __builtin_FILE(), __builtin_LINE()},
///                   [=](auto&... a) { kernel(a...); }, ::emu::config(grid, block, shared_bytes, stream), args...);
/// The arguments are evaluated once and copied, as a launch does; every CUDA thread then calls the
/// kernel with its own copy. The lambda keeps template kernels whose arguments are deduced working.
#pragma once

#include "emu/runtime_api.hpp"

#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

namespace emu {

/// Where a launch was written: the kernel expression and its source line.
struct KernelSite {
    const char* name;
    const char* file;
    int line;
};

/// The launch configuration between <<< and >>>.
struct LaunchConfig {
    dim3 grid;
    dim3 block;
    std::size_t shared_bytes;
    cudaStream_t stream;
};

inline LaunchConfig config(dim3 grid, dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr)
{
    return LaunchConfig{grid, block, shared_bytes, stream};
}

namespace detail {

/// A kernel with its arguments bound: run_thread() runs the calling CUDA thread's part of it.
struct KernelBody {
    virtual ~KernelBody() = default;
    virtual void run_thread() = 0;
};

template <class F, class Tuple>
struct BoundKernel final : KernelBody {
    BoundKernel(F f, Tuple args) : function(std::move(f)), arguments(std::move(args)) {}
    void run_thread() override { std::apply(function, arguments); }
    F function;
    Tuple arguments;
};

/// Checks the configuration (as the GPU would) and queues the kernel on the device's worker.
void submit_launch(const KernelSite& site, const LaunchConfig& config, std::unique_ptr<KernelBody> body);

}   // namespace detail

template <class F, class... Args>
void launch(const KernelSite& site, F function, const LaunchConfig& config, Args&&... args)
{
    using Tuple = std::tuple<std::decay_t<Args>...>;
    detail::submit_launch(
        site, config,
        std::make_unique<detail::BoundKernel<F, Tuple>>(std::move(function), Tuple(std::forward<Args>(args)...)));
}

}   // namespace emu
