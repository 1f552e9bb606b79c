// tessera-demo: runs every built Tessera package end to end on generated data
// (and on the repository's examples/data) and prints one table: what ran, on which
// back-end and thread count, its result check with the checked value, and its
// time. Exits nonzero when any check fails.
//
//   tessera-demo [--quick] [--data DIR] [--tessera-num-threads=N ...]
#include "demo.hpp"
#include "demo_packages.hpp"  // generated: TESSERA_DEMO_FOR_EACH_PACKAGE(X), the packages built

#include <tessera/core/host_fallback.hpp>
#include <tessera/tools/cli.hpp>

#include <algorithm>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <iostream>

#define TESSERA_DEMO_DECLARE(pkg) void run_##pkg(tessera_demo::Report&, const tessera_demo::Context&);
TESSERA_DEMO_FOR_EACH_PACKAGE(TESSERA_DEMO_DECLARE)
#undef TESSERA_DEMO_DECLARE

namespace tessera_demo {

std::string format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

std::string gbps(double bytes, double seconds) {
  return seconds > 0 ? format("%.1f GB/s", bytes / seconds * 1e-9) : std::string("-");
}

static std::string human_time(double s) {
  if (s < 1e-3) return format("%.0f us", s * 1e6);
  if (s < 1) return format("%.1f ms", s * 1e3);
  return format("%.2f s", s);
}

void Report::print(std::FILE* out) const {
  const char* head[] = {"package", "what ran", "back-end", "threads", "check", "checked value", "time"};
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : m_rows) {
    std::string t = human_time(r.check.seconds);
    if (!r.check.rate.empty()) t += "  " + r.check.rate;
    cells.push_back({r.package, r.what, r.backend, std::to_string(r.threads), r.check.pass ? "pass" : "FAIL",
                     r.check.value, t});
  }
  std::size_t width[7];
  for (int c = 0; c < 7; ++c) {
    width[c] = std::strlen(head[c]);
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& v) {
    std::string s;
    for (int c = 0; c < 7; ++c) {
      std::string cell = v[c];
      const std::string pad(width[c] - cell.size(), ' ');
      cell = c == 3 ? pad + cell : cell + pad;  // numbers right-aligned
      s += cell + (c < 6 ? "  " : "");
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    std::fprintf(out, "%s\n", s.c_str());
  };
  line({head, head + 7});
  std::vector<std::string> rule;
  for (int c = 0; c < 7; ++c) rule.push_back(std::string(width[c], '-'));
  line(rule);
  for (const auto& row : cells) line(row);
}

}  // namespace tessera_demo

int main(int argc, char* argv[]) {
  tessera_demo::Context ctx;
  std::string data = TESSERA_DEMO_DEFAULT_DATA_DIR;
  if (const char* env = std::getenv("TESSERA_DEMO_DATA")) data = env;
  // The --tessera-* flags are taken out first (tessera::parse_flags), then the demo's own.
  tessera::tools::Command cmd(
      "tessera-demo",
      "Runs every built Tessera package end to end and prints one table: what ran, on which\n"
      "back-end and thread count, its check and time. Exits 1 when a check fails.");
  cmd.app().add_flag("--quick", ctx.quick, "small problem sizes (seconds instead of tens of seconds)");
  cmd.app().add_option("--data", data,
                       "the test data (graphs/, matrices/); default " TESSERA_DEMO_DEFAULT_DATA_DIR);
  if (auto status = cmd.parse(argc, argv)) return *status;
  std::error_code ec;
  if (!data.empty() && std::filesystem::is_directory(data, ec))
    ctx.data_dir = std::filesystem::canonical(data, ec);

  tessera::ScopeGuard guard(cmd.settings());
  std::printf("Tessera %s demo: packages:", TESSERA_VERSION_STRING);
#define TESSERA_DEMO_NAME(pkg) std::printf(" " #pkg);
  TESSERA_DEMO_FOR_EACH_PACKAGE(TESSERA_DEMO_NAME)
#undef TESSERA_DEMO_NAME
  std::printf("\n");
  tessera::print_configuration(std::cout);
  std::cout.flush();
  // The rows run on every usable space; without a GPU the Cuda ones are skipped (on stderr, in the words of
  // every Tessera program).
  if (!tessera::default_execution_space_usable())
    std::fprintf(stderr, "%s\n", tessera::no_device_notice("tessera-demo", "Cuda rows skipped").c_str());
  std::printf("data: %s\n\n", ctx.have_data() ? ctx.data_dir.c_str() : "(none: generated data only)");

  tessera_demo::Report report;
#define TESSERA_DEMO_RUN(pkg) run_##pkg(report, ctx);
  TESSERA_DEMO_FOR_EACH_PACKAGE(TESSERA_DEMO_RUN)
#undef TESSERA_DEMO_RUN
  report.print(stdout);
  std::printf("\n%zu rows, %d failed\n", report.rows().size(), report.failures());
  return report.failures() == 0 ? 0 : 1;
}
