/// @file 07_sgemm/tune/tune_main.cuh
/// @brief One candidate of chapter 7's autotuner (`make tune-chapter 7`): stage 9's reference
/// solution compiled with the tile shape WORKBOOK_CH07_TILE, checked, then timed against cuBLAS.
///
/// CMake (cmake/WorkbookTuning.cmake) generates one small file per candidate of candidates.json that
/// defines the shape and includes this one, so the kernel timed is the solution itself, not a copy.
/// The program first checks the shape against cuBLAS on odd shapes (ragged K, N % 4 != 0, stream-K
/// shares that straddle tiles); a shape that is wrong or does not fit this GPU reports why and is not
/// timed. Then, at each size of WORKBOOK_TUNE_SIZES (the "sizes" of candidates.json, passed by
/// tools/wbtools/tune.py), it is timed interleaved with cuBLAS, so that both see the same clocks.
/// Every result is one line "WORKBOOK-TUNE {json}".
#pragma once

#include "harness/buffers.hpp"
#include "harness/catch.hpp"
#include "harness/compare.hpp"
#include "harness/device.hpp"
#include "harness/device_kernels.hpp"
#include "harness/timing.hpp"

#include "07_sgemm/grader/baselines.hpp"
#include "07_sgemm/grader/reference.hpp"

#include "solutions/07_sgemm/9_stream_k.cu"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// The sizes n of the n x n x n products to time, from WORKBOOK_TUNE_SIZES ("1024,2048,...").
std::vector<int> tune_sizes()
{
    std::vector<int> sizes;
    const char* text = std::getenv("WORKBOOK_TUNE_SIZES");
    std::istringstream list(text ? text : "");
    std::string item;
    while (std::getline(list, item, ',')) {
        if (!item.empty()) sizes.push_back(std::atoi(item.c_str()));
    }
    return sizes;
}

/// Timed launches at n x n x n: about a quarter of a second of each, at least 10.
int repetitions_at(int n)
{
    const double ms_at_50_tflops = 2.0 * n * n * static_cast<double>(n) / 50e12 * 1e3;
    return std::max(10, std::min(200, static_cast<int>(250.0 / ms_at_50_tflops)));
}

/// Prints one result line; @p fields is the inside of a JSON object, without braces.
void report(const std::string& fields)
{
    std::printf("WORKBOOK-TUNE {\"candidate\": \"%s\", \"gpu\": \"%s\", %s}\n", WORKBOOK_TUNE_CANDIDATE,
                wb::device_info().name.c_str(), fields.c_str());
}

/// Empty when the candidate computes C = alpha A B + beta C on M x N x K as cuBLAS does, within the
/// grader's tolerance; otherwise what went wrong.
std::string check_against_cublas(cudaStream_t s, int M, int N, int K, float alpha, float beta)
{
    const std::int64_t a_size = static_cast<std::int64_t>(M) * K, b_size = static_cast<std::int64_t>(K) * N;
    const std::int64_t c_size = static_cast<std::int64_t>(M) * N;
    wb::DeviceBuffer<float> A(a_size), B(b_size), C(c_size), R(c_size);
    wb::fill_uniform_device(A.data(), a_size, 11, -1.0f, 1.0f, s);
    wb::fill_uniform_device(B.data(), b_size, 12, -1.0f, 1.0f, s);
    wb::fill_uniform_device(C.data(), c_size, 13, -1.0f, 1.0f, s);
    WB_CUDA_CHECK(cudaMemcpyAsync(R.data(), C.data(), c_size * sizeof(float), cudaMemcpyDeviceToDevice, s));
    tuned::sgemm_9_stream_k(M, N, K, alpha, A.data(), B.data(), beta, C.data(), s);   // checks its launches
    ch07::cublas_sgemm(M, N, K, alpha, A.data(), B.data(), beta, R.data(), s);
    wb::synchronize_with_timeout(s);
    const std::vector<float> expected = R.download();
    const wb::CompareReport result =
        wb::compare(std::vector<double>(expected.begin(), expected.end()), C.download(),
                    ch07::statistical_tolerance(K, alpha, 1.0, 1.0, beta, 1.0), wb::Layout::matrix(M, N));
    if (result.ok) return "";
    std::ostringstream why;
    why << "wrong at " << M << " x " << N << " x " << K << ": element " << result.first_bad << " is "
        << result.got_at_first << ", cuBLAS gives " << result.expected_at_first;
    return why.str();
}

}   // namespace

TEST_CASE("tune: chapter 7 stage 9 with one tile shape", "[tune]")
{
    const std::string& unavailable = wb::gpu_unavailable_reason();
    if (!unavailable.empty()) {
        std::printf("WORKBOOK-SKIP: %s.\n", unavailable.c_str());
        return;
    }
    const std::vector<int> sizes = tune_sizes();
    REQUIRE_FALSE(sizes.empty());   // run by `make tune-chapter 7`, which passes the sizes
    wb::Stream stream;
    const cudaStream_t s = stream.get();

    // Odd shapes first: ragged K, N % 4 != 0, tiles cut by the edges, stream-K shares that straddle tiles.
    const int shapes[][3] = {{637, 64, 900}, {129, 127, 9}, {1000, 1001, 67}, {2600, 2604, 67}, {2601, 2599, 45}};
    for (const auto& shape : shapes) {
        const std::string wrong = check_against_cublas(s, shape[0], shape[1], shape[2], 1.5f, -0.5f);
        if (!wrong.empty()) {
            report("\"error\": \"" + wrong + "\"");
            return;
        }
    }

    int largest = 0;
    for (int n : sizes) largest = std::max(largest, n);
    const std::int64_t elements = static_cast<std::int64_t>(largest) * largest;
    wb::DeviceBuffer<float> A(elements), B(elements), C(elements);
    wb::fill_uniform_device(A.data(), elements, 1, -1.0f, 1.0f, s);
    wb::fill_uniform_device(B.data(), elements, 2, -1.0f, 1.0f, s);
    for (int n : sizes) {
        const wb::Launch candidate = [&](cudaStream_t st) {
            tuned::sgemm_9_stream_k(n, n, n, 1.0f, A.data(), B.data(), 0.0f, C.data(), st);
        };
        const wb::Launch cublas = [&](cudaStream_t st) {
            ch07::cublas_sgemm(n, n, n, 1.0f, A.data(), B.data(), 0.0f, C.data(), st);
        };
        const std::vector<double> ms =
            wb::interleaved_median_ms(s, {candidate, cublas}, wb::TimingPlan{3, repetitions_at(n)});
        char fields[160];
        std::snprintf(fields, sizeof fields, "\"n\": %d, \"ms\": %.5f, \"cublas_ms\": %.5f", n, ms[0], ms[1]);
        report(fields);
    }
}
