// See rewrite.hpp. A single left-to-right scan that understands just enough C++ to be safe:
// comments, string and character literals (raw strings and digit separators included),
// preprocessor lines, and which braces open a namespace. Rewrites are collected as edits of the
// input and applied at the end; each edit keeps the number of newlines it replaces.
#include "rewrite.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <vector>

namespace emu::rewrite {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

struct Edit {
    std::size_t begin;
    std::size_t end;
    std::string text;
};

/// A position in the original file, read from line markers (`# 12 "file.cu"`).
struct Marker {
    std::size_t position;   // first character of the line the marker describes
    std::string file;
    long line;
    bool system;   // flag 3: a system header (its inline assembly is left alone)
};

class Rewriter {
public:
    explicit Rewriter(const std::string& s) : s_(s) {}

    Result run()
    {
        std::size_t i = 0;
        bool line_start = true;
        while (i < s_.size()) {
            const char c = s_[i];
            if (c == '\n') {
                line_start = true;
                ++i;
                continue;
            }
            if (line_start && (c == ' ' || c == '\t')) {
                ++i;
                continue;
            }
            if (line_start && c == '#') {
                i = directive(i);
                continue;
            }
            line_start = false;
            if (c == '/' && at(i + 1) == '/') {
                i = s_.find('\n', i);
                if (i == std::string::npos) i = s_.size();
                continue;
            }
            if (c == '/' && at(i + 1) == '*') {
                const std::size_t end = s_.find("*/", i + 2);
                i = end == std::string::npos ? s_.size() : end + 2;
                continue;
            }
            if (c == '"') {
                i = skip_string(i);
                continue;
            }
            if (c == '\'') {
                i = skip_char(i);
                continue;
            }
            if (c == '{') {
                braces_.push_back(opens_namespace(i));
                ++i;
                continue;
            }
            if (c == '}') {
                if (!braces_.empty()) braces_.pop_back();
                ++i;
                continue;
            }
            if (c == '<' && s_.compare(i, 3, "<<<") == 0) {
                i = launch(i);
                continue;
            }
            if (ident_char(c)) {
                std::size_t end = i;
                while (end < s_.size() && ident_char(s_[end])) ++end;
                const std::string word = s_.substr(i, end - i);
                if (word == "__shared__" && (i == 0 || !ident_char(s_[i - 1]))) {
                    i = shared(i, end);
                } else if ((word == "asm" || word == "__asm__" || word == "__asm") &&
                           (i == 0 || !ident_char(s_[i - 1]))) {
                    i = inline_assembly(i, end);
                } else {
                    i = end;
                }
                continue;
            }
            ++i;
        }
        return finish();
    }

private:
    char at(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

    // ---- lexical skipping ------------------------------------------------------------------------

    std::size_t directive(std::size_t i)
    {
        // Line markers look like `# 12 "file" flags` (or `#line 12 "file"`).
        std::size_t end = i;
        for (;;) {
            end = s_.find('\n', end);
            if (end == std::string::npos) {
                end = s_.size();
                break;
            }
            if (end > 0 && s_[end - 1] == '\\') {
                ++end;
                continue;
            }
            break;
        }
        std::size_t p = i + 1;
        while (p < end && (s_[p] == ' ' || s_[p] == '\t')) ++p;
        if (s_.compare(p, 4, "line") == 0) p += 4;
        while (p < end && (s_[p] == ' ' || s_[p] == '\t')) ++p;
        if (p < end && std::isdigit(static_cast<unsigned char>(s_[p]))) {
            long line = 0;
            while (p < end && std::isdigit(static_cast<unsigned char>(s_[p]))) line = line * 10 + (s_[p++] - '0');
            while (p < end && s_[p] == ' ') ++p;
            std::string file = markers_.empty() ? "<input>" : markers_.back().file;
            bool system = false;
            if (p < end && s_[p] == '"') {
                const std::size_t close = s_.find('"', p + 1);
                if (close != std::string::npos && close < end) {
                    file = s_.substr(p + 1, close - p - 1);
                    const std::string flags = s_.substr(close + 1, end - close - 1);
                    system = flags.find('3') != std::string::npos;
                }
            }
            markers_.push_back({std::min(end + 1, s_.size()), file, line, system});
        }
        return end;
    }

    std::size_t skip_string(std::size_t i)
    {
        // Raw string: the token before the quote ends in R (R, u8R, uR, UR, LR).
        std::size_t t = i;
        while (t > 0 && ident_char(s_[t - 1])) --t;
        const std::string prefix = s_.substr(t, i - t);
        if (prefix == "R" || prefix == "u8R" || prefix == "uR" || prefix == "UR" || prefix == "LR") {
            const std::size_t open = s_.find('(', i);
            if (open == std::string::npos) return s_.size();
            const std::string close = ")" + s_.substr(i + 1, open - i - 1) + "\"";
            const std::size_t end = s_.find(close, open);
            return end == std::string::npos ? s_.size() : end + close.size();
        }
        for (std::size_t p = i + 1; p < s_.size(); ++p) {
            if (s_[p] == '\\') {
                ++p;
            } else if (s_[p] == '"' || s_[p] == '\n') {
                return p + 1;
            }
        }
        return s_.size();
    }

    std::size_t skip_char(std::size_t i)
    {
        // A quote inside a number is a digit separator (1'000'000), not a character literal.
        std::size_t t = i;
        while (t > 0 && (ident_char(s_[t - 1]) || s_[t - 1] == '.')) --t;
        if (t < i && std::isdigit(static_cast<unsigned char>(s_[t]))) return i + 1;
        for (std::size_t p = i + 1; p < s_.size(); ++p) {
            if (s_[p] == '\\') {
                ++p;
            } else if (s_[p] == '\'' || s_[p] == '\n') {
                return p + 1;
            }
        }
        return s_.size();
    }

    /// Skips whatever starts at @p i if it is a literal or comment; returns the next position.
    std::size_t skip_any(std::size_t i)
    {
        if (s_[i] == '"') return skip_string(i);
        if (s_[i] == '\'') return skip_char(i);
        if (s_[i] == '/' && at(i + 1) == '/') {
            const std::size_t end = s_.find('\n', i);
            return end == std::string::npos ? s_.size() : end;
        }
        if (s_[i] == '/' && at(i + 1) == '*') {
            const std::size_t end = s_.find("*/", i + 2);
            return end == std::string::npos ? s_.size() : end + 2;
        }
        return i + 1;
    }

    /// The position after the bracket that closes the one at @p open (any of ( [ {); npos if none.
    std::size_t matching(std::size_t open)
    {
        int depth = 0;
        for (std::size_t p = open; p < s_.size();) {
            const char c = s_[p];
            if (c == '(' || c == '[' || c == '{') {
                ++depth;
            } else if (c == ')' || c == ']' || c == '}') {
                if (--depth == 0) return p + 1;
            } else if (c == '"' || c == '\'' || c == '/') {
                p = skip_any(p);
                continue;
            }
            ++p;
        }
        return std::string::npos;
    }

    // ---- scanning backwards ----------------------------------------------------------------------

    std::size_t back_space(std::size_t p) const
    {
        while (p > 0 && space(s_[p - 1])) --p;
        return p;
    }
    /// With s_[p-1] a closing bracket ) ] or >, the position of its opening partner (or npos).
    std::size_t back_group(std::size_t p) const
    {
        const char close = s_[p - 1];
        const char open = close == ')' ? '(' : (close == ']' ? '[' : '<');
        int depth = 0;
        int parens = 0;
        while (p > 0) {
            const char c = s_[--p];
            if (close == '>') {
                // Angle brackets: ignore what is inside parentheses (comparisons, shifts).
                if (c == ')') ++parens;
                if (c == '(') --parens;
                if (parens > 0) continue;
            }
            if (c == close) ++depth;
            if (c == open && --depth == 0) return p;
        }
        return std::string::npos;
    }
    std::size_t back_ident(std::size_t p) const
    {
        while (p > 0 && ident_char(s_[p - 1])) --p;
        return p;
    }

    /// Does the brace at @p i open a namespace (or an extern "C" block)?
    bool opens_namespace(std::size_t i) const
    {
        std::size_t p = back_space(i);
        // Attributes between the name and the brace: namespace std __attribute__((...)) {
        if (p > 0 && s_[p - 1] == ')') {
            const std::size_t open = back_group(p);
            if (open == std::string::npos) return false;
            const std::size_t q = back_space(open);
            const std::size_t word = back_ident(q);
            if (s_.compare(word, q - word, "__attribute__") != 0) return false;
            p = back_space(word);
        }
        if (p > 0 && s_[p - 1] == '"') {   // extern "C" {
            const std::size_t quote = s_.rfind('"', p - 2);
            if (quote == std::string::npos) return false;
            const std::size_t q = back_space(quote);
            const std::size_t word = back_ident(q);
            return s_.compare(word, q - word, "extern") == 0;
        }
        // Optional name (possibly nested: a::b), then the keyword.
        for (;;) {
            const std::size_t word = back_ident(p);
            if (word == p) break;
            if (s_.compare(word, p - word, "namespace") == 0) return true;
            p = back_space(word);
            if (p >= 2 && s_[p - 1] == ':' && s_[p - 2] == ':') {
                p = back_space(p - 2);
                continue;
            }
            const std::size_t keyword = back_ident(p);
            return s_.compare(keyword, p - keyword, "namespace") == 0;
        }
        return false;
    }

    bool at_namespace_scope() const
    {
        return std::all_of(braces_.begin(), braces_.end(), [](bool is_namespace) { return is_namespace; });
    }

    // ---- launches --------------------------------------------------------------------------------

    std::size_t launch(std::size_t i)
    {
        // The kernel expression before <<<: name, ns::name, name<template args>, or (expression).
        std::size_t start = std::string::npos;
        std::size_t p = back_space(i);
        if (p > 0 && s_[p - 1] == ')') {
            start = back_group(p);
        } else {
            for (;;) {
                if (p > 0 && s_[p - 1] == '>') {
                    const std::size_t open = back_group(p);
                    if (open == std::string::npos) break;
                    p = back_space(open);
                }
                const std::size_t word = back_ident(p);
                if (word == p || std::isdigit(static_cast<unsigned char>(s_[word]))) break;
                start = word;
                const std::size_t q = back_space(word);
                if (q >= 2 && s_[q - 1] == ':' && s_[q - 2] == ':') {
                    start = q - 2;
                    p = back_space(q - 2);
                    if (p > 0 && (ident_char(s_[p - 1]) || s_[p - 1] == '>')) continue;
                }
                break;
            }
        }
        if (start == std::string::npos) {
            error(i, "cannot find the kernel before <<<: write `kernel<<<grid, block>>>(args)` with the kernel's name");
            return i + 3;
        }
        // The configuration, up to >>> outside any brackets.
        std::size_t close = std::string::npos;
        int depth = 0;
        for (std::size_t q = i + 3; q < s_.size();) {
            const char c = s_[q];
            if (c == '(' || c == '[' || c == '{') ++depth;
            if (c == ')' || c == ']' || c == '}') --depth;
            if (depth < 0 || c == ';') break;
            if (depth == 0 && c == '>' && s_.compare(q, 3, ">>>") == 0) {
                close = q;
                break;
            }
            if (c == '"' || c == '\'' || c == '/') {
                q = skip_any(q);
                continue;
            }
            ++q;
        }
        if (close == std::string::npos) {
            error(i, "a kernel launch <<< without its closing >>>");
            return i + 3;
        }
        std::size_t paren = close + 3;
        while (paren < s_.size() && space(s_[paren])) ++paren;
        if (at(paren) != '(') {
            error(close, "a kernel launch needs its arguments after >>>, e.g. kernel<<<grid, block>>>(a, b)");
            return close + 3;
        }
        const std::size_t args_end = matching(paren);
        if (args_end == std::string::npos) {
            error(paren, "unbalanced parentheses in the arguments of a kernel launch");
            return paren + 1;
        }
        bool no_args = true;
        for (std::size_t q = paren + 1; q + 1 < args_end; ++q) no_args = no_args && space(s_[q]);
        std::string name;
        for (std::size_t q = start; q < back_space(i); ++q) {
            const char c = s_[q];
            if (space(c)) {
                if (!name.empty() && name.back() != ' ') name += ' ';
            } else if (c == '"' || c == '\\') {
                name += '\\';
                name += c;
            } else {
                name += c;
            }
        }
        edits_.push_back({start, start,
                          "::emu::launch(::emu::KernelSite{\"" + name +
                              "\", __builtin_FILE(), __builtin_LINE()}, [=](auto&... emu_a_) { "});
        edits_.push_back({i, i + 3, "(emu_a_...); }, ::emu::config("});
        edits_.push_back({close, close + 3, ")"});
        edits_.push_back({paren, paren + 1, no_args ? " " : ", "});
        return paren + 1;   // go on inside the arguments (they may hold lambdas with braces)
    }

    // ---- __shared__ declarations -----------------------------------------------------------------

    struct Token {
        std::string text;
        bool word;
    };

    std::vector<Token> tokens(std::size_t begin, std::size_t end) const
    {
        std::vector<Token> out;
        for (std::size_t p = begin; p < end;) {
            const char c = s_[p];
            if (space(c)) {
                ++p;
            } else if (ident_char(c)) {
                std::size_t q = p;
                while (q < end && ident_char(s_[q])) ++q;
                out.push_back({s_.substr(p, q - p), true});
                p = q;
            } else if (c == ':' && p + 1 < end && s_[p + 1] == ':') {
                out.push_back({"::", false});
                p += 2;
            } else {
                out.push_back({std::string(1, c), false});
                ++p;
            }
        }
        return out;
    }

    static std::string join(const std::vector<Token>& t, std::size_t begin, std::size_t end)
    {
        std::string text;
        for (std::size_t k = begin; k < end; ++k) {
            if (!text.empty()) text += ' ';
            text += t[k].text;
        }
        return text;
    }

    /// The token index after the bracket group that starts at @p k (which must be ( [ or <).
    static std::size_t group_end(const std::vector<Token>& t, std::size_t k)
    {
        const std::string open = t[k].text;
        const std::string close = open == "(" ? ")" : (open == "[" ? "]" : ">");
        int depth = 0;
        for (std::size_t q = k; q < t.size(); ++q) {
            if (t[q].text == open) ++depth;
            if (t[q].text == close && --depth == 0) return q + 1;
        }
        return t.size();
    }

    std::size_t shared(std::size_t keyword, std::size_t keyword_end)
    {
        // Back to the start of the declaration: over extern, static, volatile, const, alignas(...).
        std::size_t begin = keyword;
        for (;;) {
            std::size_t p = back_space(begin);
            if (p > 0 && s_[p - 1] == ')') {
                const std::size_t open = back_group(p);
                if (open == std::string::npos) break;
                const std::size_t q = back_space(open);
                const std::size_t word = back_ident(q);
                const std::string w = s_.substr(word, q - word);
                if (w != "alignas" && w != "__attribute__") break;
                begin = word;
                continue;
            }
            const std::size_t word = back_ident(p);
            const std::string w = s_.substr(word, p - word);
            if (w == "extern" || w == "static" || w == "volatile" || w == "const") {
                begin = word;
                continue;
            }
            break;
        }
        // Forward to the semicolon.
        std::size_t end = std::string::npos;
        for (std::size_t p = keyword_end; p < s_.size();) {
            const char c = s_[p];
            if (c == ';') {
                end = p;
                break;
            }
            if (c == '{' || c == '}') break;
            if (c == '(' || c == '[') {
                const std::size_t after = matching(p);
                if (after == std::string::npos) break;
                p = after;
                continue;
            }
            if (c == '"' || c == '\'' || c == '/') {
                p = skip_any(p);
                continue;
            }
            ++p;
        }
        if (end == std::string::npos) {
            error(keyword, "cannot read this __shared__ declaration: write it as `__shared__ float name[N];`");
            return keyword_end;
        }
        const std::vector<Token> t = tokens(begin, end);
        bool is_extern = false;
        std::string align = "0";
        std::vector<Token> rest;
        for (std::size_t k = 0; k < t.size();) {
            const std::string& w = t[k].text;
            if (w == "extern") {
                is_extern = true;
                ++k;
            } else if (w == "static" || w == "__shared__") {
                ++k;
            } else if ((w == "alignas" || w == "__attribute__") && k + 1 < t.size() && t[k + 1].text == "(") {
                const std::size_t after = group_end(t, k + 1);
                if (w == "alignas") {
                    align = "(" + join(t, k + 2, after - 1) + ")";
                } else {
                    for (std::size_t q = k + 1; q + 2 < after; ++q) {
                        if ((t[q].text == "aligned" || t[q].text == "__aligned__") && t[q + 1].text == "(") {
                            align = "(" + join(t, q + 2, group_end(t, q + 1) - 1) + ")";
                        }
                    }
                }
                k = after;
            } else {
                rest.push_back(t[k]);
                ++k;
            }
        }
        // Split the declarators at top-level commas.
        std::vector<std::pair<std::size_t, std::size_t>> pieces;
        int depth = 0;
        std::size_t piece_start = 0;
        for (std::size_t k = 0; k < rest.size(); ++k) {
            const std::string& w = rest[k].text;
            if (w == "(" || w == "[" || w == "<" || w == "{") ++depth;
            if (w == ")" || w == "]" || w == ">" || w == "}") --depth;
            if (w == "," && depth == 0) {
                pieces.push_back({piece_start, k});
                piece_start = k + 1;
            }
        }
        pieces.push_back({piece_start, rest.size()});

        std::string base;
        std::string replacement;
        for (std::size_t n = 0; n < pieces.size(); ++n) {
            auto [first, last] = pieces[n];
            // Trailing [dims], then the name, then * & const volatile that belong to the declarator.
            std::size_t dims = last;
            while (dims > first && rest[dims - 1].text == "]") {
                int d = 0;
                std::size_t q = dims;
                while (q > first) {
                    --q;
                    if (rest[q].text == "]") ++d;
                    if (rest[q].text == "[" && --d == 0) break;
                }
                dims = q;
            }
            if (dims == first || !rest[dims - 1].word) {
                error(keyword, "cannot find the name in this __shared__ declaration");
                return end + 1;
            }
            const std::size_t name = dims - 1;
            std::size_t pointer = name;
            while (pointer > first) {
                const std::string& w = rest[pointer - 1].text;
                if (w == "*" || w == "&" || w == "const" || w == "volatile" || w == "__restrict__") {
                    --pointer;
                } else {
                    break;
                }
            }
            while (pointer < name && rest[pointer].text != "*" && rest[pointer].text != "&") ++pointer;
            if (n == 0) {
                base = join(rest, first, pointer);
                if (base.empty()) {
                    error(keyword, "a __shared__ declaration needs a type");
                    return end + 1;
                }
            }
            const std::string ptr = join(rest, pointer, name);
            const std::string& id = rest[name].text;
            std::string dim_text;
            std::size_t first_dim_end = dims;
            for (std::size_t q = dims; q < last; ++q) {
                dim_text += rest[q].text;
                if (first_dim_end == dims && rest[q].text == "]") first_dim_end = q + 1;
            }
            if (at_namespace_scope()) {
                replacement += "static_assert(sizeof(" + base +
                               ") == 0, \"the CPU backend supports __shared__ "
                               "variables inside functions only: declare `" +
                               id + "` inside the kernel\");";
                continue;
            }
            if (is_extern) {
                std::string element = base + (ptr.empty() ? "" : " " + ptr);
                for (std::size_t q = first_dim_end; q < last; ++q) element += rest[q].text;
                replacement += "auto const " + id + " = ::emu::shared_dynamic<" + element + ">(" + align +
                               ", __builtin_FILE(), __builtin_LINE());";
            } else {
                const std::string slot = "emu_shared_slot_" + std::to_string(++slots_);
                replacement += "static thread_local ::emu::detail::SharedSlot " + slot + "; auto& " + id +
                               " = ::emu::shared_static<" + base + (ptr.empty() ? "" : " " + ptr) + dim_text + ">(" +
                               slot + ", " + align + ", \"" + id + "\", __builtin_FILE(), __builtin_LINE());";
            }
            if (n + 1 < pieces.size()) replacement += ' ';
        }
        replacement +=
            std::string(static_cast<std::size_t>(std::count(s_.begin() + begin, s_.begin() + end, '\n')), '\n');
        edits_.push_back({begin, end + 1, replacement});
        return end + 1;
    }

    // ---- inline PTX -------------------------------------------------------------------------------

    /// The text between the quotes of the string literals starting at @p p (concatenated), with the
    /// position after them.
    std::string literals(std::size_t& p, std::size_t end) const
    {
        std::string text;
        for (;;) {
            while (p < end && space(s_[p])) ++p;
            if (p >= end || s_[p] != '"') return text;
            for (++p; p < end && s_[p] != '"'; ++p) {
                if (s_[p] == '\\' && p + 1 < end) {
                    ++p;
                    text += s_[p] == 'n' ? '\n' : (s_[p] == 't' ? '\t' : s_[p]);
                } else {
                    text += s_[p];
                }
            }
            ++p;
        }
    }

    /// Inline PTX in the learner's files becomes a compile error that says so (cp.async has the
    /// pipeline primitives of <cuda_pipeline.h>, which the emulator provides); assembly in system
    /// headers is left alone.
    std::size_t inline_assembly(std::size_t keyword, std::size_t keyword_end)
    {
        std::size_t p = keyword_end;
        for (;;) {
            while (p < s_.size() && space(s_[p])) ++p;
            std::size_t q = p;
            while (q < s_.size() && ident_char(s_[q])) ++q;
            const std::string w = s_.substr(p, q - p);
            if (w == "volatile" || w == "__volatile__" || w == "inline" || w == "goto") {
                p = q;
                continue;
            }
            break;
        }
        if (at(p) != '(') return keyword_end;
        const std::size_t close = matching(p);
        if (close == std::string::npos) return keyword_end;
        if (in_system_header(keyword)) return close;
        std::size_t after_open = p + 1;
        std::string shown = literals(after_open, close - 1);
        const std::size_t first = shown.find_first_not_of(" \t\n");
        shown = first == std::string::npos ? std::string() : shown.substr(first);
        shown = shown.substr(0, shown.find_first_of("\n;"));
        for (char& c : shown) {
            if (c == '"' || c == '\\') c = '\'';
        }
        std::string hint;
        if (shown.rfind("cp.async", 0) == 0) {
            hint =
                " (for cp.async use __pipeline_memcpy_async, __pipeline_commit and __pipeline_wait_prior from "
                "<cuda_pipeline.h>: the same instructions)";
        }
        std::string call =
            "static_assert(sizeof(int) == 0, \"inline PTX cannot run on the CPU emulator: " + shown + hint + "\")";
        call += std::string(static_cast<std::size_t>(std::count(s_.begin() + keyword, s_.begin() + close, '\n')), '\n');
        edits_.push_back({keyword, close, call});
        return close;
    }

    bool in_system_header(std::size_t position) const
    {
        bool system = false;
        for (const Marker& m : markers_) {
            if (m.position > position) break;
            system = m.system;
        }
        return system;
    }

    // ---- errors and output -----------------------------------------------------------------------

    void error(std::size_t position, const std::string& message)
    {
        std::string file = "<input>";
        long line = 1;
        std::size_t from = 0;
        for (const Marker& m : markers_) {
            if (m.position > position) break;
            file = m.file;
            line = m.line;
            from = m.position;
        }
        line += static_cast<long>(std::count(s_.begin() + from, s_.begin() + position, '\n'));
        errors_.push_back(file + ":" + std::to_string(line) + ": error: " + message);
    }

    Result finish()
    {
        std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
        Result result;
        std::size_t copied = 0;
        for (const Edit& e : edits_) {
            if (e.begin < copied) continue;   // overlapping edits cannot happen; ignore defensively
            result.text.append(s_, copied, e.begin - copied);
            result.text += e.text;
            copied = e.end;
        }
        result.text.append(s_, copied, std::string::npos);
        result.errors = errors_;
        return result;
    }

    const std::string& s_;
    std::vector<bool> braces_;   // true for a brace that opens a namespace
    std::vector<Edit> edits_;
    std::vector<Marker> markers_;
    std::vector<std::string> errors_;
    int slots_ = 0;
};

}   // namespace

Result rewrite(const std::string& source) { return Rewriter(source).run(); }

}   // namespace emu::rewrite
