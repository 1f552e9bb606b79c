// Graph writers, the binary CSR format and the reader chosen by extension
// (host code). The text readers are read_matrix_market.cpp and
// read_snap.cpp. Every error names the file, the line and the problem;
// nothing a file contains can make a reader crash, loop, or allocate more
// than the file's size suggests.
#include <tessera/graph/detail/text_lines.hpp>
#include <tessera/graph/io.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

namespace tessera::graph {

edge_list read_edge_list(const std::string& path, const read_options& opts) {
  auto ends = [&](const char* s) {
    const std::size_t n = std::strlen(s);
    return path.size() >= n && detail::lower(std::string_view(path).substr(path.size() - n)) == s;
  };
  if (ends(".mtx")) return read_matrix_market(path, opts);
  if (ends(".tgb")) throw io_error(path, 0, "a binary CSR file: read it with read_binary_csr<Graph>()");
  return read_snap(path, opts);
}

void write_matrix_market(const std::string& path, const edge_list& el) {
  std::FILE* fp = std::fopen(path.c_str(), "w");
  if (!fp) throw io_error(path, 0, std::string("cannot create: ") + std::strerror(errno));
  const bool w = el.has_weights();
  const bool complex = w && el.weights_imag.size() == el.weights.size();
  const bool rectangular = el.mm_rows > 0 && el.mm_cols > 0 && el.mm_rows != el.mm_cols && !el.symmetric;
  const std::int64_t rows = rectangular ? el.mm_rows : el.num_vertices;
  const std::int64_t cols = rectangular ? el.mm_cols : el.num_vertices;
  const std::int64_t col_shift = rectangular && el.bipartite ? el.mm_rows : 0;
  std::fprintf(fp, "%%%%MatrixMarket matrix coordinate %s %s\n", complex ? "complex" : w ? "real" : "pattern",
               el.symmetric ? (complex ? "hermitian" : "symmetric") : "general");
  std::fprintf(fp, "%lld %lld %lld\n", (long long)rows, (long long)cols, (long long)el.size());
  for (std::int64_t i = 0; i < el.size(); ++i) {
    std::int64_t r = el.src[i] + 1, c = el.dst[i] - col_shift + 1;
    // Symmetric storage lists the lower triangle (a Hermitian mirror is
    // the conjugate).
    const bool mirrored = el.symmetric && r < c;
    if (mirrored) std::swap(r, c);
    if (complex)
      std::fprintf(fp, "%lld %lld %.17g %.17g\n", (long long)r, (long long)c, el.weights[i],
                   mirrored ? -el.weights_imag[i] : el.weights_imag[i]);
    else if (w) std::fprintf(fp, "%lld %lld %.17g\n", (long long)r, (long long)c, el.weights[i]);
    else std::fprintf(fp, "%lld %lld\n", (long long)r, (long long)c);
  }
  if (std::fclose(fp) != 0) throw io_error(path, 0, "write failed");
}

void write_snap(const std::string& path, const edge_list& el) {
  std::FILE* fp = std::fopen(path.c_str(), "w");
  if (!fp) throw io_error(path, 0, std::string("cannot create: ") + std::strerror(errno));
  std::fprintf(fp, "# %lld vertices, %lld edges (%s)\n", (long long)el.num_vertices, (long long)el.size(),
               el.origin.empty() ? "tessera::graph::write_snap" : el.origin.c_str());
  const bool w = el.has_weights();
  // Lines built by hand: fprintf per number would dominate large files.
  std::string buf;
  buf.reserve(1 << 20);
  char num[32];
  auto put = [&](std::int64_t x) {
    auto r = std::to_chars(num, num + sizeof num, x);
    buf.append(num, r.ptr);
  };
  for (std::int64_t i = 0; i < el.size(); ++i) {
    put(el.src[i]);
    buf.push_back(' ');
    put(el.dst[i]);
    if (w) {
      auto r = std::to_chars(num, num + sizeof num, el.weights[i]);  // shortest round-trip form
      buf.push_back(' ');
      buf.append(num, r.ptr);
    }
    buf.push_back('\n');
    if (buf.size() > (1u << 20) - 64) {
      if (std::fwrite(buf.data(), 1, buf.size(), fp) != buf.size()) break;
      buf.clear();
    }
  }
  const bool ok = std::fwrite(buf.data(), 1, buf.size(), fp) == buf.size();
  if (std::fclose(fp) != 0 || !ok) throw io_error(path, 0, "write failed");
}

namespace detail {

namespace {
constexpr char kMagic[8] = {'T', 'S', 'R', 'G', 'R', 'A', 'P', 'H'};
struct header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t category;
  std::uint64_t n;
  std::uint64_t entries;
  std::uint32_t vertex_bytes;
  std::uint32_t reserved;
};
static_assert(sizeof(header) == 40);
}  // namespace

std::unique_ptr<std::ostream> open_binary_csr(const std::string& path, std::uint32_t category, std::int64_t n,
                                              std::int64_t entries) {
  auto out = std::make_unique<std::ofstream>(path, std::ios::binary);
  if (!*out) throw io_error(path, 0, std::string("cannot create: ") + std::strerror(errno));
  header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = 1;
  h.category = category;
  h.n = std::uint64_t(n);
  h.entries = std::uint64_t(entries);
  h.vertex_bytes = std::uint32_t(binary_csr_target_bytes(n));
  out->write(reinterpret_cast<const char*>(&h), sizeof h);
  return out;
}

void close_binary_csr(std::ostream& out, const std::string& path) {
  out.flush();
  if (!out) throw io_error(path, 0, "write failed");
  if (auto* file = dynamic_cast<std::ofstream*>(&out)) {
    file->close();
    if (!*file) throw io_error(path, 0, "write failed (closing the file)");
  }
}

binary_csr_layout read_binary_csr_layout(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::uint64_t size = std::uint64_t(in.tellg());
  in.seekg(0);
  header h{};
  if (size < sizeof h || !in.read(reinterpret_cast<char*>(&h), sizeof h))
    throw io_error(path, 0, "too short for a binary CSR header (" + std::to_string(size) + " bytes)");
  if (std::memcmp(h.magic, kMagic, 8) != 0) throw io_error(path, 0, "not a Tessera binary CSR file (bad magic)");
  if (h.version != 1) throw io_error(path, 0, "unsupported binary CSR version " + std::to_string(h.version));
  if (h.category > 2) throw io_error(path, 0, "unknown directed category code " + std::to_string(h.category));
  if (h.vertex_bytes != 4 && h.vertex_bytes != 8) throw io_error(path, 0, "bad vertex width " + std::to_string(h.vertex_bytes));
  // Sizes against the file before anything is allocated.
  const std::uint64_t need_rows = (h.n + 1) * 8, need_entries = h.entries * h.vertex_bytes;
  if (h.n > (std::uint64_t(1) << 40) || h.entries > (std::uint64_t(1) << 44) || sizeof h + need_rows + need_entries != size)
    throw io_error(path, 0,
                   "size mismatch: header says " + std::to_string(h.n) + " vertices and " + std::to_string(h.entries) +
                       " entries (" + std::to_string(sizeof h + need_rows + need_entries) + " bytes), file has " +
                       std::to_string(size) + " bytes");
  binary_csr_layout l;
  l.category = h.category;
  l.n = std::int64_t(h.n);
  l.entries = std::int64_t(h.entries);
  l.vertex_bytes = int(h.vertex_bytes);
  l.row_map_at = sizeof h;
  l.entries_at = sizeof h + need_rows;
  return l;
}

std::unique_ptr<std::istream> open_binary_csr_bytes(const std::string& path) {
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) throw io_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  return in;
}

void read_binary_csr_bytes(std::istream& in, const std::string& path, std::uint64_t at, std::uint64_t bytes,
                           void* dst) {
  in.seekg(std::streamoff(at));
  if (!in.read(static_cast<char*>(dst), std::streamsize(bytes)))
    throw io_error(path, 0, "read failed at byte " + std::to_string(at) + " (" + std::to_string(bytes) + " bytes)");
}

void throw_binary_csr_bad_offset(const std::string& path, std::int64_t k, std::int64_t value, const std::string& why) {
  throw io_error(path, 0,
                  "row offset " + std::to_string(k) + " (byte " + std::to_string(sizeof(header) + std::uint64_t(k) * 8) +
                      ") is " + std::to_string(value) + ": " + why);
}

void throw_binary_csr_bad_target(const std::string& path, std::int64_t j, std::int64_t row, std::int64_t value,
                                 std::int64_t n) {
  throw io_error(path, 0,
                  "entry " + std::to_string(j) + " (row " + std::to_string(row) + ") is vertex " + std::to_string(value) +
                      ", outside [0, " + std::to_string(n) + ")");
}

}  // namespace detail

}  // namespace tessera::graph
