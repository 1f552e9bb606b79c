// The parallel readers and the counting CSR build: every chunk size gives
// the edges the text holds (chunk edges on line ends, CRLF, no final newline,
// comments, empty and one-line files), errors name the right line and token
// whatever the chunking, denormals and rectangular matrices are read, and
// the counting build gives the rows, edge indices and edge origins of a
// brute-force reference on every back-end, with and without its per-block
// counters.
#include "graph_test_util.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

using namespace graph_test;

namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  return write_temp_file("tessera_graph_pio_" + name, text);
}

tg::read_options chunked(std::int64_t bytes) {
  tg::read_options o;
  o.chunk_bytes = bytes;
  return o;
}

// Chunk sizes from one byte (every line its own chunk, most chunks empty)
// to one chunk for the whole file (the sequential case).
const std::int64_t kChunkSizes[] = {1, 2, 3, 5, 8, 13, 64, 1000, std::int64_t(1) << 40};

std::string io_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const tg::io_error& e) {
    return e.what();
  }
  return "(no error)";
}

struct edge {
  std::int64_t u, v;
  double w;
  bool operator==(const edge&) const = default;
};

std::vector<edge> edges_of(const tg::edge_list& el) {
  std::vector<edge> r;
  for (std::int64_t i = 0; i < el.size(); ++i)
    r.push_back({el.src[std::size_t(i)], el.dst[std::size_t(i)], el.has_weights() ? el.weights[std::size_t(i)] : 0.0});
  return r;
}

}  // namespace

TEST(ParallelRead, SnapEveryChunkSizeGivesTheEdgesOfTheText) {
  // The text is written from known edges, with comments, blank lines, tabs,
  // CRLF line ends and no final newline mixed in.
  std::mt19937_64 rng(5);
  std::vector<edge> want;
  std::string text = "# a header comment\n% another\n";
  for (int i = 0; i < 400; ++i) {
    const edge e{std::int64_t(rng() % 1000), std::int64_t(rng() % 1000), double(rng() % 64) / 8};
    want.push_back(e);
    text += std::to_string(e.u) + (i % 3 ? " " : "\t") + std::to_string(e.v) + "  " + std::to_string(e.w);
    text += i % 5 == 0 ? "\r\n" : "\n";
    if (i % 17 == 0) text += "# comment between edges\n";
    if (i % 23 == 0) text += "\n   \n";
  }
  text.pop_back();  // no newline after the last line
  const std::string p = temp_file("mixed.txt", text);
  std::int64_t n = 0;
  for (auto& e : want) n = std::max({n, e.u + 1, e.v + 1});
  for (auto bytes : kChunkSizes) {
    SCOPED_TRACE(bytes);
    auto el = tg::read_snap(p, chunked(bytes));
    EXPECT_EQ(el.num_vertices, n);
    EXPECT_EQ(edges_of(el), want);
  }
}

TEST(ParallelRead, LineEndsExactlyOnChunkEdges) {
  // Every line is "ddd ddd\n", 8 bytes: chunks of 8, 16 and 24 bytes end
  // exactly after a '\n', so no boundary search moves.
  std::string text;
  std::vector<edge> want;
  for (int i = 0; i < 64; ++i) {
    const edge e{100 + i, 200 + (i * 7) % 100, 0};
    want.push_back(e);
    text += std::to_string(e.u) + " " + std::to_string(e.v) + "\n";
  }
  ASSERT_EQ(text.size(), 64u * 8);
  const std::string p = temp_file("aligned.txt", text);
  for (std::int64_t bytes : {7, 8, 9, 16, 24, 512, 513}) {
    SCOPED_TRACE(bytes);
    EXPECT_EQ(edges_of(tg::read_snap(p, chunked(bytes))), want);
  }
  // A bad token on line 33 (the first line of a chunk of 8 bytes) and 34.
  text.replace(32 * 8, 3, "1x0");
  text.replace(33 * 8 + 4, 3, "-20");
  const std::string q = temp_file("aligned_bad.txt", text);
  for (std::int64_t bytes : {8, 16, 7, 1000}) {
    SCOPED_TRACE(bytes);
    const std::string msg = io_message([&] { tg::read_snap(q, chunked(bytes)); });
    EXPECT_NE(msg.find(q + ":33: source '1x0' is not a vertex id"), std::string::npos) << msg;
    EXPECT_NE(msg.find("also line 34: target '-20' is not a vertex id"), std::string::npos) << msg;
  }
}

TEST(ParallelRead, EmptyOneLineAndCommentOnlyFiles) {
  for (auto bytes : kChunkSizes) {
    SCOPED_TRACE(bytes);
    auto empty = tg::read_snap(temp_file("empty.txt", ""), chunked(bytes));
    EXPECT_EQ(empty.num_vertices, 0);
    EXPECT_EQ(empty.size(), 0);
    auto comments = tg::read_snap(temp_file("comments.txt", "# only\n% comments\n\n"), chunked(bytes));
    EXPECT_EQ(comments.size(), 0);
    auto one = tg::read_snap(temp_file("one.txt", "3 4"), chunked(bytes));
    EXPECT_EQ(one.num_vertices, 5);
    EXPECT_EQ(edges_of(one), (std::vector<edge>{{3, 4, 0}}));
    auto crlf = tg::read_snap(temp_file("crlf.txt", "0 1\r\n1 2\r\n"), chunked(bytes));
    EXPECT_EQ(edges_of(crlf), (std::vector<edge>{{0, 1, 0}, {1, 2, 0}}));
    EXPECT_NE(io_message([&] { tg::read_matrix_market(temp_file("empty.mtx", ""), chunked(bytes)); }).find(":0: empty file"),
              std::string::npos);
  }
}

TEST(ParallelRead, MatrixMarketChunksCountsAndLines) {
  std::string text = "%%MatrixMarket matrix coordinate real general\r\n% comment\r\n5 5 40\r\n";
  std::vector<edge> want;
  for (int i = 0; i < 40; ++i) {
    const edge e{i % 5, (i * 3) % 5, 0.5 * i - 3};
    want.push_back(e);
    text += std::to_string(e.u + 1) + " " + std::to_string(e.v + 1) + " " + std::to_string(e.w) + (i % 2 ? "\r\n" : "\n");
    if (i % 9 == 0) text += "% comment between entries\n\n";
  }
  const std::string p = temp_file("chunks.mtx", text);
  for (auto bytes : kChunkSizes) {
    SCOPED_TRACE(bytes);
    auto el = tg::read_matrix_market(p, chunked(bytes));
    EXPECT_EQ(el.num_vertices, 5);
    EXPECT_EQ(edges_of(el), want);
  }
  // Too many and too few entries: the line of the first extra entry, and the last line.
  const std::string many = temp_file("many.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n% c\n2 3\n\n3 1\n1 1\n");
  const std::string few = temp_file("few.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 5\n1 2\n% c\n2 3\n\n");
  for (auto bytes : kChunkSizes) {
    SCOPED_TRACE(bytes);
    EXPECT_NE(io_message([&] { tg::read_matrix_market(many, chunked(bytes)); }).find(many + ":7: more entries than the 2 declared on line 2"),
              std::string::npos);
    EXPECT_NE(io_message([&] { tg::read_matrix_market(few, chunked(bytes)); }).find(few + ":6: the file ends after 2 of the 5 entries declared on line 2"),
              std::string::npos);
  }
}

TEST(ParallelRead, TheFirstBadLineIsNamedWhateverTheChunking) {
  std::string text = "%%MatrixMarket matrix coordinate integer general\n100 100 300\n";
  for (int i = 0; i < 300; ++i) {
    if (i == 150) text += "7 8 nine\n";       // line 153
    else if (i == 200) text += "7 800 9\n";   // line 203
    else if (i == 260) text += "7\n";         // line 263
    else text += std::to_string(1 + i % 100) + " " + std::to_string(1 + (i * 7) % 100) + " " + std::to_string(i) + "\n";
  }
  const std::string p = temp_file("bad_lines.mtx", text);
  for (auto bytes : kChunkSizes) {
    SCOPED_TRACE(bytes);
    const std::string msg = io_message([&] { tg::read_matrix_market(p, chunked(bytes)); });
    EXPECT_EQ(msg, p + ":153: value 'nine' is not an integer (also line 203: column index 800 outside 1..100; line 263: "
                       "an integer entry needs 3 fields (row column value), found 1: '7')");
  }
}

TEST(ParallelRead, DenormalsAreReadAndOnlyOverflowIsRefused) {
  const std::string p = temp_file("denormal.mtx",
                                  "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 4.9406564584124654e-324\n"
                                  "1 2 2.2250738585072e-309\n2 1 -1e-310\n2 2 1e-400\n");
  auto el = tg::read_matrix_market(p);
  ASSERT_EQ(el.size(), 4);
  EXPECT_EQ(el.weights[0], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(std::fpclassify(el.weights[1]), FP_SUBNORMAL);
  EXPECT_NEAR(el.weights[1], 2.2250738585072e-309, 1e-320);
  EXPECT_EQ(std::fpclassify(el.weights[2]), FP_SUBNORMAL);
  EXPECT_LT(el.weights[2], 0);
  EXPECT_EQ(el.weights[3], 0.0);  // below the smallest denormal: rounds to zero
  const std::string big = temp_file("overflow.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e400\n");
  EXPECT_NE(io_message([&] { tg::read_matrix_market(big); }).find(big + ":4: value '1e400' is too large for a double"),
            std::string::npos);
  auto snap = tg::read_snap(temp_file("denormal.txt", "0 1 1e-320\n1 2 0x1p-1074\n"));
  EXPECT_EQ(std::fpclassify(snap.weights[0]), FP_SUBNORMAL);
  EXPECT_EQ(snap.weights[1], std::numeric_limits<double>::denorm_min());  // hexadecimal, as strtod reads it
  const std::string sbig = temp_file("overflow.txt", "0 1 2\n1 2 -1e999\n");
  EXPECT_NE(io_message([&] { tg::read_snap(sbig); }).find(sbig + ":2: weight '-1e999' is too large for a double"),
            std::string::npos);
}

TEST(ParallelRead, RectangularMatricesAreBipartiteGraphsOrAsTheCallerSays) {
  const std::string p = temp_file("rect.mtx",
                                  "%%MatrixMarket matrix coordinate real general\n2 3 4\n1 1 1.5\n1 3 2\n2 2 -1\n2 3 4\n");
  auto bi = tg::read_matrix_market(p);
  EXPECT_TRUE(bi.bipartite);
  EXPECT_EQ(bi.mm_rows, 2);
  EXPECT_EQ(bi.mm_cols, 3);
  EXPECT_EQ(bi.num_vertices, 5);
  EXPECT_EQ(edges_of(bi), (std::vector<edge>{{0, 2, 1.5}, {0, 4, 2}, {1, 3, -1}, {1, 4, 4}}));
  // As a graph: every edge joins a row vertex to a column vertex.
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace>;
  G g(bi);
  EXPECT_EQ(rows_of(g), (std::vector<std::vector<std::int64_t>>{{2, 4}, {3, 4}, {0}, {1}, {0, 1}}));
  tg::read_options idx;
  idx.rectangular = tg::rectangular_matrix::indices;
  auto raw = tg::read_matrix_market(p, idx);
  EXPECT_FALSE(raw.bipartite);
  EXPECT_EQ(raw.num_vertices, 3);
  EXPECT_EQ(edges_of(raw), (std::vector<edge>{{0, 0, 1.5}, {0, 2, 2}, {1, 1, -1}, {1, 2, 4}}));
  tg::read_options refuse;
  refuse.rectangular = tg::rectangular_matrix::refuse;
  EXPECT_NE(io_message([&] { tg::read_matrix_market(p, refuse); }).find(p + ":2: the matrix is 2 x 3; a square matrix is needed"),
            std::string::npos);
  // Column indices are checked against the columns, rows against the rows.
  const std::string bad = temp_file("rect_bad.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n3 1\n");
  EXPECT_NE(io_message([&] { tg::read_matrix_market(bad); }).find(bad + ":4: row index 3 outside 1..2"), std::string::npos);
  // A symmetric matrix must still be square.
  const std::string sym = temp_file("rect_sym.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n2 3 1\n1 1\n");
  EXPECT_NE(io_message([&] { tg::read_matrix_market(sym); }).find(sym + ":2: the matrix is 2 x 3; a symmetric matrix must be square"),
            std::string::npos);
  // Written back, it is the same rectangular matrix.
  const std::string out = (graph_test::temp_path("tessera_graph_pio_rect_out.mtx")).string();
  tg::write_matrix_market(out, bi);
  auto back = tg::read_matrix_market(out);
  EXPECT_EQ(back.mm_rows, 2);
  EXPECT_EQ(back.mm_cols, 3);
  EXPECT_EQ(edges_of(back), edges_of(bi));
}

TEST(ParallelRead, SnapWriterRoundTrip) {
  auto el = random_edges(300, 2000, 17);
  for (std::int64_t i = 0; i < el.size(); ++i) el.weights.push_back(0.1 * double(i) - 7);
  const std::string p = (graph_test::temp_path("tessera_graph_pio_rt.el")).string();
  tg::write_snap(p, el);
  auto back = tg::read_snap(p, chunked(100));
  EXPECT_EQ(edges_of(back), edges_of(el));  // shortest round-trip weights read back exactly
}

TEST(ParallelRead, ProgressReportsEveryPhaseInOrder) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += std::to_string(i) + " " + std::to_string((i * 13) % 5000) + "\n";
  const std::string p = temp_file("progress.txt", text);
  struct seen_t {
    std::vector<std::string> phases;
    std::int64_t last_done = -1, total = 0;
    bool monotone = true;
  } seen;
  tg::read_options o = chunked(512);
  o.progress_user = &seen;
  o.progress = [](const char* phase, std::int64_t done, std::int64_t total, void* user) {
    auto* s = static_cast<seen_t*>(user);
    if (s->phases.empty() || s->phases.back() != phase) {
      s->phases.push_back(phase);
      s->last_done = -1;
    }
    s->monotone = s->monotone && done > s->last_done && done <= total;
    s->last_done = done;
    s->total = total;
  };
  auto el = tg::read_snap(p, o);
  EXPECT_EQ(seen.phases, (std::vector<std::string>{"reading", "parsing"}));
  EXPECT_TRUE(seen.monotone);
  EXPECT_EQ(seen.last_done, seen.total);
  tg::build_options b = tg::build_options::simple();
  b.progress = o.progress;
  b.progress_user = &seen;
  tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace> g(el, b);
  EXPECT_EQ(seen.phases.back(), "building");
  EXPECT_EQ(seen.last_done, seen.total);
  EXPECT_TRUE(seen.monotone);
}

// ---- the counting build against a brute-force reference ----

namespace {

// The documented CSR of an edge list, built the slow way: rows sorted by
// (target, input position), duplicates kept or dropped (the first stays);
// undirected: each edge in both rows, a self-loop once. Edge indices:
// slots with target >= source numbered row by row, the k-th duplicate of
// {u, v} in row v sharing the index of the k-th in row u. Origins: per edge
// index, the input position of its slot in the smaller row.
struct reference_csr {
  std::vector<std::int64_t> row_map, entries, edge_ids, origin;
};

reference_csr brute_force(const tg::edge_list& el, bool undirected, tg::build_options o) {
  const std::int64_t n = el.num_vertices;
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> rows(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < el.size(); ++i) {
    const std::int64_t u = el.src[std::size_t(i)], v = el.dst[std::size_t(i)];
    if (u == v && o.remove_self_loops) continue;
    rows[std::size_t(u)].push_back({v, i});
    if (undirected && u != v) rows[std::size_t(v)].push_back({u, i});
  }
  reference_csr r;
  r.row_map.push_back(0);
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> kept(static_cast<std::size_t>(n));
  for (std::int64_t u = 0; u < n; ++u) {
    auto& row = rows[std::size_t(u)];
    std::sort(row.begin(), row.end());
    for (std::size_t k = 0; k < row.size(); ++k)
      if (!o.remove_duplicates || k == 0 || row[k].first != row[k - 1].first) kept[std::size_t(u)].push_back(row[k]);
    for (auto& [t, i] : kept[std::size_t(u)]) r.entries.push_back(t);
    r.row_map.push_back(std::int64_t(r.entries.size()));
  }
  if (!undirected) {
    for (std::int64_t k = 0; k < std::int64_t(r.entries.size()); ++k) r.edge_ids.push_back(k);
    for (auto& row : kept)
      for (auto& [t, i] : row) r.origin.push_back(i);
    return r;
  }
  r.edge_ids.assign(r.entries.size(), -1);
  std::int64_t next = 0;
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t j = r.row_map[std::size_t(u)]; j < r.row_map[std::size_t(u) + 1]; ++j) {
      const std::int64_t v = r.entries[std::size_t(j)];
      if (v < u) continue;
      const std::int64_t id = next++;
      r.edge_ids[std::size_t(j)] = id;
      r.origin.push_back(kept[std::size_t(u)][std::size_t(j - r.row_map[std::size_t(u)])].second);
      if (v == u) continue;
      // Which duplicate of v in row u is this, and the same one of u in row v.
      std::int64_t dup = 0;
      for (std::int64_t k = r.row_map[std::size_t(u)]; k < j; ++k) dup += r.entries[std::size_t(k)] == v;
      for (std::int64_t k = r.row_map[std::size_t(v)]; k < r.row_map[std::size_t(v) + 1]; ++k)
        if (r.entries[std::size_t(k)] == u && dup-- == 0) {
          r.edge_ids[std::size_t(k)] = id;
          break;
        }
    }
  return r;
}

template <class G>
reference_csr built(const tg::edge_list& el, tg::build_options o) {
  tessera::View<std::int64_t*, typename G::space_type> origin;
  G g(el, o, &origin);
  reference_csr r;
  auto rm = tg::detail::to_host_vector(g.row_map());
  auto en = tg::detail::to_host_vector(g.entries());
  r.row_map.assign(rm.begin(), rm.end());
  r.entries.assign(en.begin(), en.end());
  if constexpr (tg::graph_traits<G>::is_undirected) {
    auto ids = tg::detail::to_host_vector(g.edge_ids());
    r.edge_ids.assign(ids.begin(), ids.end());
  } else {
    for (std::int64_t k = 0; k < std::int64_t(r.entries.size()); ++k) r.edge_ids.push_back(k);
  }
  auto o2 = tg::detail::to_host_vector(origin);
  r.origin.assign(o2.begin(), o2.end());
  // Without an origin map the rows are the same.
  G plain(el, o);
  EXPECT_EQ(tg::detail::to_host_vector(plain.entries()), en);
  EXPECT_EQ(tg::detail::to_host_vector(plain.row_map()), rm);
  if constexpr (tg::graph_traits<G>::is_undirected) {
    // Nothing asked for plain's edge ids: its out-edges compute each index
    // (a lower slot by a search of its twin's row), and must give the
    // stored array's, without storing one.
    using V = typename G::vertex_descriptor;
    EXPECT_FALSE(plain.has_stored_edge_ids());
    const std::size_t bytes = plain.memory_bytes();
    tessera::View<std::int64_t*, typename G::space_type> computed("computed_ids", std::size_t(plain.num_stored_edges()));
    tg::forall_vertices(plain, TESSERA_LAMBDA(V v) {
      const auto row = tg::out_edges(v, plain);
      for (auto it = row.begin(); it != row.end(); ++it) {
        computed(it.slot()) = std::int64_t(tg::get_edge_index(*it, plain));
        if (plain.slot_edge_index(v, it.slot()) != (*it).id) computed(it.slot()) = -2;
      }
    });
    auto c = tg::detail::to_host_vector(computed);
    EXPECT_EQ(std::vector<std::int64_t>(c.begin(), c.end()), r.edge_ids);
    EXPECT_FALSE(plain.has_stored_edge_ids());
    EXPECT_EQ(plain.memory_bytes(), bytes);
    // Built on request, once, and shared by the graph's copies.
    const G copy = plain;
    const auto ids = plain.edge_ids();
    EXPECT_EQ(copy.edge_ids().data(), ids.data());
    EXPECT_EQ(plain.memory_bytes(), bytes + ids.extent(0) * sizeof(typename G::edge_index_type));
    EXPECT_TRUE(plain.with_edge_ids().has_stored_edge_ids());
  }
  return r;
}

void expect_same(const reference_csr& got, const reference_csr& want) {
  EXPECT_EQ(got.row_map, want.row_map);
  EXPECT_EQ(got.entries, want.entries);
  EXPECT_EQ(got.edge_ids, want.edge_ids);
  EXPECT_EQ(got.origin, want.origin);
}

}  // namespace

template <class Space>
class CountingBuild : public SpaceTest<Space> {};
TYPED_TEST_SUITE(CountingBuild, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(CountingBuild, RowsIdsAndOriginsEqualTheBruteForceReference) {
  using U = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  for (auto [n, m, seed] : {std::tuple{1, 4, 1u}, {6, 40, 2u}, {50, 600, 3u}, {3000, 20000, 4u}}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto el = random_edges(n, m, seed);  // duplicates and loops included
    for (auto o : {tg::build_options{}, tg::build_options::simple(), tg::build_options{true, false}, tg::build_options{false, true}}) {
      SCOPED_TRACE(std::to_string(o.remove_self_loops) + std::to_string(o.remove_duplicates));
      expect_same(built<U>(el, o), brute_force(el, true, o));
      expect_same(built<D>(el, o), brute_force(el, false, o));
    }
  }
}

TYPED_TEST(CountingBuild, ManyVerticesFewEdgesUseTheAtomicPathWithTheSameResult) {
  // 2^20 + 2^16 vertices and 3000 edges: even one block's counters (Serial)
  // would outweigh the edges by more than the 2^20 the build allows, so it
  // takes the atomic path; the result must not change.
  using U = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  const std::int64_t n = (std::int64_t(1) << 20) + (std::int64_t(1) << 16);
  ASSERT_EQ(tg::detail::counting_blocks<TypeParam>(n, 3000), 0);
  auto el = random_edges(64, 3000, 9);
  el.num_vertices = n;
  for (std::int64_t i = 0; i < el.size(); i += 7) el.dst[std::size_t(i)] += n - 64;
  for (auto o : {tg::build_options{}, tg::build_options::simple()}) expect_same(built<U>(el, o), brute_force(el, true, o));
  // Adopted arrays (a binary CSR file read back) take the searching
  // edge-index kernel for the same reason: the same indices.
  U g(el);
  const std::string p = (graph_test::temp_path("tessera_graph_pio_sparse.tgb")).string();
  tg::write_binary_csr(p, g);
  U back = tg::read_binary_csr<U>(p);
  EXPECT_EQ(tg::detail::to_host_vector(back.edge_ids()), brute_force(el, true, {}).edge_ids);
}

TYPED_TEST(CountingBuild, ASortedSymmetricListLikeAWrittenFileBuildsTheSameGraph) {
  // Rows of a file written row by row arrive as a few sorted runs (merged,
  // not sorted): the result equals the reference and the unsorted list's.
  using U = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  auto el = random_edges(400, 5000, 12);
  U g(el, tg::build_options::simple());
  tg::edge_list both;
  both.num_vertices = el.num_vertices;
  auto rm = tg::detail::to_host_vector(g.row_map());
  auto en = tg::detail::to_host_vector(g.entries());
  for (std::int64_t u = 0; u < el.num_vertices; ++u)
    for (auto j = rm[std::size_t(u)]; j < rm[std::size_t(u) + 1]; ++j) both.add(u, en[std::size_t(j)]);
  expect_same(built<U>(both, tg::build_options::simple()), brute_force(both, true, tg::build_options::simple()));
  EXPECT_EQ(rows_of(U(both, tg::build_options::simple())), rows_of(g));
}
