// The GPU side of the tensor-core wrappers (chapters/common/tensor_core.cuh) and of WMMA, checked
// with the same expectations as the emulator's tests (emu/tests/test_tensor_core.cu): if both pass,
// the emulator and an NVIDIA GPU agree on the fragment layouts. Not part of any build: compile and
// run it by hand on a GPU of compute capability 8.0 or newer, from the repository root:
//
//     nvcc -std=c++17 -arch=sm_90 -I chapters emu/tests/gpu/tensor_core_check.cu -o tensor_core_check
//     ./tensor_core_check            (prints one line per check and PASS or FAIL; exit status 0 on PASS)
//
// (-arch=sm_80 for an A100.)
#include "common/tensor_core.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* what)
{
    std::printf("%-72s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) ++failures;
}

#define CUDA_OK(call)                                                           \
    do {                                                                        \
        const cudaError_t e = (call);                                           \
        if (e != cudaSuccess) {                                                 \
            std::printf("%s failed: %s\nFAIL\n", #call, cudaGetErrorString(e)); \
            std::exit(1);                                                       \
        }                                                                       \
    } while (0)

template <class T>
struct Device {
    explicit Device(const std::vector<T>& host) : n(host.size())
    {
        CUDA_OK(cudaMalloc(&p, n * sizeof(T)));
        CUDA_OK(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
    explicit Device(std::size_t count) : n(count) { CUDA_OK(cudaMalloc(&p, n * sizeof(T))); }
    ~Device() { cudaFree(p); }
    std::vector<T> get() const
    {
        std::vector<T> h(n);
        CUDA_OK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
    T* p = nullptr;
    std::size_t n;
};

struct Pos {
    int row, col;
};
// The PTX ISA's tables ("Matrix Fragments for mma.m16n8k16 with floating point type").
__host__ __device__ Pos isa_a(int lane, int i)
{
    const int g = lane >> 2, t = lane % 4;
    const bool upper = (i >= 2 && i < 4) || i >= 6;
    return {upper ? g + 8 : g, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
}
__host__ __device__ Pos isa_b(int lane, int i)
{
    const int g = lane >> 2, t = lane % 4;
    return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
}
__host__ __device__ Pos isa_c(int lane, int i)
{
    const int g = lane >> 2, t = lane % 4;
    return {i >= 2 ? g + 8 : g, t * 2 + (i & 1)};
}

// ---- ldmatrix: element (r, c) of the 32 stored rows is 100 r + c; lane l points at row (7 l + 3) % 32.
template <int N, bool Trans>
__global__ void ldmatrix_kernel(std::uint32_t* out)
{
    __shared__ alignas(16) std::uint16_t rows[32][8];
    const int lane = threadIdx.x;
    for (int c = 0; c < 8; ++c) rows[lane][c] = static_cast<std::uint16_t>(100 * lane + c);
    __syncwarp();
    std::uint32_t regs[N];
    const void* mine = rows[(lane * 7 + 3) % 32];
    if constexpr (N == 1) Trans ? wb::ldmatrix_x1_trans(regs, mine) : wb::ldmatrix_x1(regs, mine);
    if constexpr (N == 2) Trans ? wb::ldmatrix_x2_trans(regs, mine) : wb::ldmatrix_x2(regs, mine);
    if constexpr (N == 4) Trans ? wb::ldmatrix_x4_trans(regs, mine) : wb::ldmatrix_x4(regs, mine);
    for (int i = 0; i < N; ++i) out[lane * N + i] = regs[i];
}

template <int N, bool Trans>
void check_ldmatrix(const char* name)
{
    Device<std::uint32_t> out(32 * N);
    ldmatrix_kernel<N, Trans><<<1, 32>>>(out.p);
    CUDA_OK(cudaDeviceSynchronize());
    const auto h = out.get();
    bool ok = true;
    for (int lane = 0; lane < 32; ++lane) {
        for (int m = 0; m < N; ++m) {
            auto element = [&](int r, int c) {
                return static_cast<std::uint32_t>(100 * (((8 * m + r) * 7 + 3) % 32) + c);
            };
            const int r = lane / 4, c = 2 * (lane % 4);
            const std::uint32_t lo = Trans ? element(c, r) : element(r, c);
            const std::uint32_t hi = Trans ? element(c + 1, r) : element(r, c + 1);
            ok = ok && h[lane * N + m] == (lo | (hi << 16));
        }
    }
    check(ok, name);
}

// ---- mma.sync with fragments built from the ISA's tables -------------------------------------------
template <typename T>
__global__ void mma_kernel(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d)
{
    const int lane = threadIdx.x;
    std::uint32_t fa[4], fb[2];
    float fc[4];
    for (int r = 0; r < 4; ++r) {
        const Pos lo = isa_a(lane, 2 * r), hi = isa_a(lane, 2 * r + 1);
        fa[r] = a[lo.row * 16 + lo.col] | (static_cast<std::uint32_t>(a[hi.row * 16 + hi.col]) << 16);
    }
    for (int r = 0; r < 2; ++r) {
        const Pos lo = isa_b(lane, 2 * r), hi = isa_b(lane, 2 * r + 1);
        fb[r] = b[lo.row * 8 + lo.col] | (static_cast<std::uint32_t>(b[hi.row * 8 + hi.col]) << 16);
    }
    for (int i = 0; i < 4; ++i) fc[i] = c[isa_c(lane, i).row * 8 + isa_c(lane, i).col];
    wb::mma_m16n8k16<T>(fc, fa, fb, fc);
    for (int i = 0; i < 4; ++i) d[isa_c(lane, i).row * 8 + isa_c(lane, i).col] = fc[i];
}

template <typename T>
std::uint16_t to_bits(float v)
{
    if constexpr (std::is_same_v<T, __half>) {
        return __half_as_ushort(__float2half_rn(v));
    } else {
        return __bfloat16_as_ushort(__float2bfloat16_rn(v));
    }
}

/// Small integers (exact in both types, and every sum exact in fp32): D must equal A B + C exactly.
template <typename T>
void check_mma(const char* name)
{
    std::vector<float> a(256), b(128), c(128);
    for (int i = 0; i < 256; ++i) a[i] = static_cast<float>((i * 37 + 11) % 9 - 4);
    for (int i = 0; i < 128; ++i) b[i] = static_cast<float>((i * 53 + 5) % 7 - 3);
    for (int i = 0; i < 128; ++i) c[i] = static_cast<float>(i % 13) - 6.0f;
    std::vector<std::uint16_t> a16(256), b16(128);
    for (int i = 0; i < 256; ++i) a16[i] = to_bits<T>(a[i]);
    for (int i = 0; i < 128; ++i) b16[i] = to_bits<T>(b[i]);
    Device<std::uint16_t> da(a16), db(b16);
    Device<float> dc(c), dd(128);
    mma_kernel<T><<<1, 32>>>(da.p, db.p, dc.p, dd.p);
    CUDA_OK(cudaDeviceSynchronize());
    const auto d = dd.get();
    bool ok = true;
    for (int r = 0; r < 16; ++r) {
        for (int n = 0; n < 8; ++n) {
            float s = c[r * 8 + n];
            for (int k = 0; k < 16; ++k) s += a[r * 16 + k] * b[k * 8 + n];
            ok = ok && d[r * 8 + n] == s;
        }
    }
    check(ok, name);
}

// ---- ldmatrix feeding mma, as chapter 8 uses them --------------------------------------------------
__global__ void ldmatrix_then_mma(const __half* a, const __half* b, float* d)
{
    __shared__ alignas(16) __half sa[16 * 16];
    __shared__ alignas(16) __half sb[16 * 8];
    const int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) sa[i] = a[i];
    for (int i = lane; i < 128; i += 32) sb[i] = b[i];
    __syncwarp();
    std::uint32_t fa[4], fb[2];
    wb::ldmatrix_x4(fa, &sa[(lane % 16) * 16 + (lane / 16) * 8]);
    wb::ldmatrix_x2_trans(fb, &sb[(lane % 16) * 8]);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    wb::mma_m16n8k16<__half>(acc, fa, fb, acc);
    for (int i = 0; i < 4; ++i) d[isa_c(lane, i).row * 8 + isa_c(lane, i).col] = acc[i];
}

void check_ldmatrix_then_mma()
{
    std::vector<float> a(256), b(128);
    for (int i = 0; i < 256; ++i) a[i] = static_cast<float>((i * 37) % 11 - 5) / 2.0f;
    for (int i = 0; i < 128; ++i) b[i] = static_cast<float>((i * 13) % 7 - 3);
    std::vector<__half> ha(256), hb(128);
    for (int i = 0; i < 256; ++i) ha[i] = __float2half_rn(a[i]);
    for (int i = 0; i < 128; ++i) hb[i] = __float2half_rn(b[i]);
    Device<__half> da(ha), db(hb);
    Device<float> dd(128);
    ldmatrix_then_mma<<<1, 32>>>(da.p, db.p, dd.p);
    CUDA_OK(cudaDeviceSynchronize());
    const auto d = dd.get();
    bool ok = true;
    for (int r = 0; r < 16; ++r) {
        for (int n = 0; n < 8; ++n) {
            float s = 0.0f;
            for (int k = 0; k < 16; ++k) s += a[r * 16 + k] * b[k * 8 + n];
            ok = ok && d[r * 8 + n] == s;
        }
    }
    check(ok, "ldmatrix_x4 + ldmatrix_x2_trans + mma_m16n8k16<__half>");
}

// ---- WMMA round trip --------------------------------------------------------------------------------
namespace wmma = nvcuda::wmma;

template <typename T, typename LayoutA, typename LayoutB>
__global__ void wmma_kernel(const T* a, const T* b, float* c, bool c_row_major)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, LayoutA> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LayoutB> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    const wmma::layout_t layout = c_row_major ? wmma::mem_row_major : wmma::mem_col_major;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(acc, c, 16, layout);
    wmma::mma_sync(acc, fa, fb, acc);
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= 2.0f;
    wmma::store_matrix_sync(c, acc, 16, layout);
}

template <typename T, typename LayoutA, typename LayoutB>
void check_wmma(bool c_row_major, const char* name)
{
    constexpr bool a_row = std::is_same_v<LayoutA, wmma::row_major>;
    constexpr bool b_row = std::is_same_v<LayoutB, wmma::row_major>;
    std::vector<float> a(256), b(256), c(256);
    for (int i = 0; i < 256; ++i) a[i] = static_cast<float>((i * 29 + 3) % 17 - 8) / 4.0f;
    for (int i = 0; i < 256; ++i) b[i] = static_cast<float>((i * 31 + 7) % 17 - 8);
    for (int i = 0; i < 256; ++i) c[i] = static_cast<float>((i * 7) % 17 - 8);
    std::vector<T> sa(256), sb(256);
    std::vector<float> sc(256);
    for (int r = 0; r < 16; ++r) {
        for (int col = 0; col < 16; ++col) {
            sa[a_row ? r * 16 + col : col * 16 + r] = T(a[r * 16 + col]);
            sb[b_row ? r * 16 + col : col * 16 + r] = T(b[r * 16 + col]);
            sc[c_row_major ? r * 16 + col : col * 16 + r] = c[r * 16 + col];
        }
    }
    Device<T> da(sa), db(sb);
    Device<float> dc(sc);
    wmma_kernel<T, LayoutA, LayoutB><<<1, 32>>>(da.p, db.p, dc.p, c_row_major);
    CUDA_OK(cudaDeviceSynchronize());
    const auto out = dc.get();
    bool ok = true;
    for (int r = 0; r < 16; ++r) {
        for (int col = 0; col < 16; ++col) {
            float s = c[r * 16 + col];
            for (int k = 0; k < 16; ++k) s += a[r * 16 + k] * b[k * 16 + col];
            ok = ok && out[c_row_major ? r * 16 + col : col * 16 + r] == 2.0f * s;
        }
    }
    check(ok, name);
}

}   // namespace

int main()
{
    int device = 0, major = 0, minor = 0;
    CUDA_OK(cudaGetDevice(&device));
    CUDA_OK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_OK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    std::printf("compute capability %d.%d\n", major, minor);
    if (major < 8) {
        std::printf("mma.sync m16n8k16 needs compute capability 8.0 or newer\nFAIL\n");
        return 1;
    }
    check_ldmatrix<1, false>("ldmatrix_x1");
    check_ldmatrix<2, false>("ldmatrix_x2");
    check_ldmatrix<4, false>("ldmatrix_x4");
    check_ldmatrix<1, true>("ldmatrix_x1_trans");
    check_ldmatrix<2, true>("ldmatrix_x2_trans");
    check_ldmatrix<4, true>("ldmatrix_x4_trans");
    check_mma<__half>("mma_m16n8k16<__half>: fragments at the ISA's positions, exact result");
    check_mma<__nv_bfloat16>("mma_m16n8k16<__nv_bfloat16>: fragments at the ISA's positions, exact result");
    check_ldmatrix_then_mma();
    for (bool c_row : {true, false}) {
        const char* c_name = c_row ? "C row-major" : "C col-major";
        char name[128];
        std::snprintf(name, sizeof name, "WMMA half, A row, B row, %s", c_name);
        check_wmma<__half, wmma::row_major, wmma::row_major>(c_row, name);
        std::snprintf(name, sizeof name, "WMMA half, A col, B col, %s", c_name);
        check_wmma<__half, wmma::col_major, wmma::col_major>(c_row, name);
        std::snprintf(name, sizeof name, "WMMA bf16, A row, B col, %s", c_name);
        check_wmma<__nv_bfloat16, wmma::row_major, wmma::col_major>(c_row, name);
        std::snprintf(name, sizeof name, "WMMA bf16, A col, B row, %s", c_name);
        check_wmma<__nv_bfloat16, wmma::col_major, wmma::row_major>(c_row, name);
    }
    std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
