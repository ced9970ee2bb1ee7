// The rewrite step: launches and __shared__ declarations become plain C++, nothing else changes,
// and no line moves (so the compiler's messages point at the learner's lines).
#include "harness/catch.hpp"
#include "rewrite.hpp"

#include <algorithm>
#include <string>

namespace {

std::string rewritten(const std::string& source)
{
    const emu::rewrite::Result result = emu::rewrite::rewrite(source);
    REQUIRE(result.errors.empty());
    CHECK(std::count(result.text.begin(), result.text.end(), '\n') == std::count(source.begin(), source.end(), '\n'));
    return result.text;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kPrefix = "::emu::launch(::emu::KernelSite{";

}   // namespace

TEST_CASE("a launch becomes a call of emu::launch with the kernel in a lambda", "[emu][rewrite]")
{
    CHECK(rewritten("void f() { k<<<g, b>>>(x, y); }") ==
          "void f() { ::emu::launch(::emu::KernelSite{\"k\", __builtin_FILE(), __builtin_LINE()}, "
          "[=](auto&... emu_a_) { k(emu_a_...); }, ::emu::config(g, b), x, y); }");
}

TEST_CASE("launch forms: templates, namespaces, four parameters, no arguments", "[emu][rewrite]")
{
    const std::string text = rewritten("void f() { ns::kernel<T, 4><<<blocks, 256, bytes, stream>>>(); }");
    CHECK(contains(text, kPrefix + "\"ns::kernel<T, 4>\""));
    CHECK(contains(text, "{ ns::kernel<T, 4>(emu_a_...); }, ::emu::config(blocks, 256, bytes, stream) );"));
    CHECK(contains(rewritten("void f() { ::k<<<1, 1>>>(a); }"), "{ ::k(emu_a_...); }"));
    CHECK(contains(rewritten("void f() { k<act == A::relu ? 1 : 2><<<1, 1>>>(a); }"),
                   "{ k<act == A::relu ? 1 : 2>(emu_a_...); }"));
    CHECK(contains(rewritten("void f() { k<(n > 2)><<<1, 1>>>(a); }"), "{ k<(n > 2)>(emu_a_...); }"));
    CHECK(contains(rewritten("void f() { k<<<(n + 255) >> 8, dim3(16, 16)>>>(a, b); }"),
                   "::emu::config((n + 255) >> 8, dim3(16, 16)), a, b);"));
}

TEST_CASE("a launch over several lines keeps every line where it was", "[emu][rewrite]")
{
    const std::string text = rewritten("void f()\n{\n    kernel<<<grid,\n             block>>>(a,\n  b);\n}\n");
    CHECK(contains(text, "::emu::config(grid,\n             block), a,\n  b);"));
}

TEST_CASE("strings, characters, comments, raw strings and digit separators are left alone", "[emu][rewrite]")
{
    const std::string source =
        "const char* s = \"k<<<1, 1>>>(x) __shared__ int a;\";\n"
        "char c = '<'; char d = '\\'';\n"
        "// k<<<1, 1>>>(x);\n"
        "/* __shared__ float b[3]; */\n"
        "auto r = R\"x(k<<<1,1>>>() )\" __shared__ )x\";\n"
        "long n = 1'000'000; int e = '\"';\n";
    CHECK(rewritten(source) == source);
}

TEST_CASE("__shared__ arrays become slots of the block's arena", "[emu][rewrite]")
{
    const std::string text = rewritten("void k() { __shared__ float tile[32][33]; }");
    CHECK(contains(text,
                   "static thread_local ::emu::detail::SharedSlot emu_shared_slot_1; auto& tile = "
                   "::emu::shared_static<float[32][33]>(emu_shared_slot_1, 0, \"tile\", __builtin_FILE(), "
                   "__builtin_LINE());"));
}

TEST_CASE("__shared__ forms: several names, qualifiers, alignment, dependent sizes, extern", "[emu][rewrite]")
{
    const std::string two = rewritten("void k() { __shared__ float mean, rstd[4]; }");
    CHECK(contains(two, "auto& mean = ::emu::shared_static<float>("));
    CHECK(contains(two, "auto& rstd = ::emu::shared_static<float[4]>("));
    CHECK(contains(rewritten("void k() { volatile __shared__ int flag; }"), "::emu::shared_static<volatile int>("));
    CHECK(contains(rewritten("void k() { __shared__ alignas(16) float a[kN][kN + 1]; }"),
                   "::emu::shared_static<float[kN][kN+1]>(emu_shared_slot_1, (16), \"a\""));
    CHECK(contains(rewritten("void k() { __shared__ typename Reduce<T>::Storage storage; }"),
                   "::emu::shared_static<typename Reduce < T > :: Storage>("));
    CHECK(contains(rewritten("void k() { extern __shared__ float smem[]; }"),
                   "auto const smem = ::emu::shared_dynamic<float>(0, __builtin_FILE(), __builtin_LINE());"));
    CHECK(contains(rewritten("void k() { extern __shared__ __attribute__((aligned(16))) unsigned char raw[]; }"),
                   "auto const raw = ::emu::shared_dynamic<unsigned char>((16),"));
    CHECK(contains(rewritten("void k() { extern __shared__ float rows[][33]; }"), "::emu::shared_dynamic<float[33]>("));
    const std::string multi = rewritten("void k() {\n  __shared__ float\n    a[2],\n    b[3];\n  use(a);\n}\n");
    CHECK(contains(multi, "\n\n\n  use(a);"));
}

TEST_CASE("a __shared__ variable at namespace scope is a clear compile error", "[emu][rewrite]")
{
    CHECK(contains(rewritten("namespace a { __shared__ float x[4]; }"), "static_assert(sizeof(float) == 0,"));
    CHECK(contains(rewritten("namespace std __attribute__((__visibility__(\"default\"))) { __shared__ int y; }"),
                   "static_assert"));
    CHECK(contains(rewritten("namespace a { void k() { __shared__ float x[4]; } }"), "auto& x ="));
}

TEST_CASE("what cannot be rewritten is reported at the learner's line", "[emu][rewrite]")
{
    const auto result = emu::rewrite::rewrite("# 7 \"exercises/x.cu\"\nvoid f()\n{\n    <<<1, 1>>>(a);\n}\n");
    REQUIRE(result.errors.size() == 1);
    CHECK(contains(result.errors[0], "exercises/x.cu:9: error: cannot find the kernel"));
    const auto open = emu::rewrite::rewrite("void f() { k<<<1, 1(a); }");
    REQUIRE(!open.errors.empty());
    CHECK(contains(open.errors[0], ">>>"));
}

TEST_CASE("preprocessor lines and line markers pass through untouched", "[emu][rewrite]")
{
    const std::string source = "# 1 \"a.cu\"\n#pragma unroll\nvoid f() { k<<<1, 1>>>(x); }\n# 40 \"b.cuh\" 1\nint z;\n";
    const std::string text = rewritten(source);
    CHECK(text.rfind("# 1 \"a.cu\"\n#pragma unroll\n", 0) == 0);
    CHECK(contains(text, "# 40 \"b.cuh\" 1\nint z;\n"));
}

TEST_CASE("inline PTX is a clear compile error, with a hint for cp.async", "[emu][rewrite]")
{
    const std::string copy = rewritten(
        "void f() { asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\\n\" ::\"r\"(dst), \"l\"(src), "
        "\"r\"(n)); }");
    CHECK(contains(copy,
                   "static_assert(sizeof(int) == 0, \"inline PTX cannot run on the CPU emulator: "
                   "cp.async.cg.shared.global [%0], [%1], 16, %2 (for cp.async use __pipeline_memcpy_async"));
    CHECK(contains(rewritten("void f() { asm(\"mma.sync.aligned.m16n8k8 ...\"); }"),
                   "static_assert(sizeof(int) == 0, \"inline PTX cannot run on the CPU emulator: mma.sync"));
    // Assembly in system headers (flag 3) is not the learner's: left alone.
    const std::string system = "# 1 \"/usr/include/x.h\" 1 3\nextern int f() __asm__ (\"\" \"g\");\n";
    CHECK(rewritten(system) == system);
}
