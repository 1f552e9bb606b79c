// The factorization's memory (issue 26, part 6): Stats::peak_update_bytes
// and Stats::peak_factor_bytes against an independent count, and the
// update buffers' arena (detail/buffer_pool.hpp) holding close to the peak
// use, so that a refactorization neither grows memory nor goes back to the
// system for fresh pages.
//
// The reference replays the update matrices' lifetimes in the order a
// sequential run assembles the fronts: front s takes its mu x mu update
// buffer (mu = rows below its columns), then frees its children's. The
// order: postorder (supernodes are numbered children first; the task
// scheduler runs each whole tree as one subtree task when
// Options::subtree_fraction covers it), or the level sets bottom up (the
// level-set scheduler).
#include "sparse_test_util.hpp"

#include <algorithm>

using namespace sparse_test;

namespace {

std::size_t update_bytes(const ts::SymbolicFactor& f, std::int64_t s) {
  const std::size_t mu = std::size_t(f.nrows(s) - f.ncols(s));
  return mu * mu * sizeof(double);
}

// The largest total of live update buffers when the fronts are assembled
// in `order`.
std::size_t replay_peak(const ts::SymbolicFactor& f, const std::vector<std::int64_t>& order) {
  std::size_t live = 0, peak = 0;
  for (std::int64_t s : order) {
    live += update_bytes(f, s);
    peak = std::max(peak, live);
    for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) live -= update_bytes(f, f.child_list[k]);
  }
  return peak;
}

// The panels: each supernode's nrows x ncols block.
std::size_t panel_bytes(const ts::SymbolicFactor& f) {
  std::size_t bytes = 0;
  for (std::int64_t s = 0; s < f.nsuper; ++s) bytes += std::size_t(f.nrows(s) * f.ncols(s)) * sizeof(double);
  return bytes;
}

struct Case {
  const char* name;
  ts::Scheduler scheduler;
};

}  // namespace

TEST(SparseMemoryPeak, SequentialPeaksMatchAReplayOfTheUpdateLifetimes) {
  const auto A = ts::laplacian_3d<double>(16);
  for (const Case c : {Case{"tasks", ts::Scheduler::Tasks}, Case{"levelset", ts::Scheduler::LevelSet}}) {
    SCOPED_TRACE(c.name);
    ts::Options opt;
    opt.scheduler = c.scheduler;
    opt.subtree_fraction = 2.0;  // tasks: every tree one subtree task, run in postorder
    opt.max_block = 1 << 20;     // level sets: no front cut into 2D blocks
    ts::Cholesky<double, tessera::Serial> chol(opt);
    chol.analyze(A);
    chol.factorize(A);
    const auto& f = chol.symbolic();
    std::vector<std::int64_t> order;
    if (c.scheduler == ts::Scheduler::Tasks) {
      for (std::int64_t s = 0; s < f.nsuper; ++s) order.push_back(s);
    } else {
      for (const auto& level : ts::detail::assembly_tree_levels(f)) order.insert(order.end(), level.begin(), level.end());
    }
    const std::size_t updates = replay_peak(f, order), panels = panel_bytes(f);
    ASSERT_GT(updates, std::size_t(1) << 20);  // large enough for the arena to matter
    EXPECT_EQ(chol.stats().peak_update_bytes, updates);
    // The arena holds what was live at the peak plus the free blocks
    // between live ones: at least the peak use, and (best fit, free blocks
    // joined) not twice as much.
    const std::size_t first = chol.stats().peak_factor_bytes;
    EXPECT_GE(first, panels + updates);
    EXPECT_LE(first, panels + 2 * updates);
    // Refactorizations: once settled (the level sets outgrow the arena
    // reserved for a postorder run the first time, and the second
    // factorization gets one arena of the size they took), the same memory
    // and no fresh memory from the system. From the third on, their peak
    // counts the arena kept from the one before as held from the start,
    // plus the small buffers (under 64 KiB, from new) live at their most.
    const auto& pool = chol.numeric().update_pool();
    chol.factorize(A);
    chol.factorize(A);
    const std::size_t settled = chol.stats().peak_factor_bytes, held = pool.held_bytes();
    const std::size_t allocations = pool.arena_allocations();
    EXPECT_EQ(pool.arenas(), 1u);
    EXPECT_LE(settled, panels + held + updates);
    EXPECT_LE(held, 2 * updates);
    for (int run = 0; run < 3; ++run) {
      chol.factorize(A);
      EXPECT_EQ(chol.stats().peak_update_bytes, updates);
      EXPECT_EQ(chol.stats().peak_factor_bytes, settled) << "run " << run;
      EXPECT_EQ(pool.held_bytes(), held) << "run " << run;
      EXPECT_EQ(pool.live_bytes(), 0u);
    }
    EXPECT_EQ(pool.arena_allocations(), allocations) << "a refactorization took fresh memory";
    std::printf("[ memory   ] %s: panels %.2f MiB, update peak %.2f MiB, factorization peak %.2f MiB first, %.2f MiB "
                "refactorizing\n",
                c.name, panels / 1048576.0, updates / 1048576.0, first / 1048576.0, settled / 1048576.0);
  }
}

template <class Space>
class SparseMemoryPeakSpace : public SpaceTest<Space> {};
TYPED_TEST_SUITE(SparseMemoryPeakSpace, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(SparseMemoryPeakSpace, PeakIsAtLeastTheUseAndRefactorizationsDoNotGrowIt) {
  // Any schedule: the peak is at least the panels plus the live updates at
  // their peak, nothing stays live after a factorization, and the memory
  // kept between factorizations is what the arena touched, within what
  // every update buffer live at once would take.
  const auto A = ts::laplacian_3d<double>(14);
  for (auto kind : {ts::Factorization::Cholesky, ts::Factorization::LDLt}) {
    ts::Options opt;
    opt.factorization = kind;
    opt.max_block = 32;
    opt.subtree_fraction = 1.0 / 64;
    ts::Cholesky<double, TypeParam> chol(opt);
    chol.analyze(A);
    const auto& f = chol.symbolic();
    const auto& pool = chol.numeric().update_pool();
    std::size_t all = 0;
    for (std::int64_t s = 0; s < f.nsuper; ++s) all += update_bytes(f, s);
    std::size_t allocations = 0;
    for (int run = 0; run < 6; ++run) {
      chol.factorize(A);
      const auto& st = chol.stats();
      EXPECT_GE(st.peak_factor_bytes, panel_bytes(f) + st.peak_update_bytes);
      EXPECT_GE(st.peak_factor_bytes, panel_bytes(f) + pool.held_bytes());
      EXPECT_EQ(pool.live_bytes(), 0u);
      EXPECT_LE(pool.held_bytes(), all + all / 8);
      if (run == 1) allocations = pool.arena_allocations();
    }
    // A parallel schedule differs from run to run; once settled, one
    // outgrowing the arena is rare (each time, one fresh arena).
    EXPECT_LE(pool.arena_allocations(), allocations + 2);
  }
}
