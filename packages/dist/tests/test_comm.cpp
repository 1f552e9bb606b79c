// The MPI layer: collectives against closed forms, the error agreement (one
// rank's failure is the same dist_error on every rank, no hang), and the 1-D
// partition balanced by weight.
#include <tessera/dist.hpp>

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

namespace td = tessera::dist;

TEST(Comm, CollectivesAgreeWithClosedForms) {
  const td::Comm comm;
  const int P = comm.size(), r = comm.rank();
  EXPECT_EQ(comm.sum<std::int64_t>(r + 1), std::int64_t(P) * (P + 1) / 2);
  EXPECT_EQ(comm.max(r), P - 1);
  EXPECT_EQ(comm.min(r), 0);
  const auto all = comm.allgather<int>(10 * r);
  ASSERT_EQ(int(all.size()), P);
  for (int q = 0; q < P; ++q) EXPECT_EQ(all[std::size_t(q)], 10 * q);
  // Rank r sends q + 1 copies of r * 100 + q to rank q.
  std::vector<std::int64_t> send, offsets{0};
  for (int q = 0; q < P; ++q) {
    for (int k = 0; k <= q; ++k) send.push_back(r * 100 + q);
    offsets.push_back(std::int64_t(send.size()));
  }
  std::vector<std::int64_t> roff;
  const auto got = comm.alltoallv(send, offsets, &roff);
  ASSERT_EQ(std::int64_t(got.size()), std::int64_t(P) * (r + 1));
  for (int q = 0; q < P; ++q) {
    EXPECT_EQ(roff[std::size_t(q) + 1] - roff[std::size_t(q)], r + 1);
    for (auto i = roff[std::size_t(q)]; i < roff[std::size_t(q) + 1]; ++i) EXPECT_EQ(got[std::size_t(i)], q * 100 + r);
  }
  std::vector<std::int64_t> off;
  const auto cat = comm.allgatherv(std::vector<int>(std::size_t(r), r), &off);
  EXPECT_EQ(std::int64_t(cat.size()), std::int64_t(P) * (P - 1) / 2);
  for (int q = 0; q < P; ++q)
    for (auto i = off[std::size_t(q)]; i < off[std::size_t(q) + 1]; ++i) EXPECT_EQ(cat[std::size_t(i)], q);
  std::vector<double> v{1.0 * r, 2.0};
  comm.sum_in_place(v);
  EXPECT_DOUBLE_EQ(v[0], P * (P - 1) / 2.0);
  EXPECT_DOUBLE_EQ(v[1], 2.0 * P);
  EXPECT_EQ(comm.broadcast(std::string(r == 0 ? "from rank 0" : "other")), "from rank 0");
  EXPECT_GT(comm.volume().calls, 0);
}

TEST(Comm, OneRanksFailureIsTheSameErrorOnEveryRankAndTheNextCollectiveStillWorks) {
  const td::Comm comm;
  const int P = comm.size();
  const int bad = P - 1;  // the last rank fails
  try {
    comm.agreed([&] {
      if (comm.rank() == bad) throw std::runtime_error("file 'x.el', line 7: not a number");
      return 1;
    });
    ADD_FAILURE() << "every rank must throw";
  } catch (const td::dist_error& e) {
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(bad) + ": file 'x.el', line 7: not a number");
  }
  // Two ranks failing: the lowest one's message, and the count of the others.
  if (P >= 2) {
    try {
      comm.agree(comm.rank() >= P - 2 ? "rank-local problem " + std::to_string(comm.rank()) : "");
      ADD_FAILURE() << "every rank must throw";
    } catch (const td::dist_error& e) {
      EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(P - 2) + " (and 1 more): rank-local problem " +
                                           std::to_string(P - 2));
    }
  }
  EXPECT_NO_THROW(comm.agree(""));
  EXPECT_EQ(comm.sum(1), P);
}

TEST(Comm, ACheckThatFailsOnOneRankBeforeAnExchangeIsTheSameErrorOnEveryRank) {
  const td::Comm comm;
  const int P = comm.size(), bad = P - 1;
  std::vector<std::int64_t> send{1, 2, 3}, offsets(std::size_t(P) + 1, 0);
  offsets.back() = 3;  // everything to the last rank
  // The caller's own problem, handed to the exchange.
  try {
    comm.alltoallv(send, offsets, nullptr, comm.rank() == bad ? "values one short" : "");
    ADD_FAILURE() << "every rank must throw";
  } catch (const td::dist_error& e) {
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(bad) + ": values one short");
  }
  // Offsets that do not fit the buffer, on one rank only.
  std::vector<std::int64_t> wrong = offsets;
  if (comm.rank() == bad) wrong.back() = 4;
  try {
    comm.alltoallv(send, wrong);
    ADD_FAILURE() << "every rank must throw";
  } catch (const td::dist_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(bad) + ": tessera::dist::Comm::alltoallv: send_offsets["),
              std::string::npos)
        << e.what();
  }
  // And the next exchange works.
  const auto got = comm.alltoallv(send, offsets);
  EXPECT_EQ(got.size(), comm.rank() == P - 1 ? std::size_t(3) * std::size_t(P) : std::size_t(0));
}

TEST(Partition, BalancedByWeightNotCount) {
  // One heavy index (weight 100) then 100 of weight 1: two ranks split the
  // weight, not the count.
  std::vector<std::int64_t> prefix{0, 100};
  for (int i = 0; i < 100; ++i) prefix.push_back(prefix.back() + 1);
  const auto p = td::Partition::balanced(prefix, 2);
  EXPECT_EQ(p.begin(0), 0);
  EXPECT_EQ(p.end(0), 1);
  EXPECT_EQ(p.end(1), 101);
  // Weights of every range within the largest single weight of the ideal.
  std::vector<std::int64_t> w(1000);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::int64_t(i % 17);
  std::vector<std::int64_t> pre(w.size() + 1, 0);
  std::partial_sum(w.begin(), w.end(), pre.begin() + 1);
  for (int ranks : {1, 2, 3, 4, 7}) {
    const auto q = td::Partition::balanced(pre, ranks);
    ASSERT_EQ(q.ranks(), ranks);
    EXPECT_EQ(q.size(), 1000);
    for (int r = 0; r < ranks; ++r) {
      const double share = double(pre[std::size_t(q.end(r))] - pre[std::size_t(q.begin(r))]);
      EXPECT_NEAR(share, double(pre.back()) / ranks, 16.0) << ranks << " ranks, rank " << r;
      for (std::int64_t i = q.begin(r); i < q.end(r); i += 37) EXPECT_EQ(q.owner(i), r);
    }
  }
  const auto u = td::Partition::uniform(10, 4);
  EXPECT_EQ(u.offsets(), (std::vector<std::int64_t>{0, 3, 6, 8, 10}));
  EXPECT_EQ(u.owner(0), 0);
  EXPECT_EQ(u.owner(9), 3);
  EXPECT_THROW(td::Partition(std::vector<std::int64_t>{0, 5, 3}), std::invalid_argument);
}
