// Profiling hooks: user callbacks see every dispatch, deep copy, region and
// allocation with its label; TESSERA_PROFILE=summary prints a table at
// finalize; TESSERA_TRACE=file.json writes a valid Chrome trace.
//
// Own main(): the runtime is initialized here, except in the child processes
// that test the environment-selected tools (they must read the environment
// at their own initialize()).
#include "tessera_test_spaces.hpp"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Event {
  std::string what;  // begin / end / push / pop / alloc / dealloc
  tessera::profiling::Kind kind{};
  std::string name;
  std::string space;
  std::uint64_t id = 0;
  const void* ptr = nullptr;
  std::uint64_t bytes = 0;
};

std::mutex g_mutex;
std::vector<Event> g_events;

void record(Event e) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_events.push_back(std::move(e));
}

void on_begin(tessera::profiling::Kind k, const char* name, const char* space, std::uint64_t id) {
  record({"begin", k, name, space, id, nullptr, 0});
}
void on_end(tessera::profiling::Kind k, std::uint64_t id) { record({"end", k, "", "", id, nullptr, 0}); }
void on_push(const char* name) { record({"push", {}, name, "", 0, nullptr, 0}); }
void on_pop() { record({"pop", {}, "", "", 0, nullptr, 0}); }
void on_alloc(const char* space, const char* label, const void* p, std::uint64_t bytes) {
  record({"alloc", {}, label, space, 0, p, bytes});
}
void on_dealloc(const char* space, const char* label, const void* p, std::uint64_t bytes) {
  record({"dealloc", {}, label, space, 0, p, bytes});
}

// Records every event for the life of the object.
struct Recorder {
  tessera::profiling::Callbacks old;
  Recorder() {
    g_events.clear();
    tessera::profiling::Callbacks cb;
    cb.begin_kernel = &on_begin;
    cb.end_kernel = &on_end;
    cb.push_region = &on_push;
    cb.pop_region = &on_pop;
    cb.allocate = &on_alloc;
    cb.deallocate = &on_dealloc;
    old = tessera::profiling::set_callbacks(cb);
  }
  ~Recorder() { tessera::profiling::set_callbacks(old); }
  std::vector<Event> events() const {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_events;
  }
  // The begin event with this name, and whether its end followed.
  const Event* begin_named(const std::string& name, bool* ended = nullptr) const {
    for (const auto& e : g_events)
      if (e.what == "begin" && e.name == name) {
        if (ended) {
          *ended = false;
          for (const auto& f : g_events)
            if (f.what == "end" && f.id == e.id && f.kind == e.kind) *ended = true;
        }
        return &e;
      }
    return nullptr;
  }
};

}  // namespace

template <class Space>
class Profiling : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Profiling, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(Profiling, CallbacksSeeDispatchesWithLabels) {
  using Space = TypeParam;
  using tessera::profiling::Kind;
  tessera::View<int*, Space> v("v", 10);
  Recorder rec;
  tessera::parallel_for("my_for", tessera::RangePolicy<Space>(0, 10), TESSERA_LAMBDA(int i) { v(i) = i; });
  int sum = 0;
  tessera::parallel_reduce("my_reduce", tessera::RangePolicy<Space>(0, 10), TESSERA_LAMBDA(int i, int& s) { s += v(i); }, sum);
  tessera::parallel_scan("my_scan", tessera::RangePolicy<Space>(0, 10), TESSERA_LAMBDA(int i, int& u, bool final) {
    if (final) v(i) = u;
    u += i;
  });
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {});
  bool ended = false;
  const Event* e = rec.begin_named("my_for", &ended);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, Kind::parallel_for);
  EXPECT_EQ(e->space, Space::name());
  EXPECT_TRUE(ended);
  e = rec.begin_named("my_reduce", &ended);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, Kind::parallel_reduce);
  EXPECT_TRUE(ended);
  e = rec.begin_named("my_scan", &ended);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, Kind::parallel_scan);
  EXPECT_TRUE(ended);
  EXPECT_NE(rec.begin_named("(unlabeled parallel_for)"), nullptr);
  EXPECT_EQ(sum, 45);
}

TYPED_TEST(Profiling, CallbacksSeeDeepCopiesAllocationsAndRegions) {
  using Space = TypeParam;
  using tessera::profiling::Kind;
  Recorder rec;
  const void* data = nullptr;
  {
    tessera::View<double*, Space> a("prof_a", 100);
    tessera::View<double*, tessera::LayoutLeft, Space> b(tessera::view_alloc(tessera::WithoutInitializing, "prof_b"), 100);
    data = a.data();
    tessera::push_region("outer");
    tessera::profiling::push_region("inner");
    tessera::deep_copy(b, a);
    tessera::pop_region();
    tessera::profiling::pop_region();
    tessera::deep_copy(a, 2.0);
  }
  const auto ev = rec.events();
  // Allocation and deallocation of prof_a, with the size the user asked for.
  int allocs = 0, deallocs = 0;
  for (const auto& e : ev) {
    if (e.what == "alloc" && e.name == "prof_a") {
      ++allocs;
      EXPECT_EQ(e.bytes, 800u);
      EXPECT_EQ(e.space, std::string(Space::memory_space::name()));
    }
    if (e.what == "dealloc" && e.name == "prof_a") {
      ++deallocs;
      EXPECT_EQ(e.bytes, 800u);
    }
  }
  EXPECT_EQ(allocs, 1);
  EXPECT_EQ(deallocs, 1);
  (void)data;
  // The value-initialization of prof_a ran on Space; prof_b was not initialized.
  const Event* init = rec.begin_named("tessera::View::initialization [prof_a]");
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->space, Space::name()) << "first touch happens on the View's execution space";
  EXPECT_EQ(rec.begin_named("tessera::View::initialization [prof_b]"), nullptr);
  // The deep copy and the fill, labelled with the Views.
  const Event* copy = rec.begin_named("deep_copy prof_a -> prof_b");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, Kind::deep_copy);
  const Event* fill = rec.begin_named("deep_copy fill prof_a");
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(fill->kind, Kind::deep_copy);
  // Regions nest, and the deep copy sits inside them.
  std::vector<std::string> order;
  for (const auto& e : ev) {
    if (e.what == "push") order.push_back("push " + e.name);
    if (e.what == "pop") order.push_back("pop");
    if (e.what == "begin" && e.name == "deep_copy prof_a -> prof_b") order.push_back("copy");
  }
  const std::vector<std::string> expected = {"push outer", "push inner", "copy", "pop", "pop"};
  EXPECT_EQ(order, expected);
}

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Child process bodies: initialize with the tools the environment selects.
void child_run_kernels_and_finalize() {
  dup2(2, 1);  // the summary goes to stdout; death tests match stderr
  tessera::initialize();
  // On the host: the default space may be Cuda, which needs a GPU.
  using Host = tessera::DefaultHostExecutionSpace;
  tessera::View<double*, Host> x("x", 1000), y("y", 1000);
  for (int rep = 0; rep < 3; ++rep)
    tessera::parallel_for("axpy_kernel", tessera::RangePolicy<Host>(0, 1000), TESSERA_LAMBDA(int i) { y(i) += 2.0 * x(i); });
  double s = 0;
  tessera::parallel_reduce("dot_kernel", tessera::RangePolicy<Host>(0, 1000),
                           TESSERA_LAMBDA(int i, double& a) { a += x(i) * y(i); }, s);
  tessera::push_region("phase \"one\"");  // quotes must be escaped in the trace
  tessera::deep_copy(x, y);
  tessera::pop_region();
  x = decltype(x)();
  y = decltype(y)();
  tessera::finalize();
  std::exit(0);
}

class ChildEnv {
 public:
  ChildEnv(const char* name, const std::string& value) : m_name(name) {
    setenv("TESSERA_TEST_CHILD", "1", 1);
    setenv(name, value.c_str(), 1);
  }
  ~ChildEnv() {
    unsetenv("TESSERA_TEST_CHILD");
    unsetenv(m_name);
  }

 private:
  const char* m_name;
};

}  // namespace

TEST(ProfilingTools, SummaryTableAtFinalize) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ChildEnv env("TESSERA_PROFILE", "summary");
  EXPECT_EXIT(child_run_kernels_and_finalize(), ::testing::ExitedWithCode(0),
              "Tessera profile summary.*kernel.*calls.*axpy_kernel \\[[A-Za-z]+\\] +parallel_for +3 ");
  // Rows are sorted by measured time, so the dot_kernel and deep_copy rows
  // (both a few microseconds) come in either order: each is checked alone.
  EXPECT_EXIT(child_run_kernels_and_finalize(), ::testing::ExitedWithCode(0),
              "dot_kernel \\[[A-Za-z]+\\] +parallel_reduce +1 ");
  EXPECT_EXIT(child_run_kernels_and_finalize(), ::testing::ExitedWithCode(0),
              "deep_copy y -> x \\[[A-Za-z]+\\] +deep_copy +1 ");
}

TEST(ProfilingTools, ChromeTraceFileIsValidJson) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The child re-runs this test body: it must see the parent's file name.
  const char* inherited = std::getenv("TESSERA_TRACE");
  const std::string path =
      inherited ? inherited : ::testing::TempDir() + "tessera_trace_" + std::to_string(getpid()) + ".json";
  if (!inherited) std::remove(path.c_str());
  {
    ChildEnv env("TESSERA_TRACE", path);
    EXPECT_EXIT(child_run_kernels_and_finalize(), ::testing::ExitedWithCode(0), "");
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "no trace file at " << path;
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  // One JSON document (nlohmann-json, the tests' one JSON reader); the
  // streaming writer stays core's own.
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    ADD_FAILURE() << "invalid JSON: " << e.what() << ":\n" << text;
  }
  EXPECT_TRUE(doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array());
  EXPECT_EQ(text.rfind("{\"traceEvents\":[", 0), 0u);
  EXPECT_EQ(count(text, "\"name\":\"axpy_kernel ["), 3u);
  EXPECT_EQ(count(text, "\"name\":\"dot_kernel ["), 1u);
  EXPECT_EQ(count(text, "\"name\":\"phase \\\"one\\\"\""), 1u) << "the region, with escaped quotes";
  EXPECT_GE(count(text, "\"ph\":\"X\""), 5u);
  EXPECT_EQ(count(text, "\"ph\":\"X\""), count(text, "\"tid\":"));
  std::remove(path.c_str());
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (std::getenv("TESSERA_TEST_CHILD")) return RUN_ALL_TESTS();
  tessera::ScopeGuard guard(argc, argv);
  return RUN_ALL_TESTS();
}
