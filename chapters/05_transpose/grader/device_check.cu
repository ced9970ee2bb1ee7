// The GPU-side check of large transposes (see device_check.hpp).
#include "05_transpose/grader/device_check.hpp"

#include "harness/buffers.hpp"
#include "common/cuda_check.hpp"
#include "common/primitives.cuh"

#include <cstring>
#include <string>

namespace ch05 {

namespace {

struct Counters {
    unsigned long long bad;
    unsigned long long untouched;
    unsigned long long first_bad;
};

/// One thread per output element (grid-stride): out[o] must equal in[r * cols + c] bit for bit,
/// where o = c * rows + r.
__global__ void compare_transpose_kernel(const float* __restrict__ in, const float* __restrict__ out, std::int64_t rows,
                                         std::int64_t cols, Counters* counters)
{
    const std::int64_t n = rows * cols;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < n; o += stride) {
        const std::int64_t c = o / rows;
        const std::int64_t r = o % rows;
        const unsigned got = __float_as_uint(out[o]);
        const unsigned expected = __float_as_uint(in[r * cols + c]);
        if (got != expected) {
            atomicAdd(&counters->bad, 1ull);
            if (got == wb::kFloatPoisonBits) atomicAdd(&counters->untouched, 1ull);   // still the poison
            atomicMin(&counters->first_bad, static_cast<unsigned long long>(o));
        }
    }
}

float element(const float* device, std::int64_t index)
{
    float value = 0.0f;
    WB_CUDA_CHECK(cudaMemcpy(&value, device + index, sizeof value, cudaMemcpyDeviceToHost));
    return value;
}

}   // namespace

wb::CompareReport compare_transpose_on_device(const float* in, const float* out, std::int64_t rows, std::int64_t cols,
                                              cudaStream_t stream)
{
    wb::DeviceBuffer<Counters> counters(1);
    const Counters start{0, 0, ~0ull};
    WB_CUDA_CHECK(cudaMemcpyAsync(counters.data(), &start, sizeof start, cudaMemcpyHostToDevice, stream));
    const std::int64_t n = rows * cols;
    const int threads = 256;
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, threads), 65536));
    compare_transpose_kernel<<<blocks, threads, 0, stream>>>(in, out, rows, cols, counters.data());
    WB_CHECK_LAUNCH();
    Counters result{};
    WB_CUDA_CHECK(cudaMemcpyAsync(&result, counters.data(), sizeof result, cudaMemcpyDeviceToHost, stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));

    wb::CompareReport report;
    report.count = n;
    report.bad = static_cast<std::int64_t>(result.bad);
    report.untouched = static_cast<std::int64_t>(result.untouched);
    report.ok = report.bad == 0;
    if (report.ok) return report;

    const auto o = static_cast<std::int64_t>(result.first_bad);
    const std::int64_t out_row = o / rows;   // = input column
    const std::int64_t out_col = o % rows;   // = input row
    report.first_bad = o;
    report.expected_at_first = element(in, out_col * cols + out_row);
    const float got = element(out, o);
    report.got_at_first = got;
    report.nothing_written = report.untouched == n;
    if (report.nothing_written) {
        report.message = "not implemented yet: the output was never written (all " + std::to_string(n) +
                         " elements still hold the poison the grader put there).";
        return report;
    }
    const bool never_written = wb::is_poison(got);
    std::string text = std::to_string(report.bad) + " of " + std::to_string(n) + " elements are wrong";
    if (report.untouched > 0) text += " (" + std::to_string(report.untouched) + " of them never written)";
    text += ".\n  first bad: index " + std::to_string(o) + " (output row " + std::to_string(out_row) + ", column " +
            std::to_string(out_col) + "): expected " + wb::format_number(report.expected_at_first) + ", got " +
            (never_written ? std::string("nothing (never written)") : wb::format_number(report.got_at_first)) +
            " (tolerance: exact; checked on the GPU, every element)";
    if (report.untouched == report.bad) {
        text +=
            "\n  likely cause: parts of the output were never written: does the grid cover all "
            "ceil(rows / tile) x ceil(cols / tile) tiles, in the right order (x along which dimension)?";
    } else if (report.untouched == 0) {
        text +=
            "\n  likely cause: values landed in the wrong place: check which index runs along the rows "
            "and which along the columns, on both the load and the store side.";
    }
    report.message = text;
    return report;
}

}   // namespace ch05
