/// @file sampling.hpp
/// @brief Checking parts of an output too large for a float64 CPU reference: where to look, and
/// copying just those parts back.
#pragma once

#include "common/cuda_check.hpp"
#include "harness/device.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace wb {

/// The first index of each of at most @p windows windows of @p width consecutive items (elements
/// or rows) spread over [0, count): the first window, the last one (the end of the array, where a
/// missed tail or a grid that stops short shows), and the others evenly between, moved off round
/// numbers by a small odd offset. Sorted and distinct; every window lies inside [0, count).
inline std::vector<std::int64_t> spread_windows(std::int64_t count, std::int64_t width, int windows)
{
    width = std::clamp<std::int64_t>(width, 1, count);
    const std::int64_t last = count - width;
    std::vector<std::int64_t> starts;
    for (int k = 0; k < windows; ++k) {
        const std::int64_t even = windows > 1 ? last / (windows - 1) * k : 0;
        starts.push_back(k == windows - 1 ? last : std::min(last, even + (k > 0 ? 2 * k + 1 : 0)));
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    return starts;
}

/// Copies @p count items from @p first on of a device array (a part of a buffer: its guard is not
/// checked here, the full downloads of the correctness checks do that).
template <typename T>
std::vector<T> download_part(const T* device, std::int64_t first, std::int64_t count)
{
    std::vector<T> host(static_cast<std::size_t>(count));
    if (count > 0) {
        WB_CUDA_CHECK(cudaMemcpy(host.data(), device + first, static_cast<std::size_t>(count) * sizeof(T),
                                 cudaMemcpyDeviceToHost));
    }
    return host;
}

/// A block of a row-major matrix: rows [row, row + rows) x columns [col, col + cols).
struct MatrixBlock {
    std::int64_t row = 0, rows = 0, col = 0, cols = 0;
};

/// Copies block @p b of a row-major device matrix whose rows hold @p ld items, row after row: one 2-D
/// copy on @p stream, then a wait (a block of columns is not contiguous; the emulator's runtime has the
/// asynchronous form only).
template <typename T>
std::vector<T> download_block(const T* matrix, std::int64_t ld, const MatrixBlock& b, cudaStream_t stream)
{
    std::vector<T> host(static_cast<std::size_t>(b.rows * b.cols));
    if (host.empty()) return host;
    WB_CUDA_CHECK(cudaMemcpy2DAsync(host.data(), b.cols * sizeof(T), matrix + b.row * ld + b.col, ld * sizeof(T),
                                    b.cols * sizeof(T), b.rows, cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
}

/// True when the GPU has @p bytes free, with 1 GiB to spare, for a case that @p what describes;
/// otherwise prints that the case is skipped, and why. Always false on the CPU emulator (the
/// emulated runs stay small).
inline bool device_memory_allows(std::size_t bytes, const std::string& what)
{
    std::size_t free_bytes = 0, total_bytes = 0;
    if (!emulated() && cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess &&
        free_bytes >= bytes + (std::size_t(1) << 30)) {
        return true;
    }
    std::printf("  skip  %s: needs %.1f GiB of GPU memory%s\n", what.c_str(), bytes / double(1 << 30),
                emulated() ? " (not run on the CPU emulator)" : ", not free on this GPU");
    return false;
}

}   // namespace wb
