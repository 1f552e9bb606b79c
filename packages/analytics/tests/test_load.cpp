// Inputs: bad files and specs are rejected naming the file and line (or the
// spec); loops and duplicate entries are dropped/merged and counted.
#include "analytics_test_util.hpp"
#include "tessera_test_temp.hpp"

#include <fstream>

using namespace analytics_test;
using tessera::test::write_temp_file;

namespace {

// The message starts with "<path>:<line>:".
void expect_io_error_at(const std::string& path, int line) {
  try {
    const auto el = ta::load_edges(path);
    ADD_FAILURE() << path << " was accepted (" << el.size() << " entries)";
  } catch (const tg::io_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":" + std::to_string(line) + ":", 0), 0u) << e.what();
    EXPECT_EQ(e.line(), line);
    EXPECT_FALSE(e.problem().empty());
  }
}
}  // namespace

TEST(AnalyticsLoad, BadFilesNameTheirFileAndLine) {
  expect_io_error_at(write_temp_file("bad_entry.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 x\n"), 4);
  expect_io_error_at(write_temp_file("out_of_range.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n4 1\n"), 3);
  expect_io_error_at(write_temp_file("no_banner.mtx", "3 3 1\n2 1\n"), 1);
  expect_io_error_at(write_temp_file("bad_line.txt", "# a SNAP list\n0 1\n1 2\n2 frog\n"), 4);
  expect_io_error_at(write_temp_file("negative.txt", "0 1\n-1 2\n"), 2);
  expect_io_error_at("/nonexistent/graph.txt", 0);
}

TEST(AnalyticsLoad, BadGeneratorSpecsNameTheSpec) {
  for (const char* spec : {"kron:", "kron:x:4", "kron:4", "kron:4:4:4:4", "kron:0:4", "kron:40:4", "kron:4:0",
                           "kron:4:4:-1", "kron:4:4:z"}) {
    try {
      ta::load_edges(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(spec), std::string::npos) << e.what();
    }
  }
}

TEST(AnalyticsLoad, LoopsAndDuplicatesAreDroppedAndCounted) {
  // Triangle 0-1-2 listed with both directions, a repeat, two loops, and a
  // pendant edge: 4 edges, 1 triangle.
  const std::string p = write_temp_file("messy.txt", "# messy\n0 1\n1 0\n1 2\n2 0\n0 2\n0 1\n3 3\n1 1\n2 3\n");
  const auto el = ta::load_edges(p);
  ta::cleanup_counts c;
  const auto g = ta::build_simple<Graph<tessera::Serial>>(el, &c);
  EXPECT_EQ(c.listed, 9);
  EXPECT_EQ(c.self_loops, 2);
  EXPECT_EQ(c.duplicates, 3);
  EXPECT_EQ(c.edges, 4);
  EXPECT_EQ(g.num_edges(), 4);
  for (const auto& opts : every_method(1)) EXPECT_EQ(ta::minitri(g, opts).histogram, (std::map<int, std::int64_t>{{3, 1}}));
}

TEST(AnalyticsLoad, KroneckerSpecIsTheGraphPackagesGenerator) {
  const auto a = ta::load_edges("kron:6:4");
  const auto b = tg::kronecker(6, 4, 1);
  EXPECT_EQ(a.src, b.src);
  EXPECT_EQ(a.dst, b.dst);
  EXPECT_EQ(a.num_vertices, 64);
  const auto c = ta::load_edges("kron:6:4:9");
  EXPECT_NE(c.src, a.src);
}

TEST(AnalyticsLoad, BadOptionsAreRejected) {
  const auto g = ta::build_simple<Graph<tessera::Serial>>(ta::load_edges("kron:4:4"));
  ta::minitri_options o;
  o.method = ta::method::tasks;
  o.block_size = 0;
  EXPECT_THROW(ta::minitri(g, o), std::invalid_argument);
  EXPECT_THROW(ta::parse_method("fast"), std::invalid_argument);
  EXPECT_EQ(ta::parse_method("tasks"), ta::method::tasks);
}
