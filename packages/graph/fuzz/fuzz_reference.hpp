#pragma once
// Reference readers for the text fuzzers: slow, line by line, written from
// the formats' definitions with the C library's strtoll/strtod, sharing no
// code with the readers under test. When a reader accepts an input, the
// reference must accept it too and find the same edges: that catches what
// the sanitizers and the chunk-size comparison cannot, a reader (its fast
// line scanner, say) that accepts a malformed token or reads a wrong value.
//
// The other direction holds for small graphs: a file the reference reads
// into at most 2^20 vertices must be read. (The readers refuse vertex counts
// beyond this machine's memory and ids of 2^40 and more; the reference also
// has the two header rules below that are not in the definition.)
//
// The rules, from the definitions:
//   lines end at '\n'; the fields of a line are separated by ' ', '\t',
//   '\r', '\v' and '\f'; an integer is an optional sign and decimal digits
//   that fit in 64 bits; a real is all of a token that strtod reads in the
//   C locale (decimal, hexadecimal, inf, nan) without overflowing.
//   Matrix Market (Boisvert, Pozo, Remington, NISTIR 5935, 1996): a banner
//   "%%MatrixMarket matrix coordinate <field> <symmetry>" (words in any
//   case; field pattern, integer, real or "double"; symmetry general,
//   symmetric or skew-symmetric), then lines starting with '%' or blank,
//   then "rows columns entries", then exactly `entries` lines "i j [value]",
//   1 <= i <= rows, 1 <= j <= columns, no diagonal entry when skew-symmetric,
//   comment and blank lines anywhere. A symmetric matrix is square; a
//   rectangular one is read as a bipartite graph (read_options' default):
//   rows are vertices [0, rows), columns [rows, rows + columns).
//   Beyond the definition, as the reader documents: a header comment
//   "%%GraphBLAS type T" names one of GraphBLAS's 13 built-in types, and a
//   symmetric or skew-symmetric matrix declares at most n(n+1)/2 entries
//   (the positions of its lower triangle).
//   SNAP edge list (packages/graph/docs/README.md): lines "u v" or "u v w"
//   (the first edge line fixes which), 0-based non-negative ids, lines
//   starting with '#' or '%' and blank lines ignored; n = largest id + 1.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace tessera_fuzz::reference {

struct result {
  bool ok = false;
  std::string why;  // when !ok: the first rule broken
  std::int64_t num_vertices = 0;
  bool weighted = false;
  bool symmetric = false;
  std::vector<std::int64_t> src, dst;
  std::vector<double> weights;
};

// Far above the readers' own limit (2^40): keeps the reference's sums of
// sizes from overflowing, and refuses only files no reader accepts.
constexpr std::int64_t id_bound = std::int64_t(1) << 60;

inline std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t b = 0;
  while (b < text.size()) {
    std::size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    lines.emplace_back(text.substr(b, e - b));
    b = e + 1;
  }
  return lines;
}

inline std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> f;
  const char* blanks = " \t\r\v\f";
  std::size_t b = line.find_first_not_of(blanks);
  while (b != std::string::npos) {
    std::size_t e = line.find_first_of(blanks, b);
    if (e == std::string::npos) e = line.size();
    f.push_back(line.substr(b, e - b));
    b = line.find_first_not_of(blanks, e);
  }
  return f;
}

inline bool integer(const std::string& s, std::int64_t& v) {
  std::size_t k = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (k == s.size()) return false;
  for (std::size_t i = k; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  errno = 0;
  const long long x = std::strtoll(s.c_str(), nullptr, 10);
  if (errno == ERANGE) return false;
  v = std::int64_t(x);
  return true;
}

inline bool real(const std::string& s, double& v) {
  if (s.empty() || s.find('\0') != std::string::npos) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  return !(errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL));
}

inline std::string lowered(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return s;
}

inline result refuse(std::string why, std::size_t line) {
  result r;
  r.why = "line " + std::to_string(line) + ": " + std::move(why);
  return r;
}

inline result matrix_market(std::string_view text) {
  const auto lines = split_lines(text);
  if (lines.empty()) return refuse("empty", 0);
  const auto banner = split_fields(lines[0]);
  if (banner.size() != 5 || lowered(banner[0]) != "%%matrixmarket" || lowered(banner[1]) != "matrix" ||
      lowered(banner[2]) != "coordinate")
    return refuse("not a coordinate matrix banner", 1);
  std::string field = lowered(banner[3]);
  const std::string symmetry = lowered(banner[4]);
  if (field == "double") field = "real";
  if (field != "pattern" && field != "integer" && field != "real") return refuse("field " + field, 1);
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
    return refuse("symmetry " + symmetry, 1);
  if (field == "pattern" && symmetry == "skew-symmetric") return refuse("skew-symmetric pattern", 1);

  result r;
  r.weighted = field != "pattern";
  r.symmetric = symmetry != "general";
  std::int64_t rows = -1, cols = -1, nnz = -1;
  std::size_t k = 1;
  for (; k < lines.size(); ++k) {
    const auto f = split_fields(lines[k]);
    if (!f.empty() && f.size() >= 3 && lowered(f[0]) == "%%graphblas" && lowered(f[1]) == "type") {
      std::string type = lowered(f[2]);
      for (std::size_t t = 3; t < f.size(); ++t) type += " " + lowered(f[t]);
      static const char* const known[] = {"bool",   "int8",   "int16", "int32",  "int64",         "uint8",         "uint16",
                                          "uint32", "uint64", "float", "double", "float complex", "double complex"};
      if (std::find(std::begin(known), std::end(known), type) == std::end(known)) return refuse("GraphBLAS type", k + 1);
    }
    if (f.empty() || f[0][0] == '%') continue;
    if (f.size() != 3 || !integer(f[0], rows) || !integer(f[1], cols) || !integer(f[2], nnz) || rows < 0 ||
        cols < 0 || nnz < 0)
      return refuse("size line", k + 1);
    if (rows > id_bound || cols > id_bound) return refuse("more rows or columns than any reader holds", k + 1);
    break;
  }
  if (k == lines.size()) return refuse("no size line", k);
  if (r.symmetric && rows != cols) return refuse("symmetric but not square", k + 1);
  if (r.symmetric && double(nnz) > double(rows) * double(rows + 1) / 2) return refuse("more entries than the lower triangle", k + 1);
  const bool bipartite = rows != cols;
  r.num_vertices = bipartite ? rows + cols : rows;
  for (++k; k < lines.size(); ++k) {
    const auto f = split_fields(lines[k]);
    if (f.empty() || f[0][0] == '%') continue;
    std::int64_t i = 0, j = 0;
    if (f.size() != (r.weighted ? 3u : 2u)) return refuse("field count", k + 1);
    if (!integer(f[0], i) || !integer(f[1], j) || i < 1 || i > rows || j < 1 || j > cols)
      return refuse("index", k + 1);
    if (symmetry == "skew-symmetric" && i == j) return refuse("skew-symmetric diagonal", k + 1);
    if (field == "integer") {
      std::int64_t x = 0;
      if (!integer(f[2], x)) return refuse("integer value", k + 1);
      r.weights.push_back(double(x));
    } else if (field == "real") {
      double x = 0;
      if (!real(f[2], x)) return refuse("real value", k + 1);
      r.weights.push_back(x);
    }
    if (std::int64_t(r.src.size()) == nnz) return refuse("more entries than declared", k + 1);
    r.src.push_back(i - 1);
    r.dst.push_back((bipartite ? rows : 0) + j - 1);
  }
  if (std::int64_t(r.src.size()) != nnz) return refuse("fewer entries than declared", lines.size());
  r.ok = true;
  return r;
}

inline result snap(std::string_view text) {
  const auto lines = split_lines(text);
  result r;
  std::size_t fields = 0;
  std::int64_t max_id = -1;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const auto f = split_fields(lines[k]);
    if (f.empty() || f[0][0] == '#' || f[0][0] == '%') continue;
    if (fields == 0) {
      if (f.size() != 2 && f.size() != 3) return refuse("an edge line has 2 or 3 fields", k + 1);
      fields = f.size();
      r.weighted = fields == 3;
    }
    if (f.size() != fields) return refuse("field count differs from the first edge line", k + 1);
    std::int64_t u = 0, v = 0;
    if (!integer(f[0], u) || !integer(f[1], v) || u < 0 || v < 0) return refuse("vertex id", k + 1);
    if (u >= id_bound || v >= id_bound) return refuse("a vertex id beyond what any reader holds", k + 1);
    if (r.weighted) {
      double w = 0;
      if (!real(f[2], w)) return refuse("weight", k + 1);
      r.weights.push_back(w);
    }
    r.src.push_back(u);
    r.dst.push_back(v);
    max_id = std::max({max_id, u, v});
  }
  r.num_vertices = max_id + 1;
  r.ok = true;
  return r;
}

}  // namespace tessera_fuzz::reference
