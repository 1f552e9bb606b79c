// Every input the reader fuzzers (packages/graph/fuzz) found is kept under
// fuzz_regressions/<reader>/ and must now get the clear error for its
// defect: an io_error "<file>:<line>: <problem>" with the words below, the
// same whatever the chunk size of the parallel text pass. A file in those
// folders without an entry here fails the suite, so none is forgotten.
#include "graph_test_util.hpp"

#include <map>

using namespace graph_test;

namespace {

std::string regressions_dir() {
#ifdef TESSERA_GRAPH_TESTS_DIR
  return std::string(TESSERA_GRAPH_TESTS_DIR) + "/fuzz_regressions";
#else
  return "packages/graph/tests/fuzz_regressions";
#endif
}

struct regression {
  const char* file;     // under fuzz_regressions/
  std::int64_t line;    // the line the error must name (0: a binary file)
  const char* problem;  // words the message must hold
  const char* defect;   // what the reader did with it before the fix
};

const regression kCases[] = {
    {"matrix_market/entry_of_20_digits.mtx", 3,
     "a real entry needs 3 fields (row column value), found 1: '37922337203685471818'",
     "signed overflow (UBSan) while the one-pass line scanner accumulated a run of more than 18 digits"},
    {"snap/target_of_19_digits.txt", 1, "target '9999949999999999999' is not a vertex id",
     "the same signed overflow, reached through a SNAP edge line"},
    {"matrix_market/real_value_with_two_signs.mtx", 197, "value '+-.2323717' is not a real number",
     "read as -0.2323717: the number parser skipped a '+' and let from_chars take the '-' after it (found by "
     "comparing with the reference reader, fuzz_reference.hpp)"},
    {"snap/weight_with_two_signs.txt", 1, "weight '+-inf' is not a number",
     "read as a weight of -inf, the same defect"},
    {"binary_csr/negative_row_offset.tgb", 0,
     "row offset 2 (byte 56) is 30722: beyond the 5 entries of the file",
     "a row whose offsets decrease to a negative start let the CSR check read entries before the array (ASan "
     "SEGV)"},
};

std::string message_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const tg::io_error& e) {
    return e.what();
  }
  return "(read without an error)";
}

void expect_clear_error(const regression& r, const std::string& msg) {
  const std::string path = regressions_dir() + "/" + r.file;
  const std::string prefix = path + ":" + std::to_string(r.line) + ": ";
  EXPECT_EQ(msg.rfind(prefix, 0), 0u)
      << "want '" << prefix << "' first in: " << msg << "\n(defect: " << r.defect << ")";
  EXPECT_NE(msg.find(r.problem), std::string::npos) << "want '" << r.problem << "' in: " << msg;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST(FuzzRegressions, EveryKeptInputHasAnExpectation) {
  ASSERT_TRUE(std::filesystem::is_directory(regressions_dir())) << regressions_dir();
  for (const auto& entry : std::filesystem::recursive_directory_iterator(regressions_dir())) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(entry.path(), regressions_dir()).generic_string();
    bool listed = false;
    for (const auto& r : kCases) listed = listed || rel == r.file;
    EXPECT_TRUE(listed) << rel << " has no entry in kCases";
  }
}

TEST(FuzzRegressions, TextInputsGetTheirErrorAtEveryChunkSize) {
  for (const auto& r : kCases) {
    const std::string path = regressions_dir() + "/" + r.file;
    if (ends_with(path, ".tgb")) continue;
    SCOPED_TRACE(path);
    const bool mm = ends_with(path, ".mtx");
    for (std::int64_t chunk :
         {std::int64_t(0), std::int64_t(1), std::int64_t(2), std::int64_t(7), std::int64_t(1) << 40}) {
      SCOPED_TRACE(chunk);
      tg::read_options opts;
      opts.chunk_bytes = chunk;
      expect_clear_error(
          r, message_of([&] { mm ? tg::read_matrix_market(path, opts) : tg::read_snap(path, opts); }));
    }
    // The reader chosen by extension gives the same.
    expect_clear_error(r, message_of([&] { tg::read_edge_list(path); }));
  }
}

template <class Space>
class FuzzRegressionsOn : public SpaceTest<Space> {};
TYPED_TEST_SUITE(FuzzRegressionsOn, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(FuzzRegressionsOn, BinaryInputsAreRefusedForEveryGraphKind) {
  for (const auto& r : kCases) {
    const std::string path = regressions_dir() + "/" + r.file;
    if (!ends_with(path, ".tgb")) continue;
    SCOPED_TRACE(path);
    // The file says bidirectionalS: the directed kinds read it, the
    // undirected one refuses the category first.
    expect_clear_error(r, message_of([&] {
                         tg::read_binary_csr<tg::compressed_sparse_row_graph<tg::directedS, TypeParam>>(path);
                       }));
    expect_clear_error(
        r, message_of([&] {
          tg::read_binary_csr<tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam, std::int64_t>>(
              path);
        }));
  }
}

// The defect behind negative_row_offset.tgb lay in the check of ready CSR
// arrays, which callers reach without a file too: each row was judged alone
// and a row starting below 0 (but ending within the entries) was walked from
// its negative start; an undirected row's reverse lookup did the same in
// its neighbour's row. Both must now be refused, not read out of bounds.
TYPED_TEST(FuzzRegressionsOn, CsrArraysWithARowStartingBelowZeroAreRefused) {
  auto refused = [](auto graph_kind, const std::vector<std::int64_t>& offsets,
                    const std::vector<int>& targets) {
    using G = decltype(graph_kind);
    auto rm = tg::detail::to_space<std::int64_t, TypeParam>("rm", offsets);
    auto en = tg::detail::to_space<std::int32_t, TypeParam>("en", targets);
    try {
      G g(tg::csr_arrays_t{}, std::int64_t(offsets.size()) - 1, rm, en);
      ADD_FAILURE() << "bad offsets accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(" is invalid (offsets must start at 0"), std::string::npos)
          << e.what();
    }
  };
  // The fuzzer's arrays: row 3 runs from -2^59 + 3 up to 4.
  const std::vector<std::int64_t> fuzzed = {0, 1, 30722, std::int64_t(0xf900000000000003ull), 4, 5};
  refused(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(), fuzzed, {1, 2, 3, 4, 0});
  refused(tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>(), fuzzed, {1, 2, 3, 4, 0});
  // Row 0 = {3} is fine by itself; row 3 runs from -4 to 5, so the check of
  // edge 0-3 looked for 0 in entries [-4, 5).
  refused(tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>(), {0, 1, 1, -4, 5, 5},
          {3, 0, 0, 0, 0});
}
