#pragma once
// The command line every benchmark shares: tessera::tools::Command (CLI11;
// the --tessera-* flags taken out first; --help; a bad number, a value out
// of range or an unknown option is a usage error naming the flag and the
// value, exit status 2) with the two options every benchmark has, --repeats
// R and --json, and a list of thread counts (--threads 1,2,4 or
// --tessera-num-threads=1,2,4) run as one run per count (thread_sweep.hpp).
// A benchmark adds its own options to app() before parse():
//
//   tessera::bench::Cli cli("tessera_bench_stream", "STREAM copy, scale, add, triad ...", 20);
//   cli.app().add_option("--n", n, "elements per array")->check(tessera::tools::integer(1));
//   if (auto status = cli.parse(argc, argv)) return *status;
//   tessera::ScopeGuard guard(cli.settings());
#include <tessera/bench/thread_sweep.hpp>
#include <tessera/tools/cli.hpp>

#include <string>

namespace tessera::bench {

class Cli : public tessera::tools::Command {
 public:
  Cli(std::string program, std::string description, int default_repeats)
      : Command(std::move(program), std::move(description)), repeats(default_repeats) {
    app()
        .add_option("--repeats", repeats, "timed repetitions of each case (contenders interleaved within each)")
        ->check(tessera::tools::integer(1, 1000000))
        ->capture_default_str();
    app().add_flag("--json", json, "JSON lines (a meta line, then one line per row) instead of the table");
    app().footer(app().get_footer() +
                 "\n\nA list of thread counts (--threads 1,2,4 or --tessera-num-threads=1,2,4) runs the benchmark once per\n"
        "count, each in a fresh process, the outputs one after another.");
  }
  // A list of thread counts first runs the program once per count and
  // returns the status to exit with; then the --tessera-* flags and the
  // program's own options, as tools::Command::parse.
  std::optional<int> parse(int& argc, char** argv) {
    if (auto status = sweep_thread_counts(argc, argv, !m_keep_thread_list)) return status;
    return Command::parse(argc, argv);
  }
  // The program's --threads takes a list and loops over it itself, in one
  // process; only --tessera-num-threads lists are swept.
  void keep_thread_list() { m_keep_thread_list = true; }
  int repeats;
  bool json = false;

 private:
  bool m_keep_thread_list = false;
};

}  // namespace tessera::bench
