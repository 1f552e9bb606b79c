// miniTri's direct method on a GPU against the same method on the host's
// cores, on the same graphs (gpu-graph part 4). Built when the Cuda back-end
// is on (compiled by nvcc); ci/gpu.sh packs it and .gpu/run.sh runs it.
//
//   tessera_bench_minitri_cuda [--graphs a,b,...] [--repeats N] [--json]
//
// Contenders, timed in turn within each repeat (tessera::bench::
// run_interleaved): `direct` on the default host space with every core
// (Threads in the GPU pack: the host method on the GPU machine's 16 cores;
// Serial, one core, in a build without a parallel host space), and `direct`
// on Cuda. The ratio is the host's time / the GPU's (the speedup). A run is
// the whole method on a graph already in the space's memory: orientation,
// triangle enumeration, per-vertex and per-edge triangle degrees and the
// k-count histogram, copied to the host. The GPU's histogram and triangle
// count must equal the host's exactly (integers) before anything is timed.
// Without a usable GPU it says why and exits 0.
#include <tessera/analytics.hpp>

#include "graph_spec.hpp"

#include <tessera/bench/cli.hpp>
#include <tessera/bench/cuda_device.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace ta = tessera::analytics;
namespace tg = tessera::graph;

namespace {

constexpr const char* kBenchName = "minitri_cuda";
using Host = tessera::DefaultHostExecutionSpace;

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "tessera_bench_minitri_cuda: %s\n", msg.c_str());
  std::exit(3);
}

void bench_graph(const tessera::bench::Report& report, bool json, const std::string& spec, int repeats) {
  using HostGraph = tg::compressed_sparse_row_graph<tg::undirectedS, Host>;
  using DeviceGraph = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::Cuda>;
  const std::string path = tessera::bench::minitri_graph_path(spec);
  const auto edges = ta::load_edges(path);
  const HostGraph hg = ta::build_simple<HostGraph>(edges);
  const DeviceGraph dg = ta::build_simple<DeviceGraph>(edges);
  ta::minitri_options direct;
  direct.method = ta::method::direct;

  const auto want = ta::minitri(hg, direct);
  const auto got = ta::minitri(dg, direct);
  if (got.triangles != want.triangles || got.histogram != want.histogram)
    die(spec + ": the GPU's histogram (" + std::to_string(got.triangles) + " triangles) differs from the host's (" +
        std::to_string(want.triangles) + ")");
  if (!json)
    std::printf("\n### %s: %lld vertices, %lld edges, %lld triangles, largest k %d; peak memory %.1f MiB host, "
                "%.1f MiB device\n",
                spec.c_str(), (long long)hg.num_vertices(), (long long)hg.num_edges(), (long long)want.triangles,
                want.max_k(), double(want.peak_bytes) / 1048576.0, double(got.peak_bytes) / 1048576.0);

  std::vector<tessera::bench::Contender> cs;
  cs.push_back({std::string("tessera direct (") + Host::name() + ")", [&hg, direct] { (void)ta::minitri(hg, direct); },
                [] { return Host().concurrency(); }});
  cs.push_back({"tessera direct (Cuda)",
                [&dg, direct] {
                  (void)ta::minitri(dg, direct);
                  tessera::Cuda().fence();  // the wall clock covers the device's work
                },
                [] { return 1; }, 0});
  tessera::bench::InterleaveOptions opt;
  opt.repeats = repeats;
  report.add(spec, tessera::bench::Measure{"s", 1, 1, true, true}, cs, tessera::bench::run_interleaved(cs, opt));
}

}  // namespace

int main(int argc, char* argv[]) {
  std::vector<std::string> graphs{"facebook_combined.txt", "kron:16:16", "kron:18:16"};
  tessera::bench::Cli cli("tessera_bench_minitri_cuda",
                          "miniTri's direct method on a GPU against the same method on the host's cores.", 5);
  cli.app()
      .add_option("--graphs", graphs, "graphs, comma-separated: files of examples/data/graphs, paths (with a /) or kron:SCALE:EDGEFACTOR")
      ->delimiter(',');
  if (auto status = cli.parse(argc, argv)) return *status;
  tessera::ScopeGuard guard(cli.settings());
  if (tessera::bench::say_no_cuda_device(kBenchName, cli.json)) return 0;
  const tessera::bench::Report report(kBenchName, cli.json);
  tessera::bench::note_cuda_device(report, cli.json, cli.repeats);
  // A graph that cannot be read ends the run with the reader's message (file and line).
  try {
    for (const auto& spec : graphs) bench_graph(report, cli.json, spec, cli.repeats);
  } catch (const std::exception& e) {
    die(e.what());
  }
  return 0;
}
