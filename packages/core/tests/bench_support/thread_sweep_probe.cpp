// A stand-in benchmark for the bench-support command line's thread sweep
// (tessera/bench/thread_sweep.hpp): it parses like every benchmark, prints
// the meta line (which names the count it was asked for) and one line with
// the counts it runs with, and exits with --fail-status when --threads equals
// --fail-at, so that the CLI tests can see a failing run's status come back.
#include <tessera/bench/cli.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core.hpp>

#include <cstdio>

int main(int argc, char* argv[]) {
  tessera::bench::Cli cli("thread_sweep_probe", "The thread sweep of the benchmarks' command line, as a probe.", 1);
  int threads = 1, fail_at = 0, fail_status = 3;
  cli.app().add_option("--threads", threads, "the probe's own thread count")->check(tessera::tools::integer(1, 4096));
  cli.app().add_option("--fail-at", fail_at, "exit with --fail-status when --threads is this");
  cli.app().add_option("--fail-status", fail_status, "the status of that failure");
  if (auto status = cli.parse(argc, argv)) return *status;
  tessera::ScopeGuard guard(cli.settings());
  const tessera::bench::Report report("thread_sweep_probe", cli.json);
  std::printf("probe run: --threads %d, Tessera host threads %d\n", threads,
              int(tessera::DefaultHostExecutionSpace().concurrency()));
  std::fflush(stdout);
  return threads == fail_at ? fail_status : 0;
}
