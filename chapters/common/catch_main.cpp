// The graders' main(): Catch2's session, the same code for Catch2 v2 and v3.
#if WORKBOOK_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "common/catch.hpp"

#include <cstdio>

int main(int argc, char* argv[])
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);   // lines appear at once, also when piped to the runner
    return Catch::Session().run(argc, argv);
}
