#pragma once
// A benchmark given a list of thread counts runs once per count:
//
//   bench_task_overhead --tessera-num-threads=1,2,4,8,16 --json
//   bench_cholesky --threads 1,2,4 --repeats 5
//
// Tessera's runtime takes its thread count once, at initialize, and so do
// the peers' runtimes (oneTBB's arena, OpenMP's pool, OpenBLAS): a clean
// measurement at another count needs a fresh process. So the program runs
// itself again (/proc/self/exe) once per count, one after another, with the
// list replaced by that count in every flag that carried it, and its output
// is the runs' outputs in order. Each run's JSON meta line names the count it
// was asked for ("threads_requested"), which ci/perf_report.py groups by, so
// one invocation yields the per-thread-count rows and the scaling figures on
// whatever machine it runs on.
//
// The flags swept: --threads N and --threads=N (a benchmark's own count: its
// peers' and, where the program says so, Tessera's) and
// --tessera-num-threads=N (Tessera's host back-ends). When several carry a
// list, the lists must be the same: they are stepped together. A program
// whose --threads already takes a list and loops over it in one process
// (the graph and miniTri benchmarks) keeps it: Cli::keep_thread_list().
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace tessera::bench {

// The environment variable a run's Report reads for its meta line.
inline constexpr const char* kThreadsRequestedVar = "TESSERA_BENCH_THREADS_REQUESTED";

namespace detail {

// "1,2,4" -> {1, 2, 4}; nullopt (and a message naming the flag) on anything
// but positive integers separated by single commas.
inline std::optional<std::vector<int>> parse_thread_list(const std::string& flag, const std::string& text) {
  std::vector<int> counts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    errno = 0;
    const long v = item.empty() ? 0 : std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || v < 1 || v > 4096) {
      std::fprintf(stderr, "%s: '%s' in '%s' is not a thread count (a list is N,N,... of 1..4096)\n", flag.c_str(),
                   item.c_str(), text.c_str());
      return std::nullopt;
    }
    counts.push_back(int(v));
    if (comma == std::string::npos) return counts;
    pos = comma + 1;
  }
}

// Where a thread-count value sits in argv: the argument index and, for the
// --flag=value form, the prefix to keep.
struct ThreadFlag {
  int index;
  std::string prefix;  // "--threads=" or "--tessera-num-threads="; empty when the value is its own argument
  std::string flag;
  std::string value;
};

inline std::vector<ThreadFlag> find_thread_flags(int argc, char** argv, bool own_threads_flag) {
  std::vector<ThreadFlag> found;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    for (const char* name : {"--threads", "--tessera-num-threads"}) {
      const std::string n = name;
      if (n == "--threads" && !own_threads_flag) continue;
      if (a.rfind(n + "=", 0) == 0) found.push_back({i, n + "=", n, a.substr(n.size() + 1)});
      // Only the benchmark's own --threads takes its value as the next
      // argument; the --tessera-* flags are always --flag=value.
      else if (a == n && n == "--threads" && i + 1 < argc) found.push_back({i + 1, "", n, argv[i + 1]});
    }
  }
  return found;
}

}  // namespace detail

// Call before anything else reads argv. Returns nullopt when argv names one
// thread count or none: the program goes on (with the count, if any, noted
// for the meta line). Otherwise it has run the program once per count and
// returns the exit status to end with: 0 when every run succeeded, else the
// first failing run's status (2 for a malformed list).
inline std::optional<int> sweep_thread_counts(int argc, char** argv, bool own_threads_flag = true) {
  const std::vector<detail::ThreadFlag> flags = detail::find_thread_flags(argc, argv, own_threads_flag);
  std::vector<int> counts;
  bool have_list = false;
  for (const auto& f : flags) {
    const bool is_list = f.value.find(',') != std::string::npos;
    auto parsed = detail::parse_thread_list(f.flag, f.value);
    if (!parsed) return 2;
    if (!is_list) {
      // A single count: noted for the meta line (the first flag's, unless a
      // list comes), and the program's own parser checks it as before.
      if (!have_list && counts.empty()) counts = *parsed;
      continue;
    }
    if (have_list && *parsed != counts) {
      std::fprintf(stderr, "%s: the thread lists differ ('%s'); give every flag the same list\n", f.flag.c_str(),
                   f.value.c_str());
      return 2;
    }
    counts = *parsed;
    have_list = true;
  }
  if (!have_list) {
    if (!counts.empty()) ::setenv(kThreadsRequestedVar, std::to_string(counts[0]).c_str(), 1);
    return std::nullopt;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  int status = 0;
  for (int count : counts) {
    std::vector<std::string> args(argv, argv + argc);
    for (const auto& f : flags)
      if (f.value.find(',') != std::string::npos) args[std::size_t(f.index)] = f.prefix + std::to_string(count);
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
      std::fprintf(stderr, "%s: fork failed for the run at %d threads: %s\n", argv[0], count, std::strerror(errno));
      return 1;
    }
    if (pid == 0) {
      ::setenv(kThreadsRequestedVar, std::to_string(count).c_str(), 1);
      ::execv("/proc/self/exe", cargs.data());
      std::fprintf(stderr, "%s: could not run itself again (/proc/self/exe): %s\n", argv[0], std::strerror(errno));
      std::_Exit(127);
    }
    int wstatus = 0;
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    const int run_status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    if (run_status != 0) {
      std::fprintf(stderr, "%s: the run at %d threads ended with status %d\n", argv[0], count, run_status);
      if (status == 0) status = run_status;
    }
  }
  return status;
}

// The count this run was asked for (the sweep's, or the single one given),
// or 0 when no thread flag was given.
inline int threads_requested() {
  const char* v = std::getenv(kThreadsRequestedVar);
  return v == nullptr ? 0 : std::atoi(v);
}

}  // namespace tessera::bench
