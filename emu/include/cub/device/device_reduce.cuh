/// @file device_reduce.cuh
/// @brief The CPU backend's stand-in for cub::DeviceReduce (Sum, Max, Min), queued in stream order.
/// It exists so that the chapters' library baselines compile and link; emulation times nothing.
#pragma once

#include "cuda_runtime.h"
#include "emu/library_support.hpp"

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace cub {

struct DeviceReduce {
    template <class In, class Out, class N, class Combine>
    static cudaError_t reduce(void* temp, std::size_t& temp_bytes, In in, Out out, N n, Combine combine,
                              cudaStream_t stream)
    {
        if (temp == nullptr) {
            temp_bytes = 1;   // CUB's two-call protocol: the first call only asks for the storage size
            return cudaSuccess;
        }
        return emu::run_in_stream_order(stream, [=] {
            using T = typename std::iterator_traits<In>::value_type;
            if (n <= 0) return;
            T result = in[0];
            for (N i = 1; i < n; ++i) result = combine(result, in[i]);
            *out = result;
        });
    }
    template <class In, class Out, class N>
    static cudaError_t Sum(void* temp, std::size_t& temp_bytes, In in, Out out, N n, cudaStream_t stream = 0)
    {
        if (temp == nullptr) {
            temp_bytes = 1;
            return cudaSuccess;
        }
        // CUB sums in a tree, whose rounding error grows with log n; a float sum from left to right
        // would be off by far more on long inputs. Summing floats in double stands in for that accuracy.
        return emu::run_in_stream_order(stream, [=] {
            using T = typename std::iterator_traits<In>::value_type;
            using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
            Acc total{};
            for (N i = 0; i < n; ++i) total += static_cast<Acc>(in[i]);
            *out = static_cast<T>(total);
        });
    }
    template <class In, class Out, class N>
    static cudaError_t Max(void* temp, std::size_t& temp_bytes, In in, Out out, N n, cudaStream_t stream = 0)
    {
        return reduce(
            temp, temp_bytes, in, out, n, [](auto a, auto b) { return a < b ? b : a; }, stream);
    }
    template <class In, class Out, class N>
    static cudaError_t Min(void* temp, std::size_t& temp_bytes, In in, Out out, N n, cudaStream_t stream = 0)
    {
        return reduce(
            temp, temp_bytes, in, out, n, [](auto a, auto b) { return b < a ? b : a; }, stream);
    }
};

}   // namespace cub
