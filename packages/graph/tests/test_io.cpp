// Readers (Matrix Market, SNAP, binary CSR) and the shared-data facts:
// every bad file rejected with file, line and problem; every graph's
// vertices, edges, triangles, components and maximum degree, on every back-end.
#include "graph_test_util.hpp"

#include <cstdio>
#include <fstream>

using namespace graph_test;

namespace {
std::string temp_file(const std::string& name, const std::string& text) {
  return write_temp_file("tessera_graph_" + name, text);
}

// A .tgb file written byte by byte (the format of io.hpp), independent of
// write_binary_csr: the header, the n + 1 64-bit offsets, the targets at
// `width` bytes each.
std::string tgb_file(const std::string& name, std::uint32_t category, const std::vector<std::int64_t>& rows,
                     const std::vector<std::int64_t>& targets, std::uint32_t width) {
  std::string bytes("TSRGRAPH", 8);
  auto put = [&](std::uint64_t x, int size) {
    for (int b = 0; b < size; ++b) bytes.push_back(char((x >> (8 * b)) & 0xff));  // little-endian
  };
  put(1, 4);                 // version
  put(category, 4);          // 0 directed, 1 undirected, 2 bidirectional
  put(rows.size() - 1, 8);   // n
  put(targets.size(), 8);    // entries
  put(width, 4);             // vertex bytes
  put(0, 4);                 // reserved
  for (auto o : rows) put(std::uint64_t(o), 8);
  for (auto t : targets) put(std::uint64_t(t), int(width));
  return write_temp_file("tessera_graph_" + name, bytes);
}

template <class G>
std::string tgb_error(const std::string& path) {
  try {
    tg::read_binary_csr<G>(path);
  } catch (const tg::io_error& e) {
    return e.what();
  }
  return "(read without an error)";
}

// The message must name the file, a line and the problem.
void expect_rejected(const std::string& path, const std::vector<std::string>& problem_parts) {
  try {
    auto el = tg::read_matrix_market(path);
    ADD_FAILURE() << path << " was accepted (" << el.size() << " entries)";
  } catch (const tg::io_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind(path + ":", 0), 0u) << "message starts with file:line: " << msg;
    EXPECT_FALSE(e.problem().empty());
    for (const auto& part : problem_parts)
      EXPECT_NE(msg.find(part), std::string::npos) << "want '" << part << "' in: " << msg;
  }
}
void expect_rejected(const std::string& path, const std::string& problem_part) {
  expect_rejected(path, problem_part.empty() ? std::vector<std::string>{} : std::vector<std::string>{problem_part});
}
}  // namespace

TEST(GraphIo, ComplexFieldsForNumericalReaders) {
  GRAPH_TEST_REQUIRE_DATA();
  // read_options::accept_complex: "row column real imaginary" entries, the
  // imaginary parts in weights_imag (hermitian_path6.mtx: the values in
  // its comment, by hand), a Hermitian diagonal that is not real and a
  // 3-field entry refused with their lines; without it, refused on line 1.
  tessera::graph::read_options ro;
  ro.accept_complex = true;
  const auto el = tessera::graph::read_matrix_market(data_dir() + "/matrices/hermitian_path6.mtx", ro);
  EXPECT_EQ(el.mm_field, "complex");
  EXPECT_EQ(el.mm_symmetry, "hermitian");
  ASSERT_EQ(el.size(), 11);
  ASSERT_EQ(el.weights_imag.size(), 11u);
  EXPECT_EQ(el.src[1], 1);  // "2 1 0 1": a(2, 1) = i
  EXPECT_EQ(el.dst[1], 0);
  EXPECT_EQ(el.weights[1], 0.0);
  EXPECT_EQ(el.weights_imag[1], 1.0);
  EXPECT_EQ(el.weights_imag[9], -1.0);  // "6 5 0 -1"
  const std::pair<const char*, std::pair<int, const char*>> bad[] = {
      {"hermitian_nonreal_diagonal.mtx", {7, "the diagonal entry (3, 3) of a Hermitian matrix must be real"}},
      {"complex_three_fields.mtx", {5, "a complex entry needs 4 fields"}},
  };
  for (const auto& [file, expect] : bad) {
    try {
      (void)tessera::graph::read_matrix_market(data_dir() + "/bad/" + file, ro);
      ADD_FAILURE() << file << " was read";
    } catch (const tessera::graph::io_error& e) {
      EXPECT_EQ(e.line(), expect.first) << e.what();
      EXPECT_NE(e.problem().find(expect.second), std::string::npos) << e.what();
    }
  }
  // A real file has no imaginary parts.
  EXPECT_TRUE(tessera::graph::read_matrix_market(data_dir() + "/matrices/LFAT5.mtx", ro).weights_imag.empty());
}

TEST(GraphIo, EveryBadFileIsRejectedWithFileLineAndProblem) {
  GRAPH_TEST_REQUIRE_DATA();
  const std::string bad = data_dir() + "/bad/";
  // What each file really gets wrong, and the words our message must use
  // (the first defect by line; the next bad lines follow in "also line").
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"cholmod_mangle1.mtx", {":1: unknown object 'junk'"}},
      {"cholmod_mangle2.mtx", {":1: unknown format 'junk'"}},
      {"cholmod_mangle3.mtx", {":1: unknown field 'junk'"}},
      {"cholmod_mangle4.mtx", {":1: unknown symmetry 'junk'"}},
      {"lagraph_mangled1.mtx", {":1: unknown object 'mangled'"}},
      {"lagraph_mangled2.mtx", {":1: unknown format 'mangled'"}},
      {"lagraph_mangled3.mtx", {":1: unknown field 'mangled'"}},
      {"lagraph_mangled4.mtx", {":1: unknown symmetry 'mangled'"}},
      {"lagraph_mangled5.mtx", {":1: 'hermitian' needs a complex field"}},
      {"lagraph_mangled6.mtx", {":1: 'hermitian' needs a complex field"}},
      {"lagraph_mangled7.mtx", {":2: unknown GraphBLAS type 'gunk'"}},
      {"lagraph_mangled8.mtx", {":4: the size line needs 3 integers"}},
      {"lagraph_mangled9.mtx", {":4: the matrix is 3 x 4; a symmetric matrix must be square"}},
      // A general 3 x 4 matrix is a valid (bipartite) graph: the real defects follow.
      {"lagraph_mangled10.mtx", {":6: the file ends after 2 of the 3 entries declared on line 4"}},
      {"lagraph_mangled11.mtx",
       {":5: column index 'zero' is not an integer", "line 6: value 'forty-two' is not a real number",
        "line 7: value 'seven' is not a real number"}},
      {"lagraph_mangled12.mtx",
       {":5: a real entry needs 3 fields (row column value), found 2: '1 1'",
        "line 6: value 'forty-two' is not a real number", "line 7: value 'seven' is not a real number"}},
      {"lagraph_west0067_noheader.mtx", {":1: missing the %%MatrixMarket banner"}},
      // Complex files (the sparse package's tests): a graph reader refuses
      // every one on its banner; the defects inside are ComplexFieldsForNumericalReaders'.
      {"hermitian_nonreal_diagonal.mtx", {":1: complex matrices are not supported by the graph reader"}},
      {"complex_symmetric.mtx", {":1: complex matrices are not supported by the graph reader"}},
      {"complex_general_not_hermitian.mtx", {":1: complex matrices are not supported by the graph reader"}},
      {"complex_three_fields.mtx", {":1: complex matrices are not supported by the graph reader"}},
  };
  std::set<std::string> covered;
  for (auto& [file, problem] : cases) {
    SCOPED_TRACE(file);
    expect_rejected(bad + file, problem);
    covered.insert(file);
  }
  // Every file of the folder is either a known bad case or one of the two valid ones.
  for (auto& entry : std::filesystem::directory_iterator(bad)) {
    const std::string name = entry.path().filename().string();
    if (name == "lagraph_west0067_jumbled.mtx" || name == "lagraph_comments_west0067.mtx") continue;
    EXPECT_TRUE(covered.count(name)) << "new bad file without a case: " << name;
    if (!covered.count(name)) expect_rejected(entry.path().string(), "");
  }
}

TEST(GraphIo, UnusualButValidWest0067FilesAreRead) {
  GRAPH_TEST_REQUIRE_DATA();
  auto jumbled = tg::read_matrix_market(data_dir() + "/bad/lagraph_west0067_jumbled.mtx");
  auto comments = tg::read_matrix_market(data_dir() + "/bad/lagraph_comments_west0067.mtx");
  EXPECT_EQ(jumbled.num_vertices, 67);
  EXPECT_EQ(jumbled.size(), 294);
  EXPECT_FALSE(jumbled.symmetric);
  EXPECT_EQ(comments.num_vertices, 67);
  EXPECT_EQ(comments.size(), 295);  // one more entry: (1,1) = nan
  EXPECT_TRUE(std::isnan(comments.weights[0]));
  // The same matrix apart from that diagonal entry: same directed graph without loops.
  using G = tg::compressed_sparse_row_graph<tg::directedS, tessera::HostSpace>;
  G a(jumbled, tg::build_options::simple()), b(comments, tg::build_options::simple());
  EXPECT_EQ(rows_of(a), rows_of(b));
  // Out-of-order entries keep their weights: compare (i,j)->w maps.
  std::map<std::pair<std::int64_t, std::int64_t>, double> wa, wb;
  for (std::int64_t i = 0; i < jumbled.size(); ++i) wa[{jumbled.src[i], jumbled.dst[i]}] = jumbled.weights[i];
  for (std::int64_t i = 1; i < comments.size(); ++i) wb[{comments.src[i], comments.dst[i]}] = comments.weights[i];
  EXPECT_EQ(wa, wb);
}

TEST(GraphIo, MatrixMarketProblemsNameTheLine) {
  auto p = temp_file("few.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 3\n1 2\n\n2 3\n");
  expect_rejected(p, "ends after 2 of the 3 entries declared on line 3");
  p = temp_file("many.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n");
  expect_rejected(p, ":4: more entries than the 1 declared");
  p = temp_file("range.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n4 1 7\n");
  expect_rejected(p, ":4: row index 4 outside 1..3");
  p = temp_file("value.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 2.5\n");
  expect_rejected(p, ":3: value '2.5' is not an integer");
  // One sign at most, also where the careful parser takes a long token.
  p = temp_file("signs.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 +-000000000000000000042\n");
  expect_rejected(p, ":3: value '+-000000000000000000042' is not an integer");
  p = temp_file("fields.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 9\n");
  expect_rejected(p, ":3: a pattern entry needs 2 fields (row column), found 3: '1 2 9'");
  p = temp_file("array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  expect_rejected(p, "'array' format");
  p = temp_file("empty.mtx", "");
  expect_rejected(p, "empty file");
  p = temp_file("nosize.mtx", "%%MatrixMarket matrix coordinate pattern general\n% only comments\n");
  expect_rejected(p, "no size line");
  EXPECT_THROW(tg::read_matrix_market("/nonexistent/x.mtx"), tg::io_error);
}

// The Matrix Market definition (Boisvert, Pozo, Remington, NIST 1996): a
// skew-symmetric matrix stores the strict lower triangle (a_ij = -a_ji, so
// the diagonal is zero and absent) and cannot be a pattern; the reader
// keeps the stored entries and their signs, and says which symmetry it was.
TEST(GraphIo, MatrixMarketSkewSymmetricAndDoubleField) {
  auto el = tg::read_matrix_market(
      temp_file("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -0.25\n"));
  ASSERT_EQ(el.size(), 2);
  EXPECT_EQ(el.src, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(el.dst, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(el.weights, (std::vector<double>{1.5, -0.25}));
  EXPECT_TRUE(el.symmetric);
  EXPECT_EQ(el.mm_symmetry, "skew-symmetric");
  expect_rejected(temp_file("skew_diag.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 4\n2 2 7\n"),
                  ":4: a skew-symmetric matrix has no diagonal entries (2, 2)");
  expect_rejected(temp_file("skew_pattern.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n"),
                  ":1: a pattern matrix cannot be skew-symmetric");
  // "double" is not in the 1996 definition but some writers use it for real.
  el = tg::read_matrix_market(temp_file("double.mtx", "%%MatrixMarket matrix coordinate double general\n2 2 1\n1 2 0.75\n"));
  ASSERT_EQ(el.size(), 1);
  EXPECT_EQ(el.mm_field, "real");
  EXPECT_EQ(el.weights, (std::vector<double>{0.75}));
}

TEST(GraphIo, SnapErrorsAndWeights) {
  auto p = temp_file("ok.txt", "# comment\n0 1\n\n1\t2\n% other comment\n5 0\n");
  auto el = tg::read_snap(p);
  EXPECT_EQ(el.num_vertices, 6);
  EXPECT_EQ(el.size(), 3);
  p = temp_file("w.txt", "0 1 0.5\n1 2 2\n");
  el = tg::read_snap(p);
  ASSERT_TRUE(el.has_weights());
  EXPECT_EQ(el.weights[1], 2.0);
  auto rejected = [](const std::string& path, const std::string& part) {
    try {
      tg::read_snap(path);
      ADD_FAILURE() << path << " accepted";
    } catch (const tg::io_error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  rejected(temp_file("neg.txt", "0 1\n-3 2\n"), ":2: source '-3' is not a vertex id");
  rejected(temp_file("mixed.txt", "0 1\n1 2 3.0\n"), ":2: this line has 3 fields, line 1 had 2");
  rejected(temp_file("word.txt", "0 x\n"), ":1: target 'x'");
  rejected(temp_file("one.txt", "0 1\n7\n"), ":2: an edge line holds");
  // An id below the 2^40 limit whose row offsets alone (8 TB) exceed any
  // memory: refused at its line, not in an allocation.
  rejected(temp_file("huge_id.txt", "0 1\n1 2\n2 1000000000000\n3 4\n"), ":3: vertex id 1000000000000: ");
  rejected(temp_file("huge_id2.txt", "0 1\n2 1000000000000\n"), "for the row offsets alone");
}

TEST(GraphIo, MatrixMarketSizeBeyondMemoryIsRefusedAtTheSizeLine) {
  // 2^39 rows and one entry: a legal header whose CSR needs 4 TiB of row
  // offsets (the physical memory of no machine this runs on).
  expect_rejected(temp_file("huge.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n549755813888 549755813888 1\n1 1\n"),
                  {":3:", "549755813888 vertices need", "for the row offsets alone"});
}

TEST(GraphIo, MatrixMarketWriteReadRoundTrip) {
  auto el = random_edges(40, 100, 9);
  el.symmetric = true;
  for (std::int64_t i = 0; i < el.size(); ++i) el.weights.push_back(0.25 * double(i));
  const std::string p = (graph_test::temp_path("tessera_graph_rt.mtx")).string();
  tg::write_matrix_market(p, el);
  auto back = tg::read_matrix_market(p);
  EXPECT_TRUE(back.symmetric);
  EXPECT_EQ(back.num_vertices, 40);
  EXPECT_EQ(simple_adjacency(back, true), simple_adjacency(el, true));
  EXPECT_EQ(back.weights, el.weights);
}

template <class Space>
class GraphData : public SpaceTest<Space> {};
TYPED_TEST_SUITE(GraphData, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

struct graph_fact {
  const char* file;
  std::int64_t vertices, edges, triangles, components, max_degree;
};
// From examples/data/README.md (computed independently of Tessera).
const graph_fact kFacts[] = {
    {"karate.mtx", 34, 78, 45, 1, 17},
    {"jagmesh7.mtx", 1138, 3156, 2016, 1, 6},
    {"G51.mtx", 1000, 5909, 6886, 1, 156},
    {"bcspwr10.mtx", 5300, 8271, 721, 1, 13},
    {"oregon1_010331.txt", 10670, 22002, 17144, 1, 2312},
    {"facebook_combined.txt", 4039, 88234, 1612010, 1, 1045},
};

TYPED_TEST(GraphData, FactsOfEverySharedGraph) {
  GRAPH_TEST_REQUIRE_DATA();
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  for (const auto& f : kFacts) {
    SCOPED_TRACE(f.file);
    auto el = tg::read_edge_list(data_dir() + "/graphs/" + f.file);
    G g(el, tg::build_options::simple());
    EXPECT_EQ(tg::num_vertices(g), f.vertices);
    EXPECT_EQ(tg::num_edges(g), f.edges);
    std::int64_t maxdeg = 0;
    tg::reduce_vertices(g, TESSERA_LAMBDA(V v, std::int64_t & m) {
      if (tg::out_degree(v, g) > m) m = tg::out_degree(v, g);
    }, tessera::Max<std::int64_t>(maxdeg));
    EXPECT_EQ(maxdeg, f.max_degree);
    EXPECT_EQ(tg::count_triangles(g), f.triangles);
    tg::vertex_property_map<G, V> comp(g);
    EXPECT_EQ(tg::connected_components(g, comp), f.components);
    EXPECT_EQ(tg::shiloach_vishkin(g, comp), f.components);
  }
}

TYPED_TEST(GraphData, BinaryCsrRoundTripAndErrors) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam>;
  auto el = random_edges(500, 3000, 21);
  G g(el, tg::build_options::simple());
  const std::string p = (graph_test::temp_path("tessera_graph_rt.tgb")).string();
  tg::write_binary_csr(p, g);
  G back = tg::read_binary_csr<G>(p);
  EXPECT_EQ(tg::num_edges(back), tg::num_edges(g));
  EXPECT_EQ(rows_of(back), rows_of(g));
  EXPECT_EQ(tg::detail::to_host_vector(back.edge_ids()), tg::detail::to_host_vector(g.edge_ids()));
  try {
    tg::read_binary_csr<D>(p);
    ADD_FAILURE() << "category mismatch accepted";
  } catch (const tg::io_error& e) {
    EXPECT_NE(std::string(e.what()).find("undirectedS graph, asked for bidirectionalS"), std::string::npos) << e.what();
  }
  // Truncated, and a text file.
  {
    std::ifstream in(p, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(p + ".cut", std::ios::binary) << bytes.substr(0, bytes.size() - 3);
  }
  try {
    tg::read_binary_csr<G>(p + ".cut");
    ADD_FAILURE() << "truncated file accepted";
  } catch (const tg::io_error& e) {
    EXPECT_NE(std::string(e.what()).find("size mismatch"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tg::read_binary_csr<G>(temp_file("text.tgb", "not a graph at all, certainly not 40 bytes of header")), tg::io_error);
}

// The reader loads the arrays at the widths the file stores (4- or 8-byte
// targets) into graphs of every index width, in the graph's space; a bad
// offset or target is named by its place in the file, checked before any
// narrowing could hide it (a target of 2^40 in an 8-byte file).
TYPED_TEST(GraphData, BinaryCsrOfEveryStoredWidthIntoEveryIndexType) {
  using G32 = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;                     // int32, int64
  using G64 = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam, std::int64_t, std::int32_t>;
  using G16 = tg::compressed_sparse_row_graph<tg::directedS, TypeParam, std::int16_t, std::int32_t>;
  // 5 vertices: 0 -> {1, 4}, 1 -> {}, 2 -> {0, 3, 4}, 3 -> {2}, 4 -> {}.
  const std::vector<std::int64_t> rows{0, 2, 2, 5, 6, 6}, targets{1, 4, 0, 3, 4, 2};
  const std::vector<std::vector<std::int64_t>> want{{1, 4}, {}, {0, 3, 4}, {2}, {}};
  for (std::uint32_t width : {4u, 8u}) {
    SCOPED_TRACE("targets of " + std::to_string(width) + " bytes");
    const auto p = tgb_file("w" + std::to_string(width) + ".tgb", 0, rows, targets, width);
    EXPECT_EQ(rows_of(tg::read_binary_csr<G32>(p)), want);
    EXPECT_EQ(rows_of(tg::read_binary_csr<G64>(p)), want);
    EXPECT_EQ(rows_of(tg::read_binary_csr<G16>(p)), want);
    const auto in = tg::read_binary_csr<G64>(p);  // the transpose, built from the loaded rows
    // In-degrees from the transpose's offsets, read on the host (in_degree
    // reads them where they live: device memory on a GPU).
    const auto trm = tg::detail::to_host_vector(in.transpose_row_map());
    EXPECT_EQ(trm[5] - trm[4], 2);
    EXPECT_EQ(trm[2] - trm[1], 1);
    // memory_bytes: 6 offsets and 6 targets; the bidirectional graph has the
    // transpose's too, and an out-slot index (4 bytes) per transposed entry.
    EXPECT_EQ(tg::read_binary_csr<G32>(p).memory_bytes(), 6u * 8 + 6u * 4);
    EXPECT_EQ(in.memory_bytes(), 2 * (6u * 4 + 6u * 8) + 6u * 4);

    const auto bad = [&](const char* name, std::vector<std::int64_t> r, std::vector<std::int64_t> t) {
      const auto q = tgb_file(std::string(name) + std::to_string(width) + ".tgb", 0, r, t, width);
      const std::string a = tgb_error<G32>(q), b = tgb_error<G64>(q);
      EXPECT_EQ(a, b) << "the message depends on the graph's index types";
      EXPECT_EQ(a.rfind(q + ":0: ", 0), 0u) << a;
      return a.substr(a.find(":0: ") + 4);
    };
    EXPECT_EQ(bad("first", {3, 3, 3, 5, 6, 6}, targets), "row offset 0 (byte 40) is 3: the first offset must be 0");
    EXPECT_EQ(bad("down", {0, 2, 4, 1, 6, 6}, targets),
              "row offset 3 (byte 64) is 1: below the previous offset 4 (offsets must not decrease)");
    EXPECT_EQ(bad("beyond", {0, 2, 2, 9, 9, 9}, targets), "row offset 3 (byte 64) is 9: beyond the 6 entries of the file");
    EXPECT_EQ(bad("short", {0, 2, 2, 5, 5, 5}, targets),
              "row offset 5 (byte 80) is 5: the last offset must equal the 6 entries of the file");
    EXPECT_EQ(bad("target", rows, {1, 4, 0, 5, 4, 2}), "entry 3 (row 2) is vertex 5, outside [0, 5)");
    EXPECT_EQ(bad("negative", rows, {1, 4, 0, 3, 4, -1}), "entry 5 (row 3) is vertex -1, outside [0, 5)");
    if (width == 8) {  // 2^40 + 1 would narrow to the valid vertex 1
      EXPECT_EQ(bad("wide", rows, {1, (std::int64_t(1) << 40) + 1, 0, 3, 4, 2}),
                "entry 1 (row 0) is vertex 1099511627777, outside [0, 5)");
    }
  }
  // A vertex count that does not fit the vertex type, before anything is loaded.
  std::vector<std::int64_t> many(40001, 0);
  const auto p = tgb_file("many.tgb", 0, many, {}, 4);
  EXPECT_NE(tgb_error<G16>(p).find("40000 vertices do not fit the graph's vertex type"), std::string::npos)
      << tgb_error<G16>(p);
  EXPECT_EQ(tg::num_vertices(tg::read_binary_csr<G32>(p)), 40000);
}

// write_binary_csr writes, for graphs of every index width, the bytes of the
// format as tgb_file spells them out: 64-bit offsets, 4-byte targets (the
// vertex count fits 32 bits), whatever widths the graph itself holds.
TYPED_TEST(GraphData, BinaryCsrWrittenFromEveryIndexTypeIsTheFormatsBytes) {
  using G32 = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;  // int32, int64
  using G64 = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam, std::int64_t, std::int32_t>;
  using G16 = tg::compressed_sparse_row_graph<tg::directedS, TypeParam, std::int16_t, std::int32_t>;
  using GU = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam, std::int64_t, std::int64_t>;
  const std::vector<std::int64_t> rows{0, 2, 2, 5, 6, 6}, targets{1, 4, 0, 3, 4, 2};
  tg::edge_list el;
  el.num_vertices = 5;
  for (std::size_t u = 0; u < 5; ++u)
    for (std::int64_t j = rows[u]; j < rows[u + 1]; ++j) el.add(std::int64_t(u), targets[std::size_t(j)]);
  const auto bytes_of = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  const auto written = [&](const auto& g, const char* name) {
    const std::string p = graph_test::temp_path(std::string("tessera_graph_written_") + name + ".tgb").string();
    tg::write_binary_csr(p, g);
    return bytes_of(p);
  };
  EXPECT_EQ(written(G32(el), "g32"), bytes_of(tgb_file("want0.tgb", 0, rows, targets, 4)));
  EXPECT_EQ(written(G64(el), "g64"), bytes_of(tgb_file("want2.tgb", 2, rows, targets, 4)));
  EXPECT_EQ(written(G16(el), "g16"), bytes_of(tgb_file("want0b.tgb", 0, rows, targets, 4)));
  // Undirected and simple: {0,1} {0,2} {0,4} {2,3} {2,4}, each in both rows.
  EXPECT_EQ(written(GU(el, tg::build_options::simple()), "gu"),
            bytes_of(tgb_file("want1.tgb", 1, {0, 3, 4, 7, 8, 10}, {1, 2, 4, 0, 0, 3, 4, 2, 0, 2}, 4)));
  // No vertices: one offset, no targets.
  tg::edge_list none;
  EXPECT_EQ(written(G32(none), "none"), bytes_of(tgb_file("want_none.tgb", 0, {0}, {}, 4)));
  EXPECT_EQ(tg::num_vertices(tg::read_binary_csr<G32>(graph_test::temp_path("tessera_graph_written_none.tgb").string())), 0);
}

// More than a million stored entries: on a device space the file goes up in
// several host chunks (binary_csr_load.hpp); the graph must not depend on it.
TYPED_TEST(GraphData, BinaryCsrLargerThanOneUploadChunk) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  G g(random_edges(1 << 17, 700000, 5), tg::build_options::simple());
  ASSERT_GT(g.num_stored_edges(), std::int64_t(1) << 20);
  const std::string p = (graph_test::temp_path("tessera_graph_large.tgb")).string();
  tg::write_binary_csr(p, g);
  const G back = tg::read_binary_csr<G>(p);
  EXPECT_EQ(tg::detail::to_host_vector(back.row_map()), tg::detail::to_host_vector(g.row_map()));
  EXPECT_EQ(tg::detail::to_host_vector(back.entries()), tg::detail::to_host_vector(g.entries()));
  EXPECT_EQ(tg::detail::to_host_vector(back.edge_ids()), tg::detail::to_host_vector(g.edge_ids()));
}

TYPED_TEST(GraphData, CsrArraysAreValidated) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  auto rm = tg::detail::to_space<std::int64_t, TypeParam>("rm", std::vector<int>{0, 1, 1});
  auto en = tg::detail::to_space<std::int32_t, TypeParam>("en", std::vector<int>{1});
  // Edge 0-1 stored only in row 0: not symmetric.
  try {
    G g(tg::csr_arrays_t{}, 2, rm, en);
    FAIL() << "asymmetric arrays accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("row 0 is invalid"), std::string::npos) << e.what();
  }
  auto rm2 = tg::detail::to_space<std::int64_t, TypeParam>("rm", std::vector<int>{0, 1, 2});
  auto en2 = tg::detail::to_space<std::int32_t, TypeParam>("en", std::vector<int>{1, 0});
  G ok(tg::csr_arrays_t{}, 2, rm2, en2);
  EXPECT_EQ(tg::num_edges(ok), 1);
}

TYPED_TEST(GraphData, CsrArraysWithAMovedTwinAreRefused) {
  // A lower slot of row c moved from a to a + 1: every row keeps its length
  // and order, so only the twins tell. The host's counting check (blocks of
  // rows, one per thread) must see it, and the error name the first bad row:
  // a, whose edge to c has no twin in row c.
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  const G g(random_edges(3000, 20000, 9), tg::build_options::simple());
  auto rm = tg::detail::to_host_vector(g.row_map());
  auto en = tg::detail::to_host_vector(g.entries());
  const std::int64_t n = tg::num_vertices(g);
  std::int64_t a = -1, c = -1, slot = -1;
  for (std::int64_t v = n / 2; v < n && slot < 0; ++v)
    for (auto j = rm[std::size_t(v)]; j < rm[std::size_t(v) + 1]; ++j) {
      const std::int64_t u = en[std::size_t(j)];
      const bool next_free = j + 1 == rm[std::size_t(v) + 1] || en[std::size_t(j) + 1] != u + 1;
      if (u + 1 < v && u > 0 && next_free) {
        a = u, c = v, slot = j;
        break;
      }
    }
  ASSERT_GE(slot, 0);
  en[std::size_t(slot)] = std::int32_t(a + 1);
  auto rmv = tg::detail::to_space<std::int64_t, TypeParam>("rm", std::vector<std::int64_t>(rm.begin(), rm.end()));
  auto env = tg::detail::to_space<std::int32_t, TypeParam>("en", std::vector<std::int32_t>(en.begin(), en.end()));
  try {
    G bad(tg::csr_arrays_t{}, n, rmv, env);
    FAIL() << "arrays with the twin of {" << a << ", " << c << "} moved accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("row " + std::to_string(a) + " is invalid"), std::string::npos) << e.what();
  }
}

TYPED_TEST(GraphData, CsrArraysWithAnEdgeRepeatedInOneRowOnlyAreRefused) {
  // {0, 1} twice in row 0 but once in row 1: each copy has a twin to find, so
  // only counting the copies tells. Every space refuses it (the host's
  // counting check and the search devices run), naming row 0; the edge twice
  // in both rows (a multigraph) is accepted.
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  auto rows = [](std::vector<std::int64_t> r) { return tg::detail::to_space<std::int64_t, TypeParam>("rm", r); };
  auto targets = [](std::vector<std::int32_t> t) { return tg::detail::to_space<std::int32_t, TypeParam>("en", t); };
  try {
    G bad(tg::csr_arrays_t{}, 2, rows({0, 2, 3}), targets({1, 1, 0}));
    FAIL() << "{0, 1} twice in row 0 and once in row 1 accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("row 0 is invalid"), std::string::npos) << e.what();
  }
  const G multi(tg::csr_arrays_t{}, 2, rows({0, 2, 4}), targets({1, 1, 0, 0}));
  EXPECT_EQ(tg::detail::to_host_vector(multi.entries()), (std::vector<std::int32_t>{1, 1, 0, 0}));
}

TEST(GraphGenerators, KroneckerIsDeterministicAndGraph500Shaped) {
  auto a = tg::kronecker(10, 16, 42), b = tg::kronecker(10, 16, 42), c = tg::kronecker(10, 16, 43);
  EXPECT_EQ(a.num_vertices, 1024);
  EXPECT_EQ(a.size(), 16 * 1024);
  EXPECT_EQ(a.src, b.src);
  EXPECT_EQ(a.dst, b.dst);
  EXPECT_NE(a.src, c.src);
  // Skewed degrees: the largest degree is far above the mean (32).
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace>;
  G g(a, tg::build_options::simple());
  std::int64_t maxdeg = 0;
  for (std::int64_t v = 0; v < 1024; ++v) maxdeg = std::max(maxdeg, tg::out_degree(v, g));
  EXPECT_GT(maxdeg, 200);
  EXPECT_THROW(tg::kronecker(0, 16, 1), std::invalid_argument);
  EXPECT_THROW(tg::kronecker(10, 0, 1), std::invalid_argument);
}

TEST(GraphGenerators, ErdosRenyiAndGrids) {
  auto er = tg::erdos_renyi(100, 500, 7);
  EXPECT_EQ(er.size(), 500);
  for (std::int64_t i = 0; i < er.size(); ++i) ASSERT_NE(er.src[i], er.dst[i]);
  EXPECT_EQ(tg::erdos_renyi(100, 500, 7).dst, er.dst);
  EXPECT_THROW(tg::erdos_renyi(1, 5, 7), std::invalid_argument);
  auto g2 = tg::grid_2d(4, 3);
  EXPECT_EQ(g2.num_vertices, 12);
  EXPECT_EQ(g2.size(), 3 * 3 + 4 * 2);
  auto g3 = tg::grid_3d(3, 3, 3);
  EXPECT_EQ(g3.size(), 3 * 2 * 9);
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace>;
  G g(g3);
  EXPECT_EQ(tg::out_degree(13, g), 6);  // the centre
  EXPECT_EQ(tg::out_degree(0, g), 3);   // a corner
  EXPECT_EQ(tg::count_triangles(g), 0);
}
