// Graph readers and writers (host code). Every error names the file, the
// line and the problem; nothing a file contains can make a reader crash,
// loop, or allocate more than the file's size suggests.
#include <tessera/graph/io.hpp>

#include <algorithm>
#include <cctype>
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

namespace {

std::string load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw io_error(path, 0, "cannot determine the file size");
  in.seekg(0);
  std::string data(std::size_t(size), '\0');
  if (size > 0 && !in.read(data.data(), size)) throw io_error(path, 0, "read failed");
  return data;
}

// Splits a line into whitespace-separated fields.
void split(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t b = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::string shown(std::string_view s) {
  std::string r(s.substr(0, 60));
  for (auto& c : r)
    if (!std::isprint(static_cast<unsigned char>(c))) c = '?';
  return "'" + r + (s.size() > 60 ? "...'" : "'");
}

bool parse_int(std::string_view s, std::int64_t& v) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') ++b;
  auto r = std::from_chars(b, e, v);
  return r.ec == std::errc() && r.ptr == e && b != e;
}

bool parse_real(std::string_view s, double& v) {
  std::string tmp(s);  // strtod needs a terminator; handles nan/inf like the Matrix Market tools
  char* end = nullptr;
  errno = 0;
  v = std::strtod(tmp.c_str(), &end);
  return end == tmp.c_str() + tmp.size() && !tmp.empty() && errno != ERANGE;
}

// Line-by-line walk over a loaded file, with 1-based line numbers.
class line_reader {
 public:
  line_reader(const std::string& data, const read_options& opts) : m_data(data), m_opts(opts) {}
  bool next(std::string_view& line) {
    if (m_pos >= m_data.size()) return false;
    std::size_t e = m_data.find('\n', m_pos);
    if (e == std::string::npos) e = m_data.size();
    line = std::string_view(m_data).substr(m_pos, e - m_pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    m_pos = e + 1;
    ++m_line;
    if (m_opts.progress && (m_line & 0xfffff) == 0) m_opts.progress(std::int64_t(m_pos), std::int64_t(m_data.size()), m_opts.progress_user);
    return true;
  }
  std::int64_t line() const { return m_line; }

 private:
  const std::string& m_data;
  const read_options& m_opts;
  std::size_t m_pos = 0;
  std::int64_t m_line = 0;
};

bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

}  // namespace

edge_list read_matrix_market(const std::string& path, const read_options& opts) {
  const std::string data = load_file(path);
  line_reader rd(data, opts);
  std::string_view line;
  std::vector<std::string_view> f;
  auto err = [&](const std::string& what) { return io_error(path, rd.line(), what); };

  if (!rd.next(line)) throw io_error(path, 0, "empty file: missing the %%MatrixMarket banner");
  split(line, f);
  if (f.empty() || lower(f[0]) != "%%matrixmarket")
    throw err("missing the %%MatrixMarket banner (first line is " + shown(line) + ")");
  if (f.size() != 5)
    throw err("the banner needs 4 words (object format field symmetry), found " + std::to_string(f.size() - 1));
  const std::string object = lower(f[1]), format = lower(f[2]), field = lower(f[3]), symmetry = lower(f[4]);
  if (object != "matrix") throw err("unknown object " + shown(f[1]) + " (expected 'matrix')");
  if (format != "coordinate" && format != "array")
    throw err("unknown format " + shown(f[2]) + " (expected 'coordinate' or 'array')");
  if (field != "pattern" && field != "integer" && field != "real" && field != "double" && field != "complex")
    throw err("unknown field " + shown(f[3]) + " (expected pattern, integer, real or complex)");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" && symmetry != "hermitian")
    throw err("unknown symmetry " + shown(f[4]) + " (expected general, symmetric, skew-symmetric or hermitian)");
  if (symmetry == "hermitian" && field != "complex") throw err("'hermitian' needs a complex field, not '" + field + "'");
  if (field == "complex") throw err("complex matrices are not supported by the graph reader");
  if (format == "array") throw err("dense 'array' format is not a graph: use 'coordinate'");
  if (field == "pattern" && symmetry == "skew-symmetric") throw err("a pattern matrix cannot be skew-symmetric");
  const bool pattern = field == "pattern";
  const bool integer = field == "integer";

  // Comments (including structured ones such as "%%GraphBLAS type double")
  // and blank lines may appear anywhere; the first other line is the size.
  std::int64_t rows = -1, cols = -1, nnz = -1;
  while (rd.next(line)) {
    if (blank(line)) continue;
    if (line[0] == '%') {
      split(line, f);
      if (!f.empty() && lower(f[0]) == "%%graphblas" && f.size() >= 3 && lower(f[1]) == "type") {
        static const char* known[] = {"bool",   "int8",  "int16", "int32", "int64",          "uint8",
                                      "uint16", "uint32", "uint64", "float", "double",        "float complex",
                                      "double complex"};
        std::string t = lower(f[2]);
        for (std::size_t k = 3; k < f.size(); ++k) t.append(" ").append(lower(f[k]));
        if (std::find(std::begin(known), std::end(known), t) == std::end(known))
          throw err("unknown GraphBLAS type " + shown(t));
      }
      continue;
    }
    split(line, f);
    if (f.size() != 3)
      throw err("the size line needs 3 integers (rows columns entries), found " + std::to_string(f.size()) + " fields: " +
                shown(line));
    if (!parse_int(f[0], rows) || !parse_int(f[1], cols) || !parse_int(f[2], nnz))
      throw err("the size line must hold 3 integers, found " + shown(line));
    if (rows < 0 || cols < 0 || nnz < 0) throw err("negative size in " + shown(line));
    break;
  }
  if (rows < 0) throw io_error(path, rd.line(), "no size line (rows columns entries) after the banner");
  const std::int64_t size_line = rd.line();
  if (rows != cols)
    throw err("the matrix is " + std::to_string(rows) + " x " + std::to_string(cols) +
              (symmetry != "general" ? std::string("; a ") + symmetry + " matrix must be square" : "; a graph needs a square matrix"));
  if (rows > std::int64_t(1) << 40) throw err("too many vertices (" + std::to_string(rows) + ")");
  if (symmetry != "general" && double(nnz) > double(rows) * double(rows + 1) / 2 + 1)
    throw err(std::to_string(nnz) + " entries cannot fit the lower triangle of a " + std::to_string(rows) + " x " +
              std::to_string(rows) + " matrix");
  // The declared count bounds the work, but a lie must not make us allocate:
  // reserve at most what the file could hold (a few bytes per entry).
  edge_list el;
  el.num_vertices = rows;
  el.symmetric = symmetry != "general";
  el.origin = path;
  el.mm_field = field == "double" ? "real" : field;
  el.mm_symmetry = symmetry;
  const std::size_t cap = std::size_t(std::min<std::int64_t>(nnz, std::int64_t(data.size() / 4 + 1)));
  el.src.reserve(cap);
  el.dst.reserve(cap);
  if (!pattern) el.weights.reserve(cap);
  const std::size_t want_fields = pattern ? 2 : 3;
  std::int64_t count = 0;
  while (rd.next(line)) {
    if (blank(line) || line[0] == '%') continue;
    if (count == nnz)
      throw err("more entries than the " + std::to_string(nnz) + " declared on line " + std::to_string(size_line));
    split(line, f);
    if (f.size() != want_fields)
      throw err("entry " + std::to_string(count + 1) + " has " + std::to_string(f.size()) + " fields, a " + field +
                " entry has " + std::to_string(want_fields) + ": " + shown(line));
    std::int64_t i = 0, j = 0;
    if (!parse_int(f[0], i)) throw err("row index " + shown(f[0]) + " is not an integer");
    if (!parse_int(f[1], j)) throw err("column index " + shown(f[1]) + " is not an integer");
    if (i < 1 || i > rows) throw err("row index " + std::to_string(i) + " outside 1.." + std::to_string(rows));
    if (j < 1 || j > cols) throw err("column index " + std::to_string(j) + " outside 1.." + std::to_string(cols));
    if (symmetry == "skew-symmetric" && i == j) throw err("a skew-symmetric matrix has no diagonal entries (" + std::to_string(i) + ", " + std::to_string(j) + ")");
    if (!pattern) {
      double w = 0;
      if (integer) {
        std::int64_t iv = 0;
        if (!parse_int(f[2], iv)) throw err("value " + shown(f[2]) + " is not an integer");
        w = double(iv);
      } else if (!parse_real(f[2], w)) {
        throw err("value " + shown(f[2]) + " is not a real number");
      }
      if (opts.reject_non_finite && !std::isfinite(w))
        throw err("value " + shown(f[2]) + " of entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is not finite");
      el.weights.push_back(w);
    }
    el.src.push_back(i - 1);
    el.dst.push_back(j - 1);
    ++count;
  }
  if (count < nnz)
    throw io_error(path, rd.line(),
                   "the file ends after " + std::to_string(count) + " of the " + std::to_string(nnz) + " entries declared on line " +
                       std::to_string(size_line));
  return el;
}

edge_list read_snap(const std::string& path, const read_options& opts) {
  const std::string data = load_file(path);
  line_reader rd(data, opts);
  std::string_view line;
  std::vector<std::string_view> f;
  edge_list el;
  el.origin = path;
  el.src.reserve(data.size() / 8);
  el.dst.reserve(data.size() / 8);
  std::int64_t max_id = -1;
  std::size_t fields = 0;
  std::int64_t first_line = 0;
  while (rd.next(line)) {
    if (blank(line) || line[0] == '#' || line[0] == '%') continue;
    split(line, f);
    auto err = [&](const std::string& what) { return io_error(path, rd.line(), what); };
    if (f.size() != 2 && f.size() != 3) throw err("an edge line holds 'source target [weight]', found " + shown(line));
    if (fields == 0) fields = f.size(), first_line = rd.line();
    if (f.size() != fields)
      throw err("this line has " + std::to_string(f.size()) + " fields, line " + std::to_string(first_line) + " had " +
                std::to_string(fields));
    std::int64_t u = 0, v = 0;
    if (!parse_int(f[0], u) || u < 0) throw err("source " + shown(f[0]) + " is not a vertex id (a non-negative integer)");
    if (!parse_int(f[1], v) || v < 0) throw err("target " + shown(f[1]) + " is not a vertex id (a non-negative integer)");
    if (u >= std::int64_t(1) << 40 || v >= std::int64_t(1) << 40) throw err("vertex id too large in " + shown(line));
    if (fields == 3) {
      double w = 0;
      if (!parse_real(f[2], w)) throw err("weight " + shown(f[2]) + " is not a number");
      el.weights.push_back(w);
    }
    el.add(u, v);
    max_id = std::max({max_id, u, v});
  }
  el.num_vertices = max_id + 1;
  return el;
}

edge_list read_edge_list(const std::string& path, const read_options& opts) {
  auto ends = [&](const char* s) {
    const std::size_t n = std::strlen(s);
    return path.size() >= n && lower(std::string_view(path).substr(path.size() - n)) == s;
  };
  if (ends(".mtx")) return read_matrix_market(path, opts);
  if (ends(".tgb")) throw io_error(path, 0, "a binary CSR file: read it with read_binary_csr<Graph>()");
  return read_snap(path, opts);
}

void write_matrix_market(const std::string& path, const edge_list& el) {
  std::FILE* fp = std::fopen(path.c_str(), "w");
  if (!fp) throw io_error(path, 0, std::string("cannot create: ") + std::strerror(errno));
  const bool w = el.has_weights();
  std::fprintf(fp, "%%%%MatrixMarket matrix coordinate %s %s\n", w ? "real" : "pattern", el.symmetric ? "symmetric" : "general");
  std::fprintf(fp, "%lld %lld %lld\n", (long long)el.num_vertices, (long long)el.num_vertices, (long long)el.size());
  for (std::int64_t i = 0; i < el.size(); ++i) {
    std::int64_t r = el.src[i] + 1, c = el.dst[i] + 1;
    if (el.symmetric && r < c) std::swap(r, c);  // symmetric storage lists the lower triangle
    if (w) std::fprintf(fp, "%lld %lld %.17g\n", (long long)r, (long long)c, el.weights[i]);
    else std::fprintf(fp, "%lld %lld\n", (long long)r, (long long)c);
  }
  if (std::fclose(fp) != 0) throw io_error(path, 0, "write failed");
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

void write_binary_csr_raw(const std::string& path, std::uint32_t category, std::int64_t n,
                          const std::vector<std::int64_t>& row_map, const std::vector<std::int64_t>& entries) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw io_error(path, 0, std::string("cannot create: ") + std::strerror(errno));
  header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = 1;
  h.category = category;
  h.n = std::uint64_t(n);
  h.entries = entries.size();
  h.vertex_bytes = n <= std::int64_t(std::numeric_limits<std::int32_t>::max()) ? 4 : 8;
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(reinterpret_cast<const char*>(row_map.data()), std::streamsize(row_map.size() * 8));
  if (h.vertex_bytes == 4) {
    std::vector<std::int32_t> e32(entries.begin(), entries.end());
    out.write(reinterpret_cast<const char*>(e32.data()), std::streamsize(e32.size() * 4));
  } else {
    out.write(reinterpret_cast<const char*>(entries.data()), std::streamsize(entries.size() * 8));
  }
  if (!out) throw io_error(path, 0, "write failed");
}

binary_csr read_binary_csr_raw(const std::string& path) {
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
  // Check sizes against the file before allocating anything.
  const std::uint64_t need_rows = (h.n + 1) * 8, need_entries = h.entries * h.vertex_bytes;
  if (h.n > (std::uint64_t(1) << 40) || h.entries > (std::uint64_t(1) << 44) || sizeof h + need_rows + need_entries != size)
    throw io_error(path, 0,
                   "size mismatch: header says " + std::to_string(h.n) + " vertices and " + std::to_string(h.entries) +
                       " entries (" + std::to_string(sizeof h + need_rows + need_entries) + " bytes), file has " +
                       std::to_string(size) + " bytes");
  binary_csr r;
  r.category = h.category;
  r.n = std::int64_t(h.n);
  r.row_map.resize(h.n + 1);
  in.read(reinterpret_cast<char*>(r.row_map.data()), std::streamsize(need_rows));
  r.entries.resize(h.entries);
  if (h.vertex_bytes == 4) {
    std::vector<std::int32_t> e32(h.entries);
    in.read(reinterpret_cast<char*>(e32.data()), std::streamsize(need_entries));
    std::copy(e32.begin(), e32.end(), r.entries.begin());
  } else {
    in.read(reinterpret_cast<char*>(r.entries.data()), std::streamsize(need_entries));
  }
  if (!in) throw io_error(path, 0, "read failed");
  return r;
}

}  // namespace detail

}  // namespace tessera::graph
