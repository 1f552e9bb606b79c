// GoogleTest main for the dist suites, run under mpiexec: MPI and the
// Tessera runtime around the tests; rank 0 prints the usual report, the
// other ranks print only their failures (prefixed by the rank); every rank
// exits nonzero when any rank failed.
#include <gtest/gtest.h>
#include <tessera/core.hpp>
#include <tessera/dist/comm.hpp>

#include <cstdio>

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : m_rank(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", m_rank, r.file_name() ? r.file_name() : "?", r.line_number(),
                   r.summary());
  }

 private:
  int m_rank;
};

}  // namespace

int main(int argc, char** argv) {
  tessera::dist::Environment mpi(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  tessera::ScopeGuard guard(argc, argv);
  const tessera::dist::Comm world;
  if (world.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(world.rank()));
  }
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  return world.sum(failed) != 0 ? 1 : 0;
}
