#pragma once
// The command line every benchmark shares: tessera::tools::Command (CLI11;
// the --tessera-* flags taken out first; --help; a bad number, a value out
// of range or an unknown option is a usage error naming the flag and the
// value, exit status 2) with the two options every benchmark has, --repeats
// R and --json. A benchmark adds its own options to app() before parse():
//
//   tessera::bench::Cli cli("tessera_bench_stream", "STREAM copy, scale, add, triad ...", 20);
//   cli.app().add_option("--n", n, "elements per array")->check(tessera::tools::integer(1));
//   if (auto status = cli.parse(argc, argv)) return *status;
//   tessera::ScopeGuard guard(cli.settings());
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
  }
  int repeats;
  bool json = false;
};

}  // namespace tessera::bench
