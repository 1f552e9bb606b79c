#pragma once
// One line of a text graph file at a time: its fields, the tokens in them,
// and the Matrix Market header. Shared by the node-level readers
// (src/read_matrix_market.cpp, src/read_snap.cpp, in parallel chunks) and
// the distributed ones (packages/dist, a byte range per rank), so that both
// accept the same files and name a bad token in the same words.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::graph::detail {

inline bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The whitespace-separated fields of one line: the first max_fields are kept,
// `count` counts them all.
struct line_fields {
  static constexpr int max_fields = 6;
  std::string_view field[max_fields];
  int count = 0;
  std::string_view line;  // without the '\n' and a trailing '\r'
};

// Splits the line starting at p (p < end) and returns the start of the next.
inline const char* next_line(const char* p, const char* end, line_fields& lf) {
  const char* start = p;
  int k = 0;
  for (;;) {
    while (p < end && is_blank_char(*p)) ++p;
    if (p == end || *p == '\n') break;
    const char* b = p;
    while (p < end && *p != '\n' && !is_blank_char(*p)) ++p;
    if (k < line_fields::max_fields) lf.field[k] = std::string_view(b, std::size_t(p - b));
    ++k;
  }
  lf.count = k;
  const char* stop = p;
  while (stop > start && stop[-1] == '\r') --stop;
  lf.line = std::string_view(start, std::size_t(stop - start));
  return p < end ? p + 1 : end;
}

// ---- tokens ----

// 'token' as it appears in a message: at most 60 characters, unprintable ones as '?'.
std::string shown(std::string_view s);

// ASCII lower case (banner words, file extensions).
std::string lower(std::string_view s);

// An integer: optional sign, decimal digits, nothing else. Inline: it runs
// twice per line of every edge list.
bool parse_long_int(std::string_view s, std::int64_t& v);
inline bool parse_int(std::string_view s, std::int64_t& v) {
  const char* p = s.data();
  const char* e = p + s.size();
  const bool neg = p != e && *p == '-';
  if (p != e && (*p == '+' || *p == '-')) ++p;
  if (p == e || e - p > 18) return parse_long_int(s, v);  // empty, or might overflow: the careful path
  std::int64_t x = 0;
  for (; p != e; ++p) {
    const unsigned d = unsigned(*p) - unsigned('0');
    if (d > 9) return false;
    x = x * 10 + std::int64_t(d);
  }
  v = neg ? -x : x;
  return true;
}

// A real number as strtod reads it (decimal, hexadecimal, inf, nan). Values
// too small for a normal double become denormals or zero; only a value too
// large for a double fails, with overflow set.
bool parse_real(std::string_view s, double& v, bool& overflow);

// ---- the Matrix Market header ----

// The banner, the comments and the size line of a coordinate file.
// Reference: "The Matrix Market Exchange Formats: Initial Design",
// Boisvert, Pozo and Remington, NISTIR 5935 (1996).
struct mm_header {
  std::string field;     // "pattern", "integer" or "real" ("double" is read as "real")
  std::string symmetry;  // "general", "symmetric" or "skew-symmetric"
  std::int64_t rows = -1, cols = -1, nnz = -1;
  std::int64_t size_line = 0;  // 1-based line number of the size line
  std::size_t body = 0;        // byte offset of the line after it
};

// Reads the header at the start of `text`. `whole`: text is the whole file;
// otherwise it is a prefix, and when it ends before the size line does the
// result is empty (read a longer prefix and call again). Checks everything
// the header alone decides (banner words, structured "%%GraphBLAS type"
// comments, the size line's integers, a symmetric matrix being square, at
// most 2^40 rows and columns, a symmetric entry count that fits the lower
// triangle) and throws io_error naming the line otherwise. What a reader
// accepts beyond that (a rectangular matrix, a vertex count this machine can
// hold) is the reader's to check. A complex field is refused (a graph has
// real weights) unless accept_complex (a numerical reader's choice).
std::optional<mm_header> parse_mm_header(const std::string& path, std::string_view text, bool whole,
                                         bool accept_complex = false);

}  // namespace tessera::graph::detail
