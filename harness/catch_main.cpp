// The graders' main(): Catch2's session, the same code for Catch2 v2 and v3.
#if WORKBOOK_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "harness/catch.hpp"

#if WORKBOOK_GRADER_MAIN
#include "harness/sanitizer_pass.hpp"
#endif

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char* argv[])
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);   // lines appear at once, also when piped to the runner
    // `grader --workbook-sanitize <chapter> 1,3,4`: the compute-sanitizer pass of several stages at
    // once (tools/workbook.py check, after grading them; see sanitizer_pass.hpp).
#if WORKBOOK_GRADER_MAIN
    if (argc == 4 && std::string(argv[1]) == "--workbook-sanitize") {
        std::vector<int> stages;
        std::istringstream list(argv[3]);
        std::string item;
        while (std::getline(list, item, ',')) stages.push_back(std::atoi(item.c_str()));
        return wb::sanitize_stages_command(std::atoi(argv[2]), stages);
    }
    // `grader --workbook-profile <stage> learner|previous|current`: only that launcher of the stage's
    // speed case runs, for Nsight Compute (tools/wbtools/profile.py; see wb::ProfileRequest).
    if (argc == 4 && std::string(argv[1]) == "--workbook-profile") {
        const std::string which = argv[3];
        if (which != "learner" && which != "previous" && which != "current") {
            std::fprintf(stderr, "--workbook-profile <stage> learner|previous|current\n");
            return 2;
        }
        wb::request_profile({std::atoi(argv[2]), which});
        std::string spec = "[stage" + std::string(argv[2]) + "]";
        char* args[] = {argv[0], spec.data(), nullptr};
        return Catch::Session().run(2, args);
    }
#endif
    return Catch::Session().run(argc, argv);
}
