// The parallel readers and the Kronecker share: every rank reads only its
// byte range, yet the edges (gathered in rank order) are the node-level
// reader's, in file order; bad files are one error, the same on every
// rank, naming the file and the line the node-level reader names.
#include "dist_graph_test_util.hpp"
#include "tessera_test_temp.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace dist_graph_test;

namespace {

// The shares of all ranks, concatenated in rank order.
tg::edge_list gathered(const td::Comm& comm, const tg::edge_list& share) {
  tg::edge_list el;
  el.num_vertices = share.num_vertices;
  el.src = comm.allgatherv(share.src);
  el.dst = comm.allgatherv(share.dst);
  return el;
}

// A file written by rank 0 and seen by all (one machine: one file system),
// in rank 0's temporary folder (tessera_test_temp.hpp), which rank 0 removes
// when it exits. Every read is followed by a collective, so no rank still
// reads it then.
std::string shared_file(const td::Comm& comm, const std::string& name, const std::string& text) {
  const std::string path =
      comm.broadcast(comm.rank() == 0 ? tessera::test::write_temp_file("tessera_dist_" + name, text) : std::string());
  comm.barrier();
  return path;
}

// The message every rank got (or "" when none threw), checked equal on every rank.
template <class F>
std::string agreed_message(const td::Comm& comm, F&& read) {
  std::string msg;
  try {
    read();
  } catch (const td::dist_error& e) {
    msg = e.what();
  }
  const std::string first = comm.broadcast(msg);
  EXPECT_EQ(msg, first) << "rank " << comm.rank() << " got another message";
  return msg;
}

}  // namespace

TEST(DistGraphRead, RepositoryGraphsGiveTheNodeLevelEdgesInFileOrder) {
  const td::Comm comm;
  for (const char* f :
       {"graphs/karate.mtx", "graphs/jagmesh7.mtx", "graphs/G51.mtx", "graphs/bcspwr10.mtx",
        "graphs/oregon1_010331.txt", "graphs/facebook_combined.txt", "matrices/494_bus.mtx",
        "matrices/LFAT5.mtx", "bad/lagraph_west0067_jumbled.mtx", "bad/lagraph_comments_west0067.mtx"}) {
    SCOPED_TRACE(f);
    const auto whole = tg::read_edge_list(data(f));
    const auto share = td::read_edge_list(comm, data(f));
    const auto all = gathered(comm, share);
    EXPECT_EQ(share.num_vertices, whole.num_vertices);
    EXPECT_EQ(share.symmetric, whole.symmetric);
    EXPECT_EQ(all.src, whole.src);
    EXPECT_EQ(all.dst, whole.dst);
    if (comm.size() > 1 && whole.size() > 100) {
      EXPECT_LT(share.size(), whole.size()) << "one rank read everything";
    }
    expect_same_graph(td::DistGraph(comm, share), whole);
  }
}

TEST(DistGraphRead, BadFilesAreOneErrorNamingTheNodeLevelReadersLine) {
  const td::Comm comm;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data("bad"))) {
    const std::string path = entry.path().string();
    SCOPED_TRACE(path);
    std::string node_error;
    std::int64_t node_line = -1;
    tg::edge_list whole;
    try {
      whole = tg::read_edge_list(path);
    } catch (const tg::io_error& e) {
      node_error = e.what();
      node_line = e.line();
    }
    const std::string msg = agreed_message(comm, [&] { (void)td::read_edge_list(comm, path); });
    if (node_error.empty()) {
      EXPECT_EQ(msg, "");
      continue;
    }
    ++checked;
    EXPECT_NE(msg.find(path + ":" + std::to_string(node_line) + ": "), std::string::npos)
        << "dist: " << msg << "\nnode: " << node_error;
  }
  EXPECT_GE(checked, 5);
}

TEST(DistGraphRead, ABadLineInAnyRanksRangeIsNamedOnEveryRank) {
  const td::Comm comm;
  std::string text = "# a comment\n% another\n";
  for (int i = 0; i < 300; ++i) text += std::to_string(i) + "\t" + std::to_string((i * 7 + 1) % 300) + "\n";
  const std::string good = shared_file(comm, "good.txt", text);
  const auto el = gathered(comm, td::read_snap(comm, good));
  EXPECT_EQ(el.num_vertices, 300);
  EXPECT_EQ(el.src.size(), 300u);
  // Line 3 + 250 holds a bad target; line 3 + 280 a third field.
  std::string bad_text = "# a comment\n% another\n";
  for (int i = 0; i < 300; ++i)
    bad_text += std::to_string(i) + (i == 250 ? " x7" : i == 280 ? " 3 1.5" : " 4") + "\n";
  const std::string bad = shared_file(comm, "bad.txt", bad_text);
  const std::string msg = agreed_message(comm, [&] { (void)td::read_snap(comm, bad); });
  EXPECT_NE(msg.find(bad + ":253: target 'x7' is not a vertex id"), std::string::npos) << msg;
  // More and fewer Matrix Market entries than declared.
  const std::string more = shared_file(
      comm, "more.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n3 1\n");
  EXPECT_NE(agreed_message(comm, [&] { (void)td::read_matrix_market(comm, more); })
                .find(more + ":5: more entries than the 2 declared on line 2"),
            std::string::npos);
  const std::string fewer =
      shared_file(comm, "fewer.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n2 3\n");
  EXPECT_EQ(agreed_message(comm, [&] { (void)td::read_matrix_market(comm, fewer); }),
            fewer + ":4: the file ends after 2 of the 4 entries declared on line 2");
  const std::string missing = ::testing::TempDir() + "/tessera_dist_no_such_file.txt";
  EXPECT_NE(
      agreed_message(comm, [&] { (void)td::read_snap(comm, missing); }).find(missing + ":0: cannot open"),
      std::string::npos);
  EXPECT_NE(agreed_message(comm, [&] { (void)td::read_edge_list(comm, "g.tgb"); })
                .find("g.tgb:0: a binary CSR file"),
            std::string::npos);
  if (comm.rank() == 0)
    for (const auto& p : {good, bad, more, fewer}) std::remove(p.c_str());
}

TEST(DistGraphRead, KroneckerSharesAreTheNodeLevelGeneratorsEdges) {
  const td::Comm comm;
  for (auto [scale, ef, seed] : {std::tuple{10, 8, 7ull}, std::tuple{6, 3, 1ull}}) {
    const auto whole = tg::kronecker(scale, ef, seed);
    const auto share = td::kronecker(comm, scale, ef, seed);
    const auto all = gathered(comm, share);
    EXPECT_EQ(all.src, whole.src);
    EXPECT_EQ(all.dst, whole.dst);
    expect_same_graph(td::DistGraph(comm, share), whole);
  }
  EXPECT_THROW(td::kronecker(comm, 0, 4, 1), td::dist_error);
}
