// Command line and checking helpers shared by the demo's benchmark executables.
//
// Each executable takes Google Benchmark's own flags, then its parameters as
// positional integers (the space file's arg_spec, in order). Benchmarks are
// registered with ArgNames, so a run is named e.g. BM_matmul/n:256/block:32
// and a harness can check the names against its arg_spec.
//
// `<exe> --describe` prints one JSON line and exits 0 without measuring anything:
//   {"format": "benchspace-describe", "version": 1, "args": ["n", "block"], "rows": ["BM_matmul"]}
// the positional argument names in order and the benchmark names each run can print
// (benchspace's --validate checks them against the space's arg_spec and row).
#pragma once

#include <benchmark/benchmark.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace benchspace_demo::bench {

// One positional parameter with its legal range.
struct Param {
    const char* name;
    int64_t lo;
    int64_t hi;
};

inline const char* program_name(const char* argv0) {
    const char* slash = std::strrchr(argv0, '/');
    return slash != nullptr ? slash + 1 : argv0;
}

[[noreturn]] inline void usage_error(const char* exe, const std::string& message,
                                     const std::vector<Param>& params) {
    std::string names;
    for (const Param& p : params) {
        names += names.empty() ? "" : " ";
        names += p.name;
    }
    std::fprintf(stderr, "error: %s: %s (usage: %s [--benchmark_...] %s)\n", exe,
                 message.c_str(), exe, names.c_str());
    std::exit(2);
}

// Reads the positional integers left in argv after benchmark::Initialize;
// returns an empty vector when none were given, exits 2 with one line on
// stderr for a wrong count, an unknown flag, or a bad or out-of-range value.
inline std::vector<int64_t> positional_args(int argc, char** argv,
                                            const std::vector<Param>& params) {
    const char* exe = program_name(argv[0]);
    std::vector<int64_t> values;
    for (int i = 1; i < argc; ++i) {
        const char* text = argv[i];
        if (std::strncmp(text, "--", 2) == 0) {
            usage_error(exe, std::string("unknown flag '") + text + "'", params);
        }
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0') {
            usage_error(exe, std::string("argument '") + text + "' is not an integer", params);
        }
        values.push_back(value);
    }
    if (values.empty()) return values;
    if (values.size() != params.size()) {
        usage_error(exe,
                    "expected " + std::to_string(params.size()) + " positional arguments, got " +
                        std::to_string(values.size()),
                    params);
    }
    for (size_t i = 0; i < params.size(); ++i) {
        if (values[i] < params[i].lo || values[i] > params[i].hi) {
            usage_error(exe,
                        std::string(params[i].name) + "=" + std::to_string(values[i]) +
                            " is outside [" + std::to_string(params[i].lo) + ", " +
                            std::to_string(params[i].hi) + "]",
                        params);
        }
    }
    return values;
}

// Answers `--describe` (anywhere in argv) with the executable's argument names and row names as
// one JSON line, then exits 0; returns without doing anything otherwise. Names are plain
// identifiers, so no JSON escaping is needed.
inline void describe_if_asked(int argc, char** argv, const std::vector<Param>& params,
                              const std::vector<const char*>& rows) {
    bool asked = false;
    for (int i = 1; i < argc; ++i) asked = asked || std::strcmp(argv[i], "--describe") == 0;
    if (!asked) return;
    std::string line = "{\"format\": \"benchspace-describe\", \"version\": 1, \"args\": [";
    for (size_t i = 0; i < params.size(); ++i) {
        line += (i ? ", \"" : "\"") + std::string(params[i].name) + "\"";
    }
    line += "], \"rows\": [";
    for (size_t i = 0; i < rows.size(); ++i) {
        line += (i ? ", \"" : "\"") + std::string(rows[i]) + "\"";
    }
    line += "]}";
    std::printf("%s\n", line.c_str());
    std::exit(0);
}

// The argument names Google Benchmark prints in run names.
inline std::vector<std::string> arg_names(const std::vector<Param>& params) {
    std::vector<std::string> names;
    for (const Param& p : params) names.emplace_back(p.name);
    return names;
}

// Registers `fn` once per argument list with the demo's common settings.
template <typename Fn>
void register_runs(const char* name, Fn fn, const std::vector<Param>& params,
                   const std::vector<std::vector<int64_t>>& runs) {
    for (const std::vector<int64_t>& args : runs) {
        benchmark::RegisterBenchmark(name, fn)
            ->Args(args)
            ->ArgNames(arg_names(params))
            ->Unit(benchmark::kMicrosecond);
    }
}

// A wrong result is a failed run, never a timing: say what and stop.
[[noreturn]] inline void wrong_result(const std::string& what) {
    std::fprintf(stderr, "error: wrong result: %s\n", what.c_str());
    std::exit(1);
}

// Deterministic uniform values in [-1, 1).
inline std::vector<double> random_values(int64_t count, uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> v(static_cast<size_t>(count));
    for (double& x : v) x = dist(gen);
    return v;
}

// Runs every registered benchmark and returns the process exit status.
inline int run_benchmarks() {
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

}  // namespace benchspace_demo::bench
