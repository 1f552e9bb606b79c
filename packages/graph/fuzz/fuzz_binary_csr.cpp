// libFuzzer target: graph::read_binary_csr (.tgb) on arbitrary bytes, into
// a directed and an undirected graph (one of them is refused for its
// category). A graph that is read must have valid rows, and must survive a
// write and a second read unchanged (see fuzz_support.hpp for the rest).
#include "fuzz_support.hpp"

#include <tessera/graph/csr_graph.hpp>

namespace {

namespace tg = tessera::graph;
using host = tessera::DefaultHostExecutionSpace;

template <class G>
void check_rows(const G& g) {
  const auto rows = tg::detail::to_host_vector(g.row_map());
  const auto entries = tg::detail::to_host_vector(g.entries());
  const std::int64_t n = g.num_vertices();
  if (n > 0 && (std::int64_t(rows.size()) != n + 1 || rows[0] != 0 ||
                rows[std::size_t(n)] != std::int64_t(entries.size())))
    tessera_fuzz::finding("row map does not span the entries");
  for (std::int64_t u = 0; u < n; ++u) {
    if (rows[std::size_t(u)] > rows[std::size_t(u + 1)]) tessera_fuzz::finding("row offsets decrease");
    for (auto j = rows[std::size_t(u)]; j < rows[std::size_t(u + 1)]; ++j)
      if (entries[std::size_t(j)] < 0 || entries[std::size_t(j)] >= n)
        tessera_fuzz::finding("target outside [0, n)");
  }
}

template <class G>
void read_as(const std::string& path) {
  try {
    const G g = tg::read_binary_csr<G>(path);
    check_rows(g);
    // Round trip through the writer: the same arrays come back.
    static tessera_fuzz::input_file written;  // a second memory file
    const std::string& copy = written.path();
    tg::write_binary_csr(copy, g);
    const G back = tg::read_binary_csr<G>(copy);
    if (tg::detail::to_host_vector(back.row_map()) != tg::detail::to_host_vector(g.row_map()) ||
        tg::detail::to_host_vector(back.entries()) != tg::detail::to_host_vector(g.entries()))
      tessera_fuzz::finding("write_binary_csr + read_binary_csr changed the graph");
  } catch (const tg::io_error& e) {
    tessera_fuzz::check_message(e, path);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tessera_fuzz::start_runtime();
  const std::string& path = tessera_fuzz::input_file::instance().hold(data, size);
  read_as<tg::compressed_sparse_row_graph<tg::directedS, host>>(path);
  read_as<tg::compressed_sparse_row_graph<tg::undirectedS, host>>(path);
  return 0;
}
