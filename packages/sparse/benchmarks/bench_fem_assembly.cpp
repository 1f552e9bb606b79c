// Finite-element assembly throughput (elements per second) of the three
// strategies of tessera::sparse::fem::Assembler on the default host
// back-end, against a serial loop over the elements (binary search per
// entry, plain '+='), contenders interleaved within each repetition
// (tessera::bench::run_interleaved). Two cases: the P1 Poisson operator with
// a variable coefficient on tetrahedra (a cheap kernel: assembly is memory
// traffic) and P2 linear elasticity on tetrahedra (30 x 30 element matrices:
// the kernel dominates). Each contender assembles the matrix and the
// right-hand side from zero; the sparsity, the colouring and the element map
// are built once, outside the timing. Every contender's values are checked
// against the serial loop after the runs. Ratio column: the serial loop's
// time / the row's time (the speedup).
//   bench_fem_assembly [--p1-cells 32] [--p2-cells 12] [--repeats 9] [--json] --tessera-num-threads=2
//
// On a GPU: bench_fem_assembly_cuda (bench_fem_assembly_cuda.cpp defines
// TESSERA_BENCH_FEM_CUDA): the same contenders with Space = Cuda (each
// timed run ends with a fence), bench name fem_assembly_cuda, meshes of
// about 1.6 M P1 and 83,000 P2 elements by default (P2 at 40^3, 384,000
// elements and 134 M nonzeros, ran past the GPU check's 110 s on an H200: its
// serial loop alone is about 8 s a run), values compared with the
// serial loop on the host to rounding (the device fuses multiply-adds). The
// host columns are that serial loop and, when the build has a parallel host
// space (the GPU pack enables Threads), the three strategies on it with all
// of the machine's cores (the peer: the host assembly on 16 cores).
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/sparse.hpp>
#if defined(TESSERA_BENCH_FEM_CUDA)
#include <tessera/bench/cuda_device.hpp>
#endif

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace fem = tessera::sparse::fem;
#if defined(TESSERA_BENCH_FEM_CUDA)
using Space = tessera::Cuda;
constexpr const char* kBenchName = "fem_assembly_cuda";
constexpr int kDefaultP1Cells = 64, kDefaultP2Cells = 24;
#else
using Space = tessera::DefaultHostExecutionSpace;
constexpr const char* kBenchName = "fem_assembly";
constexpr int kDefaultP1Cells = 32, kDefaultP2Cells = 12;
#endif

struct Coefficient {
  TESSERA_INLINE_FUNCTION double operator()(const double* x) const { return 1.0 + x[0] + x[1] * x[1]; }
};

// The assembler's sparsity pattern on the host: on a GPU its row_map() and
// col_idx() are in device memory, which the serial loop cannot read.
struct HostPattern {
  template <class DeviceView>
  using OnHost = decltype(tessera::create_mirror_view_and_copy(tessera::HostSpace(), std::declval<DeviceView>()));
  OnHost<fem::Assembler<Space>::row_map_view> row_map;
  OnHost<fem::Assembler<Space>::index_view> col_idx;
  explicit HostPattern(const fem::Assembler<Space>& a)
      : row_map(tessera::create_mirror_view_and_copy(tessera::HostSpace(), a.row_map())),
        col_idx(tessera::create_mirror_view_and_copy(tessera::HostSpace(), a.col_idx())) {}
};

// The baseline: one thread, element order, the same kernel and pattern.
template <class Kernel>
void serial_loop(const fem::Mesh& mesh, const Kernel& kernel, const HostPattern& pattern, std::vector<double>& vals,
                 std::vector<double>& rhs) {
  using E = typename Kernel::element;
  constexpr int n = E::nodes, D = E::dim, dpn = Kernel::dofs_per_node, m = Kernel::dofs;
  const auto& rm = pattern.row_map;
  const auto& ci = pattern.col_idx;
  std::fill(vals.begin(), vals.end(), 0.0);
  std::fill(rhs.begin(), rhs.end(), 0.0);
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) {
    double x[n * D], Ke[m * m], fe[m];
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < D; ++d) x[a * D + d] = mesh.coords(mesh.elements(e, a), d);
    kernel(x, Ke, fe);
    for (int A = 0; A < m; ++A) {
      const std::int32_t row = mesh.elements(e, A / dpn) * dpn + A % dpn;
      rhs[std::size_t(row)] += fe[A];
      for (int B = 0; B < m; ++B) {
        const std::int32_t col = mesh.elements(e, B / dpn) * dpn + B % dpn;
        vals[std::size_t(fem::detail::find_column(ci.data(), rm(row), rm(row + 1), col))] += Ke[A * m + B];
      }
    }
  }
}

constexpr fem::AssemblyStrategy kStrategies[] = {fem::AssemblyStrategy::ScatterView, fem::AssemblyStrategy::Colouring,
                                                 fem::AssemblyStrategy::ElementMap};

// Every strategy's values against the serial loop's, to rounding.
template <class S, class Kernel>
void check_against_loop(const std::string& name, fem::Assembler<S>& assembler, const Kernel& kernel,
                        const std::vector<double>& vals) {
  double scale = 0;
  for (double v : vals) scale = std::max(scale, std::abs(v));
  for (auto s : kStrategies) {
    assembler.assemble(kernel, s);
    const auto got = tessera::create_mirror_view_and_copy(tessera::HostSpace(), assembler.values());
    for (std::size_t k = 0; k < vals.size(); ++k)
      if (std::abs(got(k) - vals[k]) > 1e-12 * scale) {
        std::fprintf(stderr, "bench_fem_assembly: %s: %s on %s: value %zu is %.17g, the serial loop gives %.17g\n",
                     name.c_str(), fem::to_string(s), S::name(), k, got(k), vals[k]);
        std::exit(2);
      }
  }
}

template <class Kernel>
void run_case(const std::string& name, const fem::Mesh& mesh, const Kernel& kernel, const tessera::bench::Report& report,
              const tessera::bench::InterleaveOptions& opt, bool json) {
  fem::Assembler<Space> assembler(mesh, Kernel::dofs_per_node);
  for (auto s : kStrategies) assembler.prepare(s);
  if (!json)
    std::printf("# %s: %lld elements, %lld dofs, nnz %lld, %d colours\n", name.c_str(),
                (long long)mesh.num_elements(), (long long)assembler.num_dofs(), (long long)assembler.nnz(),
                assembler.num_colours());
  std::vector<double> vals(std::size_t(assembler.nnz())), rhs(std::size_t(assembler.num_dofs()));
  const HostPattern pattern(assembler);
  std::vector<tessera::bench::Contender> cs;
  cs.push_back({"serial loop", [&] { serial_loop(mesh, kernel, pattern, vals, rhs); }, [] { return 1; }});
  // Each strategy's row on Space is compared with `reference_of[s]`: the
  // serial loop, or on a GPU build with a parallel host space the same
  // strategy on the host's cores (the peer), timed first.
  int reference_of[std::size(kStrategies)] = {};
#if defined(TESSERA_BENCH_FEM_CUDA)
  using Host = tessera::DefaultHostExecutionSpace;
  std::optional<fem::Assembler<Host>> host;
  if constexpr (!std::is_same_v<Host, tessera::Serial>) {
    host.emplace(mesh, Kernel::dofs_per_node);
    for (auto s : kStrategies) host->prepare(s);
    for (std::size_t k = 0; k < std::size(kStrategies); ++k) {
      const auto s = kStrategies[k];
      reference_of[k] = int(cs.size());
      cs.push_back({std::string("tessera ") + fem::to_string(s) + " (" + Host::name() + ")",
                    [&host, &kernel, s] { host->assemble(kernel, s); }, [] { return Host().concurrency(); }, 0});
    }
  }
#endif
  const auto threads = [] { return Space().concurrency(); };
  for (std::size_t k = 0; k < std::size(kStrategies); ++k) {
    const auto s = kStrategies[k];
    cs.push_back({std::string("tessera ") + fem::to_string(s) + " (" + Space::name() + ")",
                  [&assembler, &kernel, s] {
                    assembler.assemble(kernel, s);
                    Space().fence();  // on a GPU the wall clock must cover the device's work
                  },
                  threads, reference_of[k]});
  }
  const auto results = tessera::bench::run_interleaved(cs, opt);
  // Answers: every strategy against the serial loop, to rounding.
  serial_loop(mesh, kernel, pattern, vals, rhs);
  check_against_loop(name, assembler, kernel, vals);
#if defined(TESSERA_BENCH_FEM_CUDA)
  if (host) check_against_loop(name, *host, kernel, vals);
#endif
  const tessera::bench::Measure per_second{"Melem/s", double(mesh.num_elements()), 1e-6, false, false};
  report.add(name, per_second, cs, results);
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("bench_fem_assembly",
                          "Finite-element assembly (elements per second) by ScatterView, colouring and element map\n"
                          "against a serial element loop.",
                          9);
  int p1_cells = kDefaultP1Cells, p2_cells = kDefaultP2Cells;
  cli.app().add_option("--p1-cells", p1_cells, "cells per side of the P1 Poisson mesh")->check(tools::integer(1, 1024));
  cli.app().add_option("--p2-cells", p2_cells, "cells per side of the P2 elasticity mesh")->check(tools::integer(1, 1024));
  if (auto status = cli.parse(argc, argv)) return *status;
  tessera::initialize(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
#if defined(TESSERA_BENCH_FEM_CUDA)
  // Without a usable GPU: say why and exit 0, as the other GPU benchmarks do.
  if (tessera::bench::say_no_cuda_device(kBenchName, json)) {
    tessera::finalize();
    return 0;
  }
#endif
  {
    tessera::bench::InterleaveOptions opt;
    opt.repeats = repeats;
    const tessera::bench::Report report(kBenchName, json);
#if defined(TESSERA_BENCH_FEM_CUDA)
    tessera::bench::note_cuda_device(report, json, repeats);  // the card, for the table's column
#endif
    const auto p1 = fem::box_mesh({.cells = {p1_cells, p1_cells, p1_cells}, .order = 1, .perturbation = 0.1});
    run_case("P1 Poisson, " + std::to_string(p1_cells) + "^3 x 6 tets", p1,
             fem::PoissonKernel<fem::P1Tetrahedron, Coefficient, fem::Constant>{Coefficient{}, fem::Constant{1.0}},
             report, opt, json);
    const auto p2 = fem::box_mesh({.cells = {p2_cells, p2_cells, p2_cells}, .order = 2, .perturbation = 0.1});
    fem::ElasticityKernel<fem::P2Tetrahedron> elasticity;
    elasticity.youngs_modulus = 200;
    elasticity.poisson_ratio = 0.3;
    elasticity.body_force[2] = -1;
    run_case("P2 elasticity, " + std::to_string(p2_cells) + "^3 x 6 tets", p2, elasticity, report, opt, json);
  }
  tessera::finalize();
  return 0;
}
