// initialize / finalize / is_initialized / ScopeGuard / print_configuration
// and the --tessera-* flags.
//
// This file has its own main() that does NOT initialize Tessera (so the
// shared test main, a static library, is not linked in). Flag parsing is
// tested directly; every full initialize/finalize cycle runs in a child
// process (a gtest death test in "threadsafe" style re-executes this
// binary), because Tessera, like Kokkos, cannot be initialized again after
// finalize().
#include <gtest/gtest.h>
#include <tessera/core.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// argv built from strings; keeps the storage alive.
struct Args {
  std::vector<std::string> store;
  std::vector<char*> ptrs;
  int argc;
  explicit Args(std::initializer_list<std::string> a) : store(a) {
    for (auto& s : store) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
    argc = int(store.size());
  }
  char** argv() { return ptrs.data(); }
};

std::string parse_error(std::initializer_list<std::string> a) {
  Args args(a);
  try {
    tessera::parse_flags(args.argc, args.argv());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

// In a child process: report a failed check on stderr and exit with 1.
#define CHILD_CHECK(cond)                                                              \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "child check failed: %s (line %d)\n", #cond, __LINE__);    \
      std::fflush(stderr);                                                             \
      std::_Exit(1);                                                                   \
    }                                                                                  \
  } while (0)

// The bodies of the child processes (directives cannot sit inside macro arguments).
void child_flags_and_full_cycle() {
  Args a({"prog", "--tessera-num-threads=3", "keep"});
  tessera::initialize(a.argc, a.argv());
  CHILD_CHECK(tessera::is_initialized());
  CHILD_CHECK(a.argc == 2);
#if TESSERA_ENABLE_THREADS
  CHILD_CHECK(tessera::Threads().concurrency() == 3);
#endif
#if TESSERA_ENABLE_OPENMP
  CHILD_CHECK(tessera::OpenMP().concurrency() == 3);
#endif
  std::ostringstream out;
  tessera::print_configuration(out);
  CHILD_CHECK(out.str().find("Serial") != std::string::npos);
  CHILD_CHECK(out.str().find("(not initialized)") == std::string::npos);
  // Work runs between initialize and finalize (on the host: the default
  // space may be Cuda, which needs a GPU).
  using Host = tessera::DefaultHostExecutionSpace;
  tessera::View<int*, Host> v("v", 100);
  int sum = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Host>(0, 100), TESSERA_LAMBDA(int i, int& s) { s += v(i) + 1; }, sum);
  CHILD_CHECK(sum == 100);
  v = tessera::View<int*, Host>();
  bool threw = false;
  try {
    tessera::initialize();
  } catch (const std::runtime_error& e) {
    threw = std::string(e.what()).find("already initialized") != std::string::npos;
  }
  CHILD_CHECK(threw);
  tessera::finalize();
  CHILD_CHECK(!tessera::is_initialized());
  CHILD_CHECK(tessera::is_finalized());
  threw = false;
  try {
    tessera::initialize();
  } catch (const std::runtime_error&) {
    threw = true;
  }
  CHILD_CHECK(threw);
  std::exit(0);
}

void child_environment_threads() {
  setenv("TESSERA_NUM_THREADS", "2", 1);
  tessera::initialize();
#if TESSERA_ENABLE_OPENMP
  CHILD_CHECK(tessera::OpenMP().concurrency() == 2);
#endif
#if TESSERA_ENABLE_THREADS
  CHILD_CHECK(tessera::Threads().concurrency() == 2);
#endif
  tessera::finalize();
  std::exit(0);
}

void child_flag_beats_environment() {
  setenv("TESSERA_NUM_THREADS", "2", 1);
  Args a({"prog", "--tessera-num-threads=1"});
  tessera::initialize(a.argc, a.argv());
#if TESSERA_ENABLE_OPENMP
  CHILD_CHECK(tessera::OpenMP().concurrency() == 1);
#endif
  tessera::finalize();
  std::exit(0);
}

void child_malformed_environment() {
  setenv("TESSERA_NUM_THREADS", "lots", 1);
  try {
    tessera::initialize();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(3);
  }
  std::exit(0);
}

void child_scope_guard() {
  {
    tessera::ScopeGuard guard(tessera::InitializationSettings().set_num_threads(2).set_device_id(0));
    CHILD_CHECK(tessera::is_initialized());
#if TESSERA_ENABLE_THREADS
    CHILD_CHECK(tessera::Threads().concurrency() == 2);
#endif
  }
  CHILD_CHECK(tessera::is_finalized());
  std::exit(0);
}

void child_print_flags() {
  ::testing::internal::CaptureStdout();
  Args a({"prog", "--tessera-print-configuration", "--tessera-help"});
  tessera::ScopeGuard guard(a.argc, a.argv());
  const std::string out = ::testing::internal::GetCapturedStdout();
  CHILD_CHECK(out.find("Tessera " TESSERA_VERSION_STRING) != std::string::npos);
  CHILD_CHECK(out.find("back-ends: Serial") != std::string::npos);
  CHILD_CHECK(out.find("--tessera-num-threads=N") != std::string::npos);
  CHILD_CHECK(out.find("TESSERA_NUM_THREADS") != std::string::npos);
  std::exit(0);
}

// The VmFlags line of the mapping of this process that holds address p
// (/proc/self/smaps; "hg" is MADV_HUGEPAGE), or "" when none or no /proc.
std::string vm_flags_of(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    // A mapping's first line starts "lo-hi perms ..." in hex; its fields
    // ("Size:", "VmFlags:") follow on lines of their own.
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = a >= lo && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return "";
}
bool advised_huge(const void* p) { return vm_flags_of(p).find(" hg ") != std::string::npos; }
// Whether this kernel has transparent huge pages at all (the advice is
// refused, and never shows, without them).
bool kernel_has_thp() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

// The first 2 MiB boundary at or after p, and the last at or before p + bytes.
const void* first_whole_piece(const void* p) {
  constexpr auto h = tessera::HostSpace::huge_page_bytes;
  return reinterpret_cast<const void*>((reinterpret_cast<std::uintptr_t>(p) + h - 1) / h * h);
}
const void* last_whole_piece_end(const void* p, std::size_t bytes) {
  constexpr auto h = tessera::HostSpace::huge_page_bytes;
  return reinterpret_cast<const void*>((reinterpret_cast<std::uintptr_t>(p) + bytes) / h * h);
}

// 64 MiB: above glibc's largest automatic mmap threshold (32 MiB), so each
// block is a fresh mapping of its own and its flags are its own.
constexpr std::size_t kLarge = std::size_t(64) << 20;

void child_huge_pages(bool expect_advised, std::initializer_list<std::string> flags) {
  Args a(flags);
  tessera::initialize(a.argc, a.argv());
  CHILD_CHECK(tessera::HostSpace::impl_huge_pages() == expect_advised);
  void* p = tessera::HostSpace().allocate("large", kLarge);
  CHILD_CHECK(!vm_flags_of(p).empty());
  // The whole 2 MiB pieces inside the block are advised: the first and the
  // last of them, and one in the middle.
  CHILD_CHECK(advised_huge(first_whole_piece(p)) == expect_advised);
  CHILD_CHECK(advised_huge(static_cast<const char*>(last_whole_piece_end(p, kLarge)) - 1) == expect_advised);
  CHILD_CHECK(advised_huge(static_cast<const char*>(p) + kLarge / 2) == expect_advised);
  // The block keeps malloc's placement; where it does not start on a 2 MiB
  // boundary, its partial first piece is not advised (the advice would
  // reach memory outside the block).
  if (first_whole_piece(p) != p) CHILD_CHECK(!advised_huge(p));
  // A View's data lies inside its allocation, after the label header.
  tessera::View<double*, tessera::HostSpace> v(tessera::view_alloc("v", tessera::WithoutInitializing), kLarge / 8);
  CHILD_CHECK(advised_huge(v.data() + kLarge / 16) == expect_advised);
  v(0) = 1.0;
  v(v.extent(0) - 1) = 2.0;
  CHILD_CHECK(v(0) + v(v.extent(0) - 1) == 3.0);
  if (expect_advised && tessera::HostSpace::impl_large_blocks_are_mappings()) {
    // Large blocks are mappings of their own on a 2 MiB boundary (host_space.cpp;
    // under AddressSanitizer they stay malloc's).
    constexpr auto h = tessera::HostSpace::huge_page_bytes;
    CHILD_CHECK(reinterpret_cast<std::uintptr_t>(p) % h == 0);
    // The whole pieces of what was asked are advised, the partial last one not.
    const std::size_t odd = 3 * h + h / 2;
    void* q = tessera::HostSpace().allocate("odd", odd);
    CHILD_CHECK(reinterpret_cast<std::uintptr_t>(q) % h == 0);
    CHILD_CHECK(advised_huge(q) && advised_huge(static_cast<const char*>(q) + 3 * h - 1));
    CHILD_CHECK(!advised_huge(static_cast<const char*>(q) + 3 * h));
    // A freed block serves the next request of its mapped size, with what it held.
    static_cast<char*>(q)[odd - 1] = 42;
    tessera::HostSpace().deallocate("odd", q, odd);
    void* again = tessera::HostSpace().allocate("odd again", 3 * h + 1);
    CHILD_CHECK(again == q);
    CHILD_CHECK(advised_huge(again) && !advised_huge(static_cast<const char*>(again) + 3 * h));
    // Another size gets another block; both usable to their last byte.
    void* other = tessera::HostSpace().allocate("other", 5 * h);
    CHILD_CHECK(other != again && other != p);
    static_cast<char*>(other)[5 * h - 1] = 1;
    static_cast<char*>(again)[3 * h] = 2;
    tessera::HostSpace().deallocate("other", other, 5 * h);
    tessera::HostSpace().deallocate("odd again", again, 3 * h + 1);
    // Both are kept (5 and 4 pieces), at most 1 GiB in all.
    CHILD_CHECK(tessera::HostSpace::impl_cached_block_bytes() >= 9 * h);
    CHILD_CHECK(tessera::HostSpace::impl_cached_block_bytes() <= (std::size_t(1) << 30));
  }
  // Small blocks are not realigned: 64 bytes, as always.
  void* small = tessera::HostSpace().allocate("small", 1000);
  CHILD_CHECK(reinterpret_cast<std::uintptr_t>(small) % tessera::HostSpace::alignment == 0);
  tessera::HostSpace().deallocate("small", small, 1000);
  tessera::HostSpace().deallocate("large", p, kLarge);
  std::ostringstream out;
  tessera::print_configuration(out);
  CHILD_CHECK(out.str().find(expect_advised ? "huge pages advised" : "huge pages not advised") != std::string::npos);
  const void* v_data = v.data();
  v = {};
  const bool kept = tessera::HostSpace::impl_cached_block_bytes() > 0;
  CHILD_CHECK(kept == (expect_advised && tessera::HostSpace::impl_large_blocks_are_mappings()));
  tessera::finalize();
  // finalize() gave the kept blocks back: none left, and the last one freed
  // (the View's, 64 MiB and its header) is no longer mapped.
  CHILD_CHECK(tessera::HostSpace::impl_cached_block_bytes() == 0);
  if (kept) CHILD_CHECK(vm_flags_of(v_data).empty());
  std::exit(0);
}

void child_huge_pages_environment(const char* value, bool expect_advised) {
  setenv("TESSERA_HUGE_PAGES", value, 1);
  tessera::initialize();
  CHILD_CHECK(tessera::HostSpace::impl_huge_pages() == expect_advised);
  void* p = tessera::HostSpace().allocate("large", kLarge);
  CHILD_CHECK(advised_huge(first_whole_piece(p)) == expect_advised);
  tessera::HostSpace().deallocate("large", p, kLarge);
  tessera::finalize();
  std::exit(0);
}

void child_huge_pages_malformed_environment() {
  setenv("TESSERA_HUGE_PAGES", "yes", 1);
  try {
    tessera::initialize();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(3);
  }
  std::exit(0);
}

class Lifecycle : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

}  // namespace

TEST(ParseFlags, RecognizedFlagsAreRemovedOthersKept) {
  Args a({"prog", "--gtest_color=no", "--tessera-num-threads=4", "input.mtx", "--tessera-device-id=1",
          "--tessera-print-configuration", "--tessera-disable-binding", "--tessera-disable-huge-pages", "-v"});
  auto s = tessera::parse_flags(a.argc, a.argv());
  EXPECT_TRUE(s.has_num_threads());
  EXPECT_EQ(s.get_num_threads(), 4);
  EXPECT_TRUE(s.has_device_id());
  EXPECT_EQ(s.get_device_id(), 1);
  EXPECT_TRUE(s.get_print_configuration());
  EXPECT_FALSE(s.get_bind_threads());
  EXPECT_TRUE(s.has_huge_pages());
  EXPECT_FALSE(s.get_huge_pages());
  ASSERT_EQ(a.argc, 4);
  EXPECT_STREQ(a.argv()[0], "prog");
  EXPECT_STREQ(a.argv()[1], "--gtest_color=no");
  EXPECT_STREQ(a.argv()[2], "input.mtx");
  EXPECT_STREQ(a.argv()[3], "-v");
  EXPECT_EQ(a.argv()[4], nullptr);
}

TEST(ParseFlags, ValueInTheNextArgument) {
  Args a({"prog", "--tessera-num-threads", "3", "x"});
  auto s = tessera::parse_flags(a.argc, a.argv());
  EXPECT_EQ(s.get_num_threads(), 3);
  EXPECT_EQ(a.argc, 2);
  EXPECT_STREQ(a.argv()[1], "x");
}

TEST(ParseFlags, NothingGivenMeansNothingSet) {
  Args a({"prog"});
  auto s = tessera::parse_flags(a.argc, a.argv());
  EXPECT_FALSE(s.has_num_threads());
  EXPECT_FALSE(s.has_device_id());
  EXPECT_FALSE(s.has_huge_pages());
  EXPECT_TRUE(s.get_huge_pages());  // the default: advised
  EXPECT_EQ(a.argc, 1);
}

TEST(ParseFlags, UnknownFlagListsTheValidOnes) {
  const std::string e = parse_error({"prog", "--tessera-threads=4"});
  EXPECT_NE(e.find("unknown flag '--tessera-threads=4'"), std::string::npos) << e;
  for (const char* valid : {"--tessera-num-threads=N", "--tessera-device-id=N", "--tessera-print-configuration",
                            "--tessera-disable-binding", "--tessera-disable-huge-pages", "--tessera-help"})
    EXPECT_NE(e.find(valid), std::string::npos) << valid << " not listed in: " << e;
}

TEST(ParseFlags, MalformedValues) {
  for (const char* bad : {"abc", "0", "-2", "4x", "", "99999999999"}) {
    const std::string e = parse_error({"prog", std::string("--tessera-num-threads=") + bad});
    EXPECT_NE(e.find("invalid value '" + std::string(bad) + "' for --tessera-num-threads"), std::string::npos) << e;
    EXPECT_NE(e.find("integer >= 1"), std::string::npos) << e;
  }
  const std::string dev = parse_error({"prog", "--tessera-device-id=-1"});
  EXPECT_NE(dev.find("--tessera-device-id"), std::string::npos) << dev;
  EXPECT_NE(dev.find("integer >= 0"), std::string::npos) << dev;
  const std::string missing = parse_error({"prog", "--tessera-num-threads"});
  EXPECT_NE(missing.find("needs a value"), std::string::npos) << missing;
  const std::string valued = parse_error({"prog", "--tessera-help=yes"});
  EXPECT_NE(valued.find("--tessera-help takes no value"), std::string::npos) << valued;
}

TEST(ParseFlags, CudaMallocAsyncSwitch) {
  {
    Args a({"prog", "--tessera-cuda-malloc-async=0", "x"});
    auto s = tessera::parse_flags(a.argc, a.argv());
    EXPECT_TRUE(s.has_cuda_malloc_async());
    EXPECT_FALSE(s.get_cuda_malloc_async());
    EXPECT_EQ(a.argc, 2);
  }
  {
    Args a({"prog", "--tessera-cuda-malloc-async", "1"});
    auto s = tessera::parse_flags(a.argc, a.argv());
    EXPECT_TRUE(s.get_cuda_malloc_async());
    EXPECT_EQ(a.argc, 1);
  }
  Args none({"prog"});
  auto s = tessera::parse_flags(none.argc, none.argv());
  EXPECT_FALSE(s.has_cuda_malloc_async());
  EXPECT_TRUE(s.get_cuda_malloc_async()) << "the default: the stream-ordered pool";
  for (const char* bad : {"2", "yes", "", "-1"}) {
    const std::string e = parse_error({"prog", std::string("--tessera-cuda-malloc-async=") + bad});
    EXPECT_NE(e.find("invalid value '" + std::string(bad) + "' for --tessera-cuda-malloc-async: expected 0 or 1"),
              std::string::npos)
        << e;
  }
  EXPECT_NE(parse_error({"prog", "--tessera-bogus"}).find("--tessera-cuda-malloc-async=0|1"), std::string::npos);
}

TEST(NotInitialized, StateAndConfiguration) {
  EXPECT_FALSE(tessera::is_initialized());
  EXPECT_FALSE(tessera::is_finalized());
  std::ostringstream out;
  tessera::print_configuration(out);
  EXPECT_NE(out.str().find("Tessera " TESSERA_VERSION_STRING), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(not initialized)"), std::string::npos) << out.str();
  EXPECT_THROW(tessera::finalize(), std::runtime_error);
}

TEST_F(Lifecycle, FlagsSetTheThreadCountAndAreRemoved) {
  EXPECT_EXIT(child_flags_and_full_cycle(), ::testing::ExitedWithCode(0), "");
}

TEST_F(Lifecycle, EnvironmentSetsTheThreadCountAndFlagsWin) {
  EXPECT_EXIT(child_environment_threads(), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(child_flag_beats_environment(), ::testing::ExitedWithCode(0), "");
}

TEST_F(Lifecycle, MalformedEnvironmentIsAnError) {
  EXPECT_EXIT(child_malformed_environment(), ::testing::ExitedWithCode(3), "invalid value 'lots' for TESSERA_NUM_THREADS");
}

TEST_F(Lifecycle, ScopeGuardAndSettings) {
  EXPECT_EXIT(child_scope_guard(), ::testing::ExitedWithCode(0), "");
}

TEST_F(Lifecycle, PrintConfigurationAndHelpFlags) {
  EXPECT_EXIT(child_print_flags(), ::testing::ExitedWithCode(0), "");
}

// The whole 2 MiB pieces of large host blocks are advised as huge pages by default;
// the flag and TESSERA_HUGE_PAGES=0 turn the advice off, and a bad value of
// the variable is an error that names it. The advice is read back from the
// kernel's own record of the mapping (/proc/self/smaps), not from Tessera.
TEST_F(Lifecycle, HugePagesAdvisedForLargeHostBlocksUnlessDisabled) {
  if (!kernel_has_thp() || vm_flags_of(&kLarge).empty())
    GTEST_SKIP() << "this kernel has no transparent huge pages or no /proc/self/smaps VmFlags";
  EXPECT_EXIT(child_huge_pages(true, {"prog"}), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(child_huge_pages(false, {"prog", "--tessera-disable-huge-pages"}), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(child_huge_pages_environment("0", false), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(child_huge_pages_environment("1", true), ::testing::ExitedWithCode(0), "");
}

TEST_F(Lifecycle, MalformedHugePagesEnvironmentIsAnError) {
  EXPECT_EXIT(child_huge_pages_malformed_environment(), ::testing::ExitedWithCode(3),
              "invalid value 'yes' for TESSERA_HUGE_PAGES: expected 0 or 1");
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
