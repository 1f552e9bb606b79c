// Every Tessera CLI with --json on a small input (examples/data), its output
// parsed with a JSON parser (nlohmann-json): exactly one object on one line,
// the members each manual lists, and the same key for the same meaning in
// every CLI (karate's 34 vertices, 78 edges and 45 triangles under the same
// names whichever CLI counted them; the solvers' iterations, residual and
// times likewise). The CLIs come from the super-build (TesseraSuperbuildTests.cmake);
// a CLI that is not built is skipped.
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

using json = nlohmann::json;

namespace {

struct Run {
  int status = -1;
  std::string out;
};

// Runs a shell command; stdout captured, stderr left to the test's log.
Run run(const std::string& command) {
  Run r;
  std::FILE* p = ::popen(command.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// The one JSON object a --json run prints, or a test failure.
json object_of(const std::string& command) {
  const Run r = run(command);
  EXPECT_EQ(r.status, 0) << command;
  EXPECT_FALSE(r.out.empty()) << command;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "not one line: " << r.out;
  json j;
  try {
    j = json::parse(r.out);
  } catch (const json::parse_error& e) {
    ADD_FAILURE() << command << ": not JSON (" << e.what() << "): " << r.out;
    return json::object();
  }
  EXPECT_TRUE(j.is_object()) << r.out;
  return j;
}

void expect_members(const json& j, const std::vector<std::string>& keys, const std::string& who) {
  for (const auto& k : keys) EXPECT_TRUE(j.contains(k)) << who << " lacks \"" << k << "\": " << j.dump();
}

// snake_case: lower-case letters, digits and underscores (histogram keys are k values).
void expect_snake_case(const json& j, const std::string& who) {
  if (j.is_array())
    for (const auto& x : j) expect_snake_case(x, who);
  if (!j.is_object()) return;
  for (const auto& [k, v] : j.items()) {
    bool ok = !k.empty();
    for (const char c : k) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
    EXPECT_TRUE(ok) << who << ": key \"" << k << "\" is not snake_case";
    expect_snake_case(v, who);
  }
}

const std::string data = TESSERA_DATA_DIR;
const std::string karate = data + "/graphs/karate.mtx";
const std::string graph_cli = TESSERA_CLI_GRAPH, minitri_cli = TESSERA_CLI_MINITRI,
                  solve_cli = TESSERA_CLI_SOLVE, dist_cli = TESSERA_CLI_DIST, mpiexec = TESSERA_CLI_MPIEXEC;
const std::vector<std::string> graph_run_keys{"graph",   "vertices",     "edges",     "execution_space",
                                              "threads", "load_seconds", "algorithm", "time_seconds"};
const std::vector<std::string> solve_keys{"matrix",          "n",        "nnz_a",
                                          "execution_space", "threads",  "load_seconds",
                                          "iterations",      "residual", "solve_seconds"};

}  // namespace

TEST(CliJson, TesseraGraph) {
  if (graph_cli.empty()) GTEST_SKIP() << "tessera-graph is not built";
  for (const char* alg : {"triangles", "bfs", "pagerank", "cc", "info", "msbfs", "sssp"}) {
    const std::string who = std::string("tessera-graph ") + alg;
    const bool sourced =
        std::string(alg) == "bfs" || std::string(alg) == "msbfs" || std::string(alg) == "sssp";
    const json j = object_of(quoted(graph_cli) + " " + alg + " " + quoted(karate) + " --json" +
                             (sourced ? " --source 0" : ""));
    expect_members(j, graph_run_keys, who);
    expect_members(j, {"result", "edges_per_second"}, who);
    expect_snake_case(j, who);
    EXPECT_EQ(j.value("vertices", -1), 34);
    EXPECT_EQ(j.value("edges", -1), 78);
    if (std::string(alg) == "triangles") {
      EXPECT_EQ(j["result"].value("triangles", -1), 45);
    }
    if (std::string(alg) == "bfs")
      expect_members(j["result"], {"source", "reached", "levels", "sum_of_levels", "bottom_up_levels"}, who);
  }
}

TEST(CliJson, TesseraMinitri) {
  if (minitri_cli.empty()) GTEST_SKIP() << "tessera-minitri is not built";
  const json j = object_of(quoted(minitri_cli) + " " + quoted(karate) + " --json");
  expect_members(j, graph_run_keys, "tessera-minitri");
  expect_members(j, {"triangles", "histogram", "largest_k", "peak_bytes", "method"}, "tessera-minitri");
  EXPECT_EQ(j.value("vertices", -1), 34);
  EXPECT_EQ(j.value("edges", -1), 78);
  EXPECT_EQ(j.value("triangles", -1), 45);
  EXPECT_EQ(j.value("largest_k", -1), 6);
}

TEST(CliJson, TesseraSolve) {
  if (solve_cli.empty()) GTEST_SKIP() << "tessera-solve is not built";
  for (const std::string& input : {std::string("lap3d:6"), data + "/matrices/bcsstk13.mtx"}) {
    const json j = object_of(quoted(solve_cli) + " " + quoted(input) + " --json");
    expect_members(j, solve_keys, "tessera-solve");
    expect_members(j, {"nnz_l", "flops", "analyze_seconds", "factorize_seconds", "backward_error", "gflops"},
                   "tessera-solve");
    expect_snake_case(j, "tessera-solve");
    EXPECT_EQ(j.value("matrix", ""), input);
    ASSERT_TRUE(j["backward_error"].is_number());
    EXPECT_LT(j["backward_error"].get<double>(), 1e-12);
  }
}

TEST(CliJson, TesseraDistUsesTheNodeLevelKeys) {
  if (dist_cli.empty() || mpiexec.empty()) GTEST_SKIP() << "tessera-dist is not built";
  const std::string run2 = mpiexec + " " + quoted(dist_cli) + " ";
  const json t = object_of(run2 + "triangles " + quoted(karate) + " --json");
  expect_members(t, graph_run_keys, "tessera-dist triangles");
  expect_members(t, {"ranks", "result", "communication_per_rank"}, "tessera-dist triangles");
  expect_snake_case(t, "tessera-dist triangles");
  EXPECT_EQ(t.value("ranks", -1), 2);
  EXPECT_EQ(t.value("vertices", -1), 34);
  EXPECT_EQ(t.value("edges", -1), 78);
  EXPECT_EQ(t["result"].value("triangles", -1), 45);

  const json b = object_of(run2 + "bfs " + quoted(karate) + " --source 0 --json");
  expect_members(b["result"], {"source", "reached", "levels", "sum_of_levels", "bottom_up_levels"},
                 "tessera-dist bfs");
  EXPECT_EQ(b["result"].value("reached", -1), 34);
  if (!graph_cli.empty()) {
    // The same search on one node: the same numbers under the same keys.
    const json g = object_of(quoted(graph_cli) + " bfs " + quoted(karate) + " --source 0 --json");
    for (const char* k : {"source", "reached", "levels", "sum_of_levels"})
      EXPECT_EQ(b["result"][k], g["result"][k]) << k;
  }

  const json m = object_of(run2 + "minitri " + quoted(karate) + " --json");
  EXPECT_EQ(m["result"].value("triangles", -1), 45);
  EXPECT_EQ(m["result"].value("largest_k", -1), 6);
  if (!minitri_cli.empty()) {
    const json n = object_of(quoted(minitri_cli) + " " + quoted(karate) + " --json");
    EXPECT_EQ(m["result"]["histogram"], n["histogram"]);
  }

  const json s = object_of(run2 + "solve lap3d:6 --json");
  expect_members(s, solve_keys, "tessera-dist solve");
  expect_members(s, {"converged", "max_error", "setup_seconds", "halo_per_rank"}, "tessera-dist solve");
  expect_snake_case(s, "tessera-dist solve");
  EXPECT_EQ(s.value("converged", false), true);
}
