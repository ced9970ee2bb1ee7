// Chapter 8 GPU smoke check (stand-alone, not part of the graded build): runs every reference stage in
// fp16 and bf16 on small and odd shapes against a float64 CPU reference, spot-checks 4096^3 and 8192^3
// against the same reference, and times the stages and cuBLAS (cublasGemmEx, fp32 compute) there.
// Build and run from the repository root (sm_90 for an H100, sm_80 for an A100):
//   nvcc -std=c++17 -O3 -arch=sm_90 -I chapters -I . -DWORKBOOK_TRACK=reference \
//        chapters/08_tensor_gemm/smoke/gpu_smoke.cu solutions/08_tensor_gemm/*.cu -lcublas -o ch08_gpu_smoke
//   ./ch08_gpu_smoke            (./ch08_gpu_smoke quick: skips 8192)
// Exit status 0 when every check passed.
#include "08_tensor_gemm/stages.cuh"

#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using Launcher = void (*)(int, int, int, float, const void*, const void*, ch08::Dtype, float, float*, cudaStream_t);

struct Stage {
    const char* name;
    Launcher run;
};

const Stage kStages[] = {
    {"1 wmma naive", reference::hgemm_1_wmma_naive},     {"2 wmma shared", reference::hgemm_2_wmma_shared},
    {"3 mma+ldmatrix", reference::hgemm_3_mma_ldmatrix}, {"4 cp.async", reference::hgemm_4_cp_async},
    {"5 swizzle", reference::hgemm_5_swizzle},
};

#define CHECK_CUBLAS(call)                                                                    \
    do {                                                                                      \
        const cublasStatus_t status_ = (call);                                                \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                                               \
            std::fprintf(stderr, "%s failed: status %d\n", #call, static_cast<int>(status_)); \
            std::exit(2);                                                                     \
        }                                                                                     \
    } while (0)

/// Host copies of A and B: the 16-bit patterns for the GPU and their exact values as doubles.
struct Operands {
    std::vector<std::uint16_t> a_bits, b_bits;
    std::vector<double> a, b;
};

std::uint16_t to_bits(float x, ch08::Dtype dtype, double* exact)
{
    std::uint16_t bits;
    if (dtype == ch08::Dtype::f16) {
        const __half h = __float2half_rn(x);
        std::memcpy(&bits, &h, 2);
        *exact = __half2float(h);
    } else {
        const __nv_bfloat16 h = __float2bfloat16_rn(x);
        std::memcpy(&bits, &h, 2);
        *exact = __bfloat162float(h);
    }
    return bits;
}

/// Values uniform in [-scale, scale], with a few exact zeros and, when @p tiny, values near the
/// bottom of fp16's range (subnormal there).
Operands make_operands(int M, int N, int K, ch08::Dtype dtype, float scale, bool tiny, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    Operands op;
    auto fill = [&](std::size_t count, std::vector<std::uint16_t>& bits, std::vector<double>& exact) {
        bits.resize(count), exact.resize(count);
        for (std::size_t i = 0; i < count; ++i) {
            float x = uniform(rng) * scale;
            if (tiny && i % 7 == 3) x *= 1e-6f;
            if (i % 13 == 5) x = 0.0f;
            bits[i] = to_bits(x, dtype, &exact[i]);
        }
    };
    fill(static_cast<std::size_t>(M) * K, op.a_bits, op.a);
    fill(static_cast<std::size_t>(N) * K, op.b_bits, op.b);
    return op;
}

/// Checks element (m, n): the float64 reference from the rounded inputs, and a bound that covers fp32
/// accumulation over K in any order (about K roundings of 2^-24 relative to sum |a b|), kept 4 times
/// looser for the tensor cores' undocumented internal rounding, plus the epilogue's roundings.
bool check_element(const Operands& op, int N, int K, float alpha, float beta, const std::vector<float>& c_in,
                   const std::vector<float>& c_out, int m, int n, std::string* why)
{
    double dot = 0.0, magnitude = 0.0;
    for (int k = 0; k < K; ++k) {
        const double p = op.a[static_cast<std::size_t>(m) * K + k] * op.b[static_cast<std::size_t>(n) * K + k];
        dot += p, magnitude += std::fabs(p);
    }
    const std::size_t idx = static_cast<std::size_t>(m) * N + n;
    const double c_old = beta == 0.0f ? 0.0 : c_in[idx];
    const double expected = alpha * dot + beta * c_old;
    const double u = std::ldexp(1.0, -24);
    const double tolerance =
        4.0 * (K + 2) * u * std::fabs(alpha) * magnitude + 4.0 * u * std::fabs(beta * c_old) + 1e-30;
    const double got = c_out[idx];
    if (std::isfinite(got) && std::fabs(got - expected) <= tolerance) return true;
    char text[256];
    std::snprintf(text, sizeof text, "C[%d][%d] = %.9g, expected %.9g (tolerance %.3g)", m, n, got, expected,
                  tolerance);
    *why = text;
    return false;
}

struct DeviceBuffers {
    void *a = nullptr, *b = nullptr;
    float* c = nullptr;
    DeviceBuffers(const Operands& op, std::size_t c_count)
    {
        WB_CUDA_CHECK(cudaMalloc(&a, op.a_bits.size() * 2));
        WB_CUDA_CHECK(cudaMalloc(&b, op.b_bits.size() * 2));
        WB_CUDA_CHECK(cudaMalloc(&c, c_count * sizeof(float)));
        WB_CUDA_CHECK(cudaMemcpy(a, op.a_bits.data(), op.a_bits.size() * 2, cudaMemcpyHostToDevice));
        WB_CUDA_CHECK(cudaMemcpy(b, op.b_bits.data(), op.b_bits.size() * 2, cudaMemcpyHostToDevice));
    }
    ~DeviceBuffers() { cudaFree(a), cudaFree(b), cudaFree(c); }
};

/// C = alpha A B + beta C by cuBLAS in this chapter's layout: row-major C (M x N) is column-major
/// C^T (N x M) = B^T A^T, with B (stored N x K) transposed and A (stored M x K) as it is.
void cublas_gemm(cublasHandle_t handle, int M, int N, int K, float alpha, const void* A, const void* B,
                 ch08::Dtype dtype, float beta, float* C)
{
    const cudaDataType type = dtype == ch08::Dtype::f16 ? CUDA_R_16F : CUDA_R_16BF;
    CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, B, type, K, A, type, K, &beta, C,
                              CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

struct Case {
    int M, N, K;
    float alpha, beta, scale;
    bool tiny;
};

const Case kCases[] = {
    {1, 1, 8, 1.5f, 0.0f, 1.0f, false},   // the smallest problem (K = 8: half an mma step)
    {17, 33, 8, 1.25f, -0.75f, 1.0f, false},      {16, 16, 16, 1.0f, 0.0f, 1.0f, false},   // one WMMA tile
    {31, 47, 24, 0.5f, 2.0f, 1.0f, false},        // K = 24: one and a half mma steps
    {128, 128, 32, 1.0f, 1.0f, 1.0f, false},      // exactly one block tile of stages 3-5
    {129, 127, 40, -1.5f, 0.5f, 1.0f, false},     // one more and one less than a tile; K tail of 8
    {1, 300, 72, 1.25f, 0.5f, 1.0f, false},       // a single row
    {300, 1, 72, 1.25f, 0.0f, 1.0f, false},       // a single column
    {65, 67, 1000, 1.0f, 0.0f, 1.0f, false},      // long dot products, K % 16 == 8
    {200, 190, 96, 1.0f, -1.0f, 100.0f, false},   // large values (products up to 1e4)
    {100, 90, 64, 1.0f, 0.5f, 1.0f, true},        // tiny values (fp16 subnormals)
    {1000, 999, 1000, 1.5f, -0.75f, 1.0f, false}, {517, 1031, 264, 0.75f, 0.0f, 1.0f, false},
};

int failures = 0;

/// Runs @p gemm (a stage, or cuBLAS when @p stage is null) on @p c and checks every element (or, for
/// big problems, a sample of rows and columns including the last ones).
void check_case(const char* name, const Case& cs, ch08::Dtype dtype, cublasHandle_t handle, const Stage* stage,
                const Operands& op, DeviceBuffers& buf, const std::vector<float>& c_in, bool sample)
{
    const std::size_t c_count = static_cast<std::size_t>(cs.M) * cs.N;
    WB_CUDA_CHECK(cudaMemcpy(buf.c, c_in.data(), c_count * sizeof(float), cudaMemcpyHostToDevice));
    if (stage != nullptr) {
        stage->run(cs.M, cs.N, cs.K, cs.alpha, buf.a, buf.b, dtype, cs.beta, buf.c, nullptr);
    } else {
        cublas_gemm(handle, cs.M, cs.N, cs.K, cs.alpha, buf.a, buf.b, dtype, cs.beta, buf.c);
    }
    WB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> c_out(c_count);
    WB_CUDA_CHECK(cudaMemcpy(c_out.data(), buf.c, c_count * sizeof(float), cudaMemcpyDeviceToHost));
    std::string why;
    int bad = 0;
    auto visit = [&](int m, int n) {
        std::string w;
        if (!check_element(op, cs.N, cs.K, cs.alpha, cs.beta, c_in, c_out, m, n, &w) && bad++ == 0) why = w;
    };
    if (!sample) {
        for (int m = 0; m < cs.M; ++m)
            for (int n = 0; n < cs.N; ++n) visit(m, n);
    } else {
        const int picks[] = {0, 1, 15, 16, 127, 128, 129, 1000, 2047, 4095, 4096, 8190, 8191};
        for (int pm : picks)
            for (int pn : picks)
                if (pm < cs.M && pn < cs.N) visit(pm, pn);
        std::mt19937 rng(7);
        for (int i = 0; i < 300; ++i) visit(static_cast<int>(rng() % cs.M), static_cast<int>(rng() % cs.N));
    }
    std::printf("  %-15s %s %5d x %5d x %5d alpha %5.2f beta %5.2f%s: %s%s\n", name, ch08::dtype_name(dtype), cs.M,
                cs.N, cs.K, cs.alpha, cs.beta, cs.tiny ? " tiny" : (cs.scale != 1.0f ? " large" : ""),
                bad == 0 ? "ok" : "FAILED ", bad == 0 ? "" : (std::to_string(bad) + " bad, first " + why).c_str());
    failures += bad != 0;
}

std::vector<float> make_c(std::size_t count, float beta, unsigned seed)
{
    std::vector<float> c(count);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (auto& x : c) x = beta == 0.0f ? std::nanf("") : uniform(rng);   // beta = 0: C must not be read
    return c;
}

double time_ms(const std::function<void()>& gemm)
{
    cudaEvent_t start, stop;
    WB_CUDA_CHECK(cudaEventCreate(&start));
    WB_CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 3; ++i) gemm();   // warm-up
    const int kRuns = 10;
    WB_CUDA_CHECK(cudaEventRecord(start));
    for (int i = 0; i < kRuns; ++i) gemm();
    WB_CUDA_CHECK(cudaEventRecord(stop));
    WB_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    WB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    cudaEventDestroy(start), cudaEventDestroy(stop);
    return ms / kRuns;
}

}   // namespace

int main(int argc, char** argv)
{
    const bool quick = argc > 1 && std::strcmp(argv[1], "quick") == 0;
    cudaDeviceProp prop{};
    WB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, compute capability %d.%d\n", prop.name, prop.major, prop.minor);
    if (prop.major < 8) {
        std::printf("chapter 8's stages need compute capability 8.0 or newer: nothing to check here\n");
        return 0;
    }
    cublasHandle_t handle;
    CHECK_CUBLAS(cublasCreate(&handle));

    const ch08::Dtype dtypes[] = {ch08::Dtype::f16, ch08::Dtype::bf16};
    std::printf("correctness (float64 CPU reference of the rounded inputs):\n");
    unsigned seed = 1;
    for (const Case& cs : kCases)
        for (ch08::Dtype dtype : dtypes) {
            const Operands op = make_operands(cs.M, cs.N, cs.K, dtype, cs.scale, cs.tiny, seed++);
            DeviceBuffers buf(op, static_cast<std::size_t>(cs.M) * cs.N);
            const std::vector<float> c_in = make_c(static_cast<std::size_t>(cs.M) * cs.N, cs.beta, seed++);
            check_case("cuBLAS", cs, dtype, handle, nullptr, op, buf, c_in, false);   // checks the layout mapping too
            for (const Stage& stage : kStages) check_case(stage.name, cs, dtype, handle, &stage, op, buf, c_in, false);
        }

    std::printf("speed (mean of 10 runs after 3 warm-ups; results spot-checked):\n");
    for (int n : {4096, 8192}) {
        if (quick && n > 4096) break;
        for (ch08::Dtype dtype : dtypes) {
            const Case cs{n, n, n, 1.0f, 0.0f, 1.0f, false};
            const Operands op = make_operands(n, n, n, dtype, 1.0f, false, seed++);
            DeviceBuffers buf(op, static_cast<std::size_t>(n) * n);
            const std::vector<float> c_in = make_c(static_cast<std::size_t>(n) * n, 0.0f, seed++);
            const double flops = 2.0 * n * n * static_cast<double>(n);
            const double cublas_ms =
                time_ms([&] { cublas_gemm(handle, n, n, n, 1.0f, buf.a, buf.b, dtype, 0.0f, buf.c); });
            std::printf("  %d^3 %s: cuBLAS %.3f ms, %.1f TFLOP/s\n", n, ch08::dtype_name(dtype), cublas_ms,
                        flops / cublas_ms * 1e-9);
            for (const Stage& stage : kStages) {
                const double ms = time_ms([&] { stage.run(n, n, n, 1.0f, buf.a, buf.b, dtype, 0.0f, buf.c, nullptr); });
                WB_CUDA_CHECK(cudaDeviceSynchronize());
                std::printf("    %-15s %.3f ms, %6.1f TFLOP/s, %.2fx cuBLAS\n", stage.name, ms, flops / ms * 1e-9,
                            cublas_ms / ms);
                check_case(stage.name, cs, dtype, handle, &stage, op, buf, c_in, true);
            }
        }
    }
    CHECK_CUBLAS(cublasDestroy(handle));
    std::printf(failures == 0 ? "all checks passed\n" : "%d checks FAILED\n", failures);
    return failures == 0 ? 0 : 1;
}
