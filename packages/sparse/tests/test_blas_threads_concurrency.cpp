// The BLAS thread seam (detail/blas_threads.hpp, label `concurrency`): the
// solver keeps the BLAS at one thread only while it runs and gives the
// program its own setting back afterwards, also when several host threads
// factorize at once (the counted save/restore: OpenBLAS has one thread
// count per process). With a BLAS that has no thread control (the
// reference BLAS) there is nothing to check and the tests say so.
#include "sparse_test_util.hpp"

#include <tessera/sparse/detail/blas_threads.hpp>

#include <barrier>
#include <thread>

using namespace sparse_test;
namespace td = tessera::sparse::detail;

namespace {

// Sets the program's BLAS thread count to 3 (or what the library grants)
// for one test and restores the previous one after it.
class ProgramBlasThreads {
 public:
  ProgramBlasThreads() : m_before(td::blas_threads()) {
    td::set_blas_threads(3);
    m_set = td::blas_threads();
  }
  ~ProgramBlasThreads() { td::set_blas_threads(m_before); }
  int set() const { return m_set; }

 private:
  int m_before = 1, m_set = 1;
};

#define SKIP_WITHOUT_THREAD_CONTROL()                                                              \
  do {                                                                                             \
    if (td::blas_library() == td::BlasLibrary::Unknown)                                            \
      GTEST_SKIP() << "the linked BLAS exports no thread control (OpenBLAS, BLIS or MKL names)";   \
  } while (0)

}  // namespace

TEST(SparseBlasThreads, TheLinkedLibraryIsRecognized) {
  SKIP_WITHOUT_THREAD_CONTROL();
  const std::string name = td::blas_library_name();
  EXPECT_TRUE(name == "OpenBLAS" || name == "BLIS" || name == "MKL") << name;
  ProgramBlasThreads program;
  EXPECT_GE(program.set(), 1);
}

TEST(SparseBlasThreads, NestedScopesFromTwoHostThreadsRestoreOnlyAtTheLastExit) {
  SKIP_WITHOUT_THREAD_CONTROL();
  ProgramBlasThreads program;
  if (program.set() == 1) GTEST_SKIP() << "the BLAS grants only one thread here: nothing to restore";
  // A enters, B enters, A leaves (B still running: the count must stay 1),
  // B leaves (the program's count comes back). The barrier orders the steps.
  std::barrier step(2);
  int seen_after_a_left = -1, seen_inside_a = -1;
  std::thread a([&] {
    {
      td::BlasSingleThreaded scope;
      seen_inside_a = td::blas_threads();
      step.arrive_and_wait();  // 1: A inside
      step.arrive_and_wait();  // 2: B inside
    }
    step.arrive_and_wait();  // 3: A left
    step.arrive_and_wait();  // 4: B has looked
  });
  std::thread b([&] {
    step.arrive_and_wait();  // 1
    {
      td::BlasSingleThreaded scope;
      step.arrive_and_wait();  // 2
      step.arrive_and_wait();  // 3
      seen_after_a_left = td::blas_threads();
    }
    step.arrive_and_wait();  // 4
  });
  a.join();
  b.join();
  EXPECT_EQ(seen_inside_a, 1);
  EXPECT_EQ(seen_after_a_left, 1) << "the first solver to finish restored the count while another still ran";
  EXPECT_EQ(td::blas_threads(), program.set());
}

template <class Space>
class SparseBlasThreadsSpace : public SpaceTest<Space> {};
TYPED_TEST_SUITE(SparseBlasThreadsSpace, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(SparseBlasThreadsSpace, FactorizeAndSolveGiveTheProgramsSettingBack) {
  SKIP_WITHOUT_THREAD_CONTROL();
  ProgramBlasThreads program;
  const auto A = ts::laplacian_3d<double>(9);
  for (auto scheduler : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet})
    for (auto kind : {ts::Factorization::Cholesky, ts::Factorization::LDLt}) {
      ts::Options opt;
      opt.scheduler = scheduler;
      opt.factorization = kind;
      opt.max_block = 16;
      ts::Cholesky<double, TypeParam> chol(opt);
      chol.analyze(A);
      chol.factorize(A);
      EXPECT_EQ(td::blas_threads(), program.set()) << "after factorize";
      const auto b = rhs_of_ones(A);
      std::vector<double> x(b.size());
      chol.solve(x.data(), b.data(), 1);
      EXPECT_EQ(td::blas_threads(), program.set()) << "after solve";
      chol.rcond();
      EXPECT_EQ(td::blas_threads(), program.set()) << "after rcond";
      EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-13);
    }
}

TEST(SparseBlasThreads, TwoHostThreadsFactorizingAtOnceGiveTheSettingBack) {
  SKIP_WITHOUT_THREAD_CONTROL();
  ProgramBlasThreads program;
  // Each host thread owns a Serial solver and factorizes and solves many
  // times, so that the two solvers' scopes overlap in every way.
  std::vector<double> worst(2, 0.0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([t, &worst] {
      const auto A = ts::laplacian_3d<double>(7 + t);
      ts::Options opt;
      opt.scheduler = t == 0 ? ts::Scheduler::Tasks : ts::Scheduler::LevelSet;
      ts::Cholesky<double, tessera::Serial> chol(opt);
      chol.analyze(A);
      const auto b = rhs_of_ones(A);
      std::vector<double> x(b.size());
      for (int run = 0; run < 30; ++run) {
        chol.factorize(A);
        chol.solve(x.data(), b.data(), 1);
        worst[t] = max_nan(worst[t], backward_error(A, x.data(), b.data()));
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(td::blas_threads(), program.set());
  EXPECT_LE(worst[0], 1e-13);
  EXPECT_LE(worst[1], 1e-13);
}
