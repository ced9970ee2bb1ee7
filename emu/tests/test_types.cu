// Types and intrinsics: vector types, __half, __nv_bfloat16 (correctly rounded conversions), math.
#include "emu_test.hpp"

#include <cmath>
#include <cstring>
#include <limits>

using emu_test::DeviceArray;

namespace {

__global__ void half2_kernel(const __half* a, const __half* b, __half* y, int pairs)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pairs) return;
    const __half2 p = reinterpret_cast<const __half2*>(a)[i];
    const __half2 q = reinterpret_cast<const __half2*>(b)[i];
    const float2 x = __half22float2(p), z = __half22float2(q);
    reinterpret_cast<__half2*>(y)[i] = __floats2half2_rn(x.x + z.x, x.y * z.y);
}

__global__ void vector_copy(const float* in, float* out, int vectors)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < vectors) reinterpret_cast<float4*>(out)[i] = __ldg(reinterpret_cast<const float4*>(in) + i);
}

unsigned short bits(__half h) { return __half_as_ushort(h); }

}   // namespace

TEST_CASE("vector types have CUDA's sizes and alignments", "[emu][types]")
{
    static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4");
    static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2");
    static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "int4");
    static_assert(sizeof(uint4) == 16 && alignof(uint4) == 16, "uint4");
    static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2");
    static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3");
    static_assert(sizeof(__half) == 2 && sizeof(__half2) == 4 && alignof(__half2) == 4, "half");
    static_assert(sizeof(__nv_bfloat16) == 2 && sizeof(__nv_bfloat162) == 4, "bfloat16");
    const dim3 d(5);
    CHECK((d.x == 5 && d.y == 1 && d.z == 1));
    const float4 v = make_float4(1, 2, 3, 4);
    CHECK(v.w == 4.0f);
}

TEST_CASE("float and double to half round to nearest even, with subnormals and overflow", "[emu][types]")
{
    CHECK(bits(__float2half(1.0f)) == 0x3c00);
    CHECK(bits(__float2half(65504.0f)) == 0x7bff);
    CHECK(bits(__float2half(65519.0f)) == 0x7bff);
    CHECK(bits(__float2half(65520.0f)) == 0x7c00);   // rounds up to infinity
    CHECK(bits(__float2half(-INFINITY)) == 0xfc00);
    CHECK(__hisnan(__float2half(NAN)));
    CHECK(bits(__float2half(std::ldexp(1.0f, -24))) == 0x0001);          // smallest subnormal
    CHECK(bits(__float2half(std::ldexp(1.0f, -25))) == 0x0000);          // a tie: to even (zero)
    CHECK(bits(__float2half(std::ldexp(3.0f, -25))) == 0x0002);          // 1.5 units: to even (2)
    CHECK(bits(__float2half(1.0f + std::ldexp(1.0f, -11))) == 0x3c00);   // tie between 1 and 1 + 2^-10: even
    CHECK(bits(__float2half(1.0f + std::ldexp(3.0f, -11))) == 0x3c02);
    CHECK(bits(__float2half(-0.0f)) == 0x8000);
    // Double rounding: 1 + 2^-11 + 2^-40 is just above the tie, but it rounds to the tie in float.
    CHECK(bits(__double2half(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))) == 0x3c01);
    for (float f : {0.1f, -3.75f, 1000.5f, 6e-5f, 1e-7f}) {
        CHECK(__half2float(__float2half(f)) == Approx(f).epsilon(1e-3).margin(6e-8));
    }
}

TEST_CASE("bfloat16 keeps float's exponent and 8 bits of significand", "[emu][types]")
{
    CHECK(__bfloat16_as_ushort(__float2bfloat16(1.0f)) == 0x3f80);
    CHECK(__bfloat162float(__float2bfloat16(1.0f + 1.0f / 256.0f)) == 1.0f);   // a tie: to even
    CHECK(__bfloat162float(__float2bfloat16(1.0f + 3.0f / 256.0f)) == 1.0f + 4.0f / 256.0f);
    CHECK(std::isinf(__bfloat162float(__float2bfloat16(std::numeric_limits<float>::max()))));
    CHECK(__bfloat162float(__float2bfloat16(1e-40f)) > 0.0f);   // subnormals survive
    CHECK(__bfloat162float(__double2bfloat16(3.0)) == 3.0f);
}

TEST_CASE("half2 kernels and float4 loads", "[emu][types]")
{
    const int pairs = 100;
    std::vector<__half> a(2 * pairs), b(2 * pairs);
    for (int i = 0; i < 2 * pairs; ++i) {
        a[i] = __float2half(0.25f * i);
        b[i] = __float2half(1.0f + 0.5f * (i % 3));
    }
    DeviceArray<__half> da(a), db(b), dy(2 * pairs);
    half2_kernel<<<1, 128>>>(da.data, db.data, dy.data, pairs);
    REQUIRE(emu_test::finish().ok());
    const auto y = dy.download();
    for (int i = 0; i < pairs; ++i) {
        CHECK(__half2float(y[2 * i]) == __half2float(__float2half(__half2float(a[2 * i]) + __half2float(b[2 * i]))));
        CHECK(__half2float(y[2 * i + 1]) ==
              __half2float(__float2half(__half2float(a[2 * i + 1]) * __half2float(b[2 * i + 1]))));
    }

    std::vector<float> in(64);
    for (int i = 0; i < 64; ++i) in[i] = static_cast<float>(i);
    DeviceArray<float> din(in), dout(64);
    vector_copy<<<1, 32>>>(din.data, dout.data, 16);
    REQUIRE(emu_test::finish().ok());
    CHECK(dout.download() == in);
}

TEST_CASE("math intrinsics", "[emu][types]")
{
    CHECK(rsqrtf(4.0f) == 0.5f);
    CHECK(__expf(0.0f) == 1.0f);
    CHECK(fmaxf(-1.0f, NAN) == -1.0f);
    CHECK(__saturatef(1.5f) == 1.0f);
    CHECK(__popc(0xf0f0u) == 8);
    CHECK(__float_as_uint(1.0f) == 0x3f800000u);
    CHECK(__clz(1) == 31);
    CHECK(max(3, 7) == 7);
    CHECK(min(2.0f, -1.0f) == -1.0f);
}
