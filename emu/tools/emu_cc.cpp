// emu-cc: the compiler launcher of the CPU backend (CMake's CXX_COMPILER_LAUNCHER).
//
// CMake runs `emu-cc <compiler> <flags...> -o file.o -c file.cu`. For a .cu file emu-cc
//   1. preprocesses it with the same flags (which also writes the dependency file),
//   2. rewrites launches and __shared__ declarations (emu/src/rewrite.cpp),
//   3. compiles the result as preprocessed C++; line markers keep every message on the learner's
//      own file and line.
// Any other source is compiled unchanged.
//
//   emu-cc --rewrite in out     rewrites one file (for tests and for looking at the result)
#include "rewrite.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

int run(const std::vector<std::string>& args)
{
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
        std::cerr << "emu-cc: cannot run " << args[0] << ": " << std::strerror(errno) << "\n";
        return 127;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool read_file(const std::string& path, std::string& text)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
    return true;
}

bool write_file(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
    return static_cast<bool>(out);
}

bool ends_with(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

int rewrite_file(const std::string& in, const std::string& out)
{
    std::string text;
    if (!read_file(in, text)) {
        std::cerr << "emu-cc: cannot read " << in << "\n";
        return 1;
    }
    const emu::rewrite::Result result = emu::rewrite::rewrite(text);
    for (const std::string& e : result.errors) std::cerr << e << "\n";
    if (!result.errors.empty()) return 1;
    if (!write_file(out, result.text)) {
        std::cerr << "emu-cc: cannot write " << out << "\n";
        return 1;
    }
    return 0;
}

}   // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 3 && args[0] == "--rewrite") return rewrite_file(args[1], args[2]);
    if (args.empty()) {
        std::cerr << "usage: emu-cc <compiler> <arguments...>   or   emu-cc --rewrite in out\n";
        return 2;
    }
    std::string source, object;
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == "-c") source = args[i + 1];
        if (args[i] == "-o") object = args[i + 1];
    }
    if (!ends_with(source, ".cu") || object.empty()) return run(args);

    const std::string preprocessed = object + ".emu.ii";
    const std::string rewritten = object + ".emu.rewritten.ii";

    // 1. Preprocess with every flag (dependency flags included), as C++.
    std::vector<std::string> pre;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "-c" || args[i] == "-o") {
            ++i;
            continue;
        }
        if (args[i] == "-x") {
            ++i;
            continue;
        }
        pre.push_back(args[i]);
    }
    pre.insert(pre.end(), {"-E", "-x", "c++", source, "-o", preprocessed});
    if (int rc = run(pre)) return rc;

    // 2. Rewrite.
    if (int rc = rewrite_file(preprocessed, rewritten)) return rc;

    // 3. Compile the preprocessed, rewritten text; dependency and include flags are done with.
    std::vector<std::string> cc;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-c" || a == "-o" || a == "-MT" || a == "-MF" || a == "-MQ" || a == "-x" || a == "-include") {
            ++i;
            continue;
        }
        if (a == "-MD" || a == "-MMD" || a == "-MP") continue;
        cc.push_back(a);
    }
    cc.insert(cc.end(), {"-x", "c++-cpp-output", "-c", rewritten, "-o", object});
    const int rc = run(cc);
    if (rc == 0) {
        std::remove(preprocessed.c_str());
        std::remove(rewritten.c_str());
    }
    return rc;
}
