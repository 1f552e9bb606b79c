// Rows of the dist package: the tessera-dist CLI run by `mpiexec -n 2` (the
// demo is one process; MPI programs are started by mpiexec), each checked
// against an independent figure: the published triangle count of the
// facebook graph (or karate's), and the known solution x = 1 of
// A x = A 1 on the 3-D Laplacian.
#include "demo.hpp"

#include <cstdio>
#include <string>
#include <unistd.h>

using tessera_demo::Check;
using tessera_demo::format;

namespace {

// Runs `mpiexec -n ranks tessera-dist args` and returns its standard output
// (standard error joined), and whether it exited with 0.
std::pair<std::string, bool> run_cli(int ranks, const std::string& args) {
  std::string cmd = std::string("\"") + TESSERA_DEMO_MPIEXEC + "\" -n " + std::to_string(ranks) + " --oversubscribe";
  if (::geteuid() == 0) cmd += " --allow-run-as-root";  // Open MPI refuses root unless told
  cmd += std::string(" \"") + TESSERA_DEMO_DIST_CLI + "\" " + args + " 2>&1";
  std::string out;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {"cannot start " + cmd, false};
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  return {out, ::pclose(p) == 0};
}

// The value after "key: " on its line of a digest, or "".
std::string field(const std::string& out, const std::string& key) {
  const auto at = out.find("\n" + key + ": ");
  if (at == std::string::npos) return "";
  const auto b = at + key.size() + 3;
  return out.substr(b, out.find('\n', b) - b);
}

tessera_demo::Row dist_row(const std::string& what, Check c) {
  tessera_demo::Row row{"dist", what, "MPI 2 ranks", 1, std::move(c)};
  return row;
}

}  // namespace

void run_dist(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  const bool big = !ctx.quick && ctx.have_data();
  const std::string graph = ctx.have_data() ? (ctx.data_dir / "graphs" / (big ? "facebook_combined.txt" : "karate.mtx")).string()
                                            : std::string("kron:10:16");
  const long long known = !ctx.have_data() ? -1 : big ? 1612010 : 45;
  {
    const auto t0 = std::chrono::steady_clock::now();
    auto [out, ok] = run_cli(2, "triangles \"" + graph + "\" --threads 1");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string t = field("\n" + out, "triangles");
    const bool pass = ok && !t.empty() && (known < 0 || t == std::to_string(known));
    report.add(dist_row(format("triangles over 2 ranks, %s%s", std::filesystem::path(graph).filename().c_str(),
                               known < 0 ? "" : format(" (known: %lld)", known).c_str()),
                        Check{pass, pass ? t + " triangles" : "tessera-dist said: " + out, s}));
  }
  {
    const int n = ctx.quick ? 12 : 40;
    const auto t0 = std::chrono::steady_clock::now();
    auto [out, ok] = run_cli(2, format("solve lap3d:%d --threads 1", n));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string it = field("\n" + out, "PCG iterations"), err = field("\n" + out, "max error (x = 1)");
    const bool pass = ok && field("\n" + out, "converged") == "yes" && !err.empty() && std::stod(err) < 1e-6;
    report.add(dist_row(format("PCG + block Jacobi (Cholesky blocks) over 2 ranks, 3-D Laplacian %d^3", n),
                        Check{pass, pass ? format("%s iterations, max |x - 1| = %s", it.c_str(), err.c_str())
                                         : "tessera-dist said: " + out,
                              s}));
  }
}
