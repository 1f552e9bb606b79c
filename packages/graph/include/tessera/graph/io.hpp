#pragma once
// Graph input and output.
//
//   edge_list el = read_matrix_market("karate.mtx");   // pattern/integer/real, general/symmetric/skew-symmetric
//   edge_list el = read_snap("oregon1_010331.txt");    // "u v [w]" lines, '#' or '%' comments, 0-based ids
//   edge_list el = read_edge_list("file");              // by extension: .mtx -> Matrix Market, .tgb -> binary, else SNAP
//   write_matrix_market("out.mtx", el);
//   write_binary_csr("g.tgb", g);  G g = read_binary_csr<G>("g.tgb");   // fast reloads, no sorting
//
// Every reader throws graph::io_error whose message is "<file>:<line>: <problem>"
// (line 0 when the problem is not on one line, e.g. a truncated binary file);
// a bad token is quoted, and the next few bad lines follow in "(also line ...)".
//
// The text readers map the file into memory, cut it into chunks at line ends,
// and parse the chunks in parallel on the default host execution space; the
// result does not depend on the thread count or the chunk size.
#include <tessera/graph/csr_graph.hpp>
#include <tessera/graph/detail/binary_csr_load.hpp>
#include <tessera/graph/edge_list.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::graph {

class io_error : public std::runtime_error {
 public:
  io_error(const std::string& file, std::int64_t line, const std::string& problem)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + problem), m_file(file), m_line(line), m_problem(problem) {}
  const std::string& file() const { return m_file; }
  std::int64_t line() const { return m_line; }
  const std::string& problem() const { return m_problem; }

 private:
  std::string m_file;
  std::int64_t m_line;
  std::string m_problem;
};

// What read_matrix_market makes of a matrix with rows != columns.
enum class rectangular_matrix {
  bipartite,  // a bipartite graph: rows + columns vertices, entry (i, j) -> edge (i-1, rows + j-1)
  indices,    // the caller decides: edges (i-1, j-1) on max(rows, columns) vertices
  refuse,     // an error naming the size line (readers that need a square matrix)
};

struct read_options {
  progress_callback progress = nullptr;  // "reading" and "parsing" progress (see edge_list.hpp)
  void* progress_user = nullptr;
  // Refuse NaN and Inf values (with file:line), as a numerical reader must;
  // a graph reader keeps them as weights.
  bool reject_non_finite = false;
  rectangular_matrix rectangular = rectangular_matrix::bipartite;
  // Matrix Market "complex" fields (a numerical reader's, the sparse
  // package's): entries "row column real imaginary", the imaginary parts
  // in edge_list::weights_imag; in a "hermitian" file a diagonal entry
  // must be real (refused with file:line otherwise). A graph reader refuses
  // complex files (false).
  bool accept_complex = false;
  // Bytes per parallel chunk (0: automatic). For tests and tuning; the
  // result is the same for every value.
  std::int64_t chunk_bytes = 0;
};

edge_list read_matrix_market(const std::string& path, const read_options& opts = {});
edge_list read_snap(const std::string& path, const read_options& opts = {});
edge_list read_edge_list(const std::string& path, const read_options& opts = {});
// Matrix Market coordinate: "complex" with weights_imag, "real" with
// weights, else "pattern"; "symmetric" ("hermitian" for complex: the
// lower triangle, mirrored entries conjugated) when el.symmetric, else
// "general". Size line: el.mm_rows x
// el.mm_cols when set (a rectangular matrix), else num_vertices square.
void write_matrix_market(const std::string& path, const edge_list& el);
// SNAP edge list: "u v" or "u v w" lines, 0-based ids, a '#' header line.
void write_snap(const std::string& path, const edge_list& el);

// ---- binary CSR ----
// Layout (little-endian): "TSRGRAPH" magic, u32 version (1), u32 category
// (0 directed, 1 undirected, 2 bidirectional: the stored rows are the out
// rows; undirected rows hold both directions), u64 n, u64 stored entries,
// u32 vertex bytes (4 or 8), u32 reserved, then (n+1) u64 row offsets and
// the entries.
namespace detail {
// What a binary CSR file's header says, checked against the file's size.
struct binary_csr_layout {
  std::uint32_t category = 0;
  std::int64_t n = 0;
  std::int64_t entries = 0;
  int vertex_bytes = 8;          // width of the stored targets: 4 or 8
  std::uint64_t row_map_at = 0;  // byte of the n + 1 64-bit row offsets
  std::uint64_t entries_at = 0;  // byte of the targets
};
// A new binary CSR file with its header written: n vertices, `entries`
// targets stored at binary_csr_target_bytes(n) bytes each. The caller
// writes the n + 1 offsets (write_binary_values<std::int64_t>), the
// targets, then calls close_binary_csr, which reports a failed write.
std::unique_ptr<std::ostream> open_binary_csr(const std::string& path, std::uint32_t category, std::int64_t n,
                                              std::int64_t entries);
void close_binary_csr(std::ostream& out, const std::string& path);
inline int binary_csr_target_bytes(std::int64_t n) {
  return n <= std::int64_t(std::numeric_limits<std::int32_t>::max()) ? 4 : 8;
}
// `count` integers of any width written as To, a bounded chunk converted at
// a time (the array itself when the widths agree: no copy of the whole).
template <class To, class From>
void write_binary_values(std::ostream& out, const From* values, std::int64_t count) {
  if constexpr (std::is_same_v<To, From>) {
    out.write(reinterpret_cast<const char*>(values), std::streamsize(count * std::int64_t(sizeof(To))));
  } else {
    std::vector<To> chunk(std::size_t(std::min<std::int64_t>(count, std::int64_t(1) << 20)));
    for (std::int64_t b = 0; b < count && out; b += std::int64_t(chunk.size())) {
      const std::int64_t e = std::min(count, b + std::int64_t(chunk.size()));
      std::transform(values + b, values + e, chunk.begin(), [](From x) { return To(x); });
      out.write(reinterpret_cast<const char*>(chunk.data()), std::streamsize((e - b) * std::int64_t(sizeof(To))));
    }
  }
}
binary_csr_layout read_binary_csr_layout(const std::string& path);

template <class D>
constexpr std::uint32_t category_code() {
  if constexpr (!D::is_directed) return 1;
  else if constexpr (D::is_bidirectional) return 2;
  else return 0;
}
inline const char* category_name(std::uint32_t c) {
  return c == 0 ? "directedS" : c == 1 ? "undirectedS" : c == 2 ? "bidirectionalS" : "unknown";
}
}  // namespace detail

// Writes g's rows and targets (see read_binary_csr). A graph on a host
// space is written from its own arrays, converted to the file's widths a
// chunk at a time; a device graph is copied to the host first.
template <class D, class S, class V, class E>
void write_binary_csr(const std::string& path, const compressed_sparse_row_graph<D, S, V, E>& g) {
  const std::int64_t n = g.num_vertices();
  const auto rows = tessera::create_mirror_view_and_copy(tessera::HostSpace(), g.row_map());
  const auto targets = tessera::create_mirror_view_and_copy(tessera::HostSpace(), g.entries());
  const std::int64_t m = n > 0 ? std::int64_t(targets.extent(0)) : 0;
  auto out = detail::open_binary_csr(path, detail::category_code<D>(), n, m);
  if (n > 0) {
    detail::write_binary_values<std::int64_t>(*out, rows.data(), n + 1);
  } else {
    detail::write_binary_values<std::int64_t>(*out, &m, 1);  // a graph without vertices: its one offset, 0
  }
  if (detail::binary_csr_target_bytes(n) == 4) detail::write_binary_values<std::int32_t>(*out, targets.data(), m);
  else detail::write_binary_values<std::int64_t>(*out, targets.data(), m);
  detail::close_binary_csr(*out, path);
}

// Reads a file written by write_binary_csr into a graph of the same
// directed category (directed and bidirectional files are interchangeable).
// The arrays are loaded, checked and narrowed in the graph's space, in
// parallel (detail/binary_csr_load.hpp).
template <class G>
G read_binary_csr(const std::string& path) {
  const auto layout = detail::read_binary_csr_layout(path);
  constexpr std::uint32_t want = detail::category_code<typename G::directed_category>();
  if ((want == 1) != (layout.category == 1))
    throw io_error(path, 0, std::string("file holds a ") + detail::category_name(layout.category) + " graph, asked for " +
                                detail::category_name(want));
  using V = typename G::vertex_descriptor;
  using E = typename G::edge_index_type;
  using S = typename G::space_type;
  using Exec = typename G::execution_space;
  const std::int64_t n = layout.n, m = layout.entries;
  if (n > std::int64_t(std::numeric_limits<V>::max()))
    throw io_error(path, 0, std::to_string(n) + " vertices do not fit the graph's vertex type");
  if (m > std::int64_t(std::numeric_limits<E>::max()))
    throw io_error(path, 0, std::to_string(m) + " entries do not fit the graph's edge index type");
  try {
    auto rows = detail::load_binary_array<std::int64_t, S>(path, layout.row_map_at, n + 1, "graph::row_map");
    detail::check_binary_row_offsets<Exec>(path, rows, n, m);
    auto entries = layout.vertex_bytes == 4
                       ? detail::load_binary_targets<V, Exec, S, std::int32_t>(path, layout.entries_at, m, rows, n)
                       : detail::load_binary_targets<V, Exec, S, std::int64_t>(path, layout.entries_at, m, rows, n);
    return G(csr_arrays_t{}, n, detail::convert_binary_array<E, Exec>(rows), std::move(entries));
  } catch (const io_error&) {
    throw;
  } catch (const std::exception& e) {
    throw io_error(path, 0, e.what());
  }
}

}  // namespace tessera::graph
