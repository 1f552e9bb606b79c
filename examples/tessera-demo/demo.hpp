#pragma once
// tessera-demo: the table every package adds rows to.
//
// A package adds its rows in examples/tessera-demo/demo_<pkg>.cpp, which is
// compiled only when that package is built and must define
//     void run_<pkg>(tessera_demo::Report& report, const tessera_demo::Context& ctx);
// Inside, call report.run<Space>("<pkg>", "what ran", [&] { ...; return Check{...}; })
// once per row; for_each_space() visits every enabled back-end that can run here.
#include <tessera/core.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace tessera_demo {

// What a row function returns: did the result check pass, and the value that
// was checked, in words (e.g. "sum = 499500 (expected 499500)").
struct Check {
  Check() = default;
  Check(bool pass_, std::string value_, double seconds_ = -1, std::string rate_ = {})
      : pass(pass_), value(std::move(value_)), seconds(seconds_), rate(std::move(rate_)) {}
  bool pass = false;
  std::string value;
  // Seconds to report; negative = the wall time of the whole row function.
  double seconds = -1;
  // Optional rate shown after the time (e.g. "12.3 GB/s").
  std::string rate;
};

struct Row {
  std::string package, what, backend;
  int threads = 1;
  Check check;
};

struct Context {
  bool quick = false;              // --quick: small sizes (used by tests)
  std::filesystem::path data_dir;  // examples/data or --data DIR; empty when absent
  bool have_data() const { return !data_dir.empty(); }
};

class Report {
 public:
  // Runs one row on execution space Space, timing it and turning an exception
  // into a FAIL row that carries the exception's message.
  template <class Space, class F>
  void run(const std::string& package, const std::string& what, F&& f) {
    Row row{package, what, Space::name(), Space().concurrency(), {}};
    const auto t0 = std::chrono::steady_clock::now();
    try {
      row.check = f();
    } catch (const std::exception& e) {
      row.check = Check{false, std::string("exception: ") + e.what()};
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (row.check.seconds < 0) row.check.seconds = wall;
    add(std::move(row));
  }

  // A row that did not run on a particular back-end (e.g. a host-only step).
  void add(Row row) {
    if (!row.check.pass) ++m_failures;
    m_rows.push_back(std::move(row));
  }

  int failures() const { return m_failures; }
  const std::vector<Row>& rows() const { return m_rows; }
  void print(std::FILE* out) const;

 private:
  std::vector<Row> m_rows;
  int m_failures = 0;
};

// Calls f.template operator()<Space>() for every enabled execution space
// that can run on this machine (Cuda only when a GPU is usable):
//   for_each_space([&]<class Space>() { my_rows<Space>(report, ctx); });
// Keep the kernels in a named function template (my_rows): nvcc does not
// accept device lambdas defined directly inside a generic lambda.
template <class F>
void for_each_space(F&& f) {
  f.template operator()<tessera::Serial>();
#if TESSERA_ENABLE_THREADS
  f.template operator()<tessera::Threads>();
#endif
#if TESSERA_ENABLE_OPENMP
  f.template operator()<tessera::OpenMP>();
#endif
#if TESSERA_ENABLE_CUDA
  if (tessera::Cuda::impl_is_available()) f.template operator()<tessera::Cuda>();
#endif
}

// "12.3 GB/s" from bytes moved and seconds.
std::string gbps(double bytes, double seconds);
// printf into a std::string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace tessera_demo
