// Concurrency stress (label `concurrency`, run under ThreadSanitizer in CI):
// the factorization DAG must give the same bits on every run (each block's
// updates are chained in a fixed order through the last-writer futures), and
// independent solvers must be usable from several host threads at once.
#include "sparse_test_util.hpp"

#include <thread>

using namespace sparse_test;

template <class Space>
class SparseConcurrency : public SpaceTest<Space> {};
TYPED_TEST_SUITE(SparseConcurrency, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(SparseConcurrency, RepeatedFactorizationsAreBitwiseIdentical) {
  using Space = TypeParam;
  const auto A = ts::laplacian_3d<double>(11);
  ts::Options opt;
  opt.max_block = 8;                 // many small blocks: many tasks in flight
  opt.task_memory_bytes = 96 << 10;  // a small pool: the generator waits for room
  opt.task_window = 8;
  opt.subtree_fraction = 1.0 / 512;
  ts::Cholesky<double, Space> chol(opt);
  chol.analyze(A);
  chol.factorize(A);
  const auto& f = chol.symbolic();
  auto lower = [&] {
    std::vector<double> v;
    for (std::int64_t s = 0; s < f.nsuper; ++s)
      for (std::int64_t c = 0; c < f.ncols(s); ++c)
        for (std::int64_t r = c; r < f.nrows(s); ++r) v.push_back(chol.factor_values()[f.lx_ptr[s] + r + c * f.nrows(s)]);
    return v;
  };
  const auto first = lower();
  for (int run = 0; run < 15; ++run) {
    chol.factorize(A);
    ASSERT_EQ(lower(), first) << "run " << run;
  }
  const auto b = rhs_of_ones(A);
  std::vector<double> x(b.size());
  chol.solve(x.data(), b.data(), 1);
  EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-14);
}

TEST(SparseConcurrencyHost, SolversOnSeveralHostThreadsAtOnce) {
  // Each host thread owns a Serial solver (a back-end's thread pool serves
  // one caller at a time, as in Kokkos); the OpenBLAS thread setting and the
  // ordering libraries are shared by all of them.
  const int threads = 4;
  std::vector<std::thread> pool;
  std::vector<double> worst(threads, 0.0);
  std::vector<std::string> errors(threads);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([t, &worst, &errors] {
      try {
        const auto A = t % 2 ? ts::laplacian_3d<double>(8 + t) : ts::laplacian_2d<double>(20 + t);
        ts::Options opt;
        opt.ordering = t % 2 ? ts::Ordering::Scotch : ts::Ordering::Metis;
        opt.scheduler = t < 2 ? ts::Scheduler::Tasks : ts::Scheduler::LevelSet;
        opt.max_block = 16;
        ts::Cholesky<double, tessera::Serial> chol(opt);
        for (int rep = 0; rep < 5; ++rep) {
          chol.analyze(A);
          chol.factorize(A);
          const auto b = rhs_of_ones(A);
          std::vector<double> x(b.size());
          chol.solve(x.data(), b.data(), 1);
          worst[t] = std::max(worst[t], backward_error(A, x.data(), b.data()));
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_LE(worst[t], 1e-14) << "thread " << t;
  }
}
