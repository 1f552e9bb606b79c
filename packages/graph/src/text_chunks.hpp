#pragma once
// The parallel text pass behind the Matrix Market and SNAP readers (private
// to the graph library).
//
//   mapped_file f(path);                                   // memory map (or a buffer for pipes)
//   auto chunks = cut_lines(f, body_begin, first_line, opts);   // "reading": cut at line ends, count lines
//   for_each_chunk(chunks, opts, "parsing", [&](text_chunk& c) { ... });
//   throw_first_problems(path, chunks);                   // file:line: token, for the earliest bad lines
//   compact(el.src, chunks);                              // entries side by side, in file order
//
// Why chunks know their slots: a chunk cannot know how many entries come
// before it until every earlier chunk is parsed, but it does know how many
// *lines* do (the reading pass counts them). Every line holds at most one
// entry, so chunk k writes its entries from slot `first_slot` = lines before
// it, parsing needs no second pass, and one forward move at the end closes
// the gaps left by comments and blank lines. The same prefix of line counts
// gives each chunk its first line number, so errors still name the line.
#include <tessera/graph/detail/text_lines.hpp>
#include <tessera/graph/io.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <unistd.h>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::graph::detail {

// A whole file, read-only: a private memory map when the file can be mapped,
// else (pipes, special files) its bytes read into a buffer.
class mapped_file {
 public:
  explicit mapped_file(const std::string& path);  // throws io_error(path, 0, ...)
  ~mapped_file();
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  const char* data() const { return m_data; }
  std::size_t size() const { return m_size; }
  std::string_view view() const { return {m_data, m_size}; }
  bool is_mapped() const { return m_map != nullptr; }

 private:
  const char* m_data = "";
  std::size_t m_size = 0;
  void* m_map = nullptr;
  std::vector<char> m_buffer;
};

struct line_problem {
  std::int64_t line = 0;
  std::string text;
};

// Bytes [begin, end) of the file: begins at a line start, ends just after a
// '\n' (or at the end of the file).
struct text_chunk {
  std::size_t begin = 0, end = 0;
  std::int64_t first_line = 0;  // 1-based line number of its first line
  std::int64_t lines = 0;       // lines that start in it
  std::int64_t first_slot = 0;  // lines of the body before it: where its entries go
  std::int64_t entries = 0;     // entries parsed (set by the parser)
  std::int64_t max_id = -1;     // largest vertex id seen (SNAP)
  std::int64_t max_id_line = 0; // the line it is on
  std::vector<line_problem> problems;  // the first few bad lines, in order
  static constexpr std::size_t max_problems = 3;
  // Records a problem; false once the chunk has seen enough to stop.
  bool problem(std::int64_t line, std::string text) {
    problems.push_back({line, std::move(text)});
    return problems.size() < max_problems;
  }
};

// Cuts [begin, size) of the file into chunks at line ends (about
// opts.chunk_bytes each; 0: a size that gives every thread many chunks) and
// counts their lines in parallel. The pass touches every page of the map,
// so it is the "reading" phase of the progress callback.
std::vector<text_chunk> cut_lines(const mapped_file& f, std::size_t begin, std::int64_t first_line,
                                  const read_options& opts);

// Runs parse(chunk) for every chunk on the default host execution space,
// in slices so that `phase` progress (bytes) can be reported between them.
// parse must not throw: it records problems in the chunk.
void for_each_chunk(std::vector<text_chunk>& chunks, const read_options& opts, const char* phase,
                    const std::function<void(text_chunk&)>& parse);

// Sizes el.src, el.dst (and el.weights) to `slots` entries each, the three
// on different threads: zeroing and first-touching hundreds of megabytes is
// a visible part of a large read.
void size_lists(edge_list& el, std::int64_t slots, bool weights);

// Throws io_error naming the earliest bad line of all chunks (and, in the
// message, the next few), if any chunk recorded a problem.
void throw_first_problems(const std::string& path, const std::vector<text_chunk>& chunks);

// Moves each chunk's entries from its first_slot down to their place after
// the previous chunk's, then shrinks v to the entries. Destinations never
// lie after sources, so one forward pass in chunk order is safe.
template <class T>
void compact(std::vector<T>& v, const std::vector<text_chunk>& chunks) {
  std::int64_t at = 0;
  for (const auto& c : chunks) {
    if (c.entries > 0 && at != c.first_slot)
      std::memmove(v.data() + at, v.data() + c.first_slot, std::size_t(c.entries) * sizeof(T));
    at += c.entries;
  }
  v.resize(std::size_t(at));
}

// ---- one line at a time inside a chunk (and detail/text_lines.hpp) ----

// The common line "digits blanks digits [blanks token] [blanks]" in one
// pass: fills u, v and the third token (empty when there is none) and returns
// the start of the next line; nullptr for any other line (signs, comments,
// more than 18 digits, a fourth field...), which the caller then reads with
// next_line and the full checks and messages.
inline const char* quick_line(const char* p, const char* end, std::int64_t& u, std::int64_t& v, std::string_view& third) {
  auto digits = [&](std::int64_t& x) {
    const char* b = p;
    // Unsigned: a run of more than 18 digits wraps harmlessly (the line is
    // then refused here) instead of overflowing a signed integer.
    std::uint64_t r = 0;
    while (p < end && unsigned(*p) - unsigned('0') < 10u) r = r * 10 + std::uint64_t(*p++ - '0');
    x = std::int64_t(r);
    return p > b && p - b <= 18;
  };
  auto blanks = [&] {
    const char* b = p;
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    return p > b;
  };
  if (!digits(u) || !blanks() || !digits(v)) return nullptr;
  third = {};
  if (blanks() && p < end && *p != '\n' && *p != '\r') {
    const char* b = p;
    while (p < end && !is_blank_char(*p) && *p != '\n') ++p;
    third = std::string_view(b, std::size_t(p - b));
    blanks();
  }
  while (p < end && *p == '\r') ++p;
  if (p == end) return p;
  return *p == '\n' ? p + 1 : nullptr;
}

// A graph of n vertices needs n + 1 row offsets of 8 bytes before any edge
// is stored. A file whose declared size or largest id asks for more than this
// machine's memory for that alone (a typo, a 64-bit hash used as an id) is
// refused at the line that asks, instead of failing later in an allocation
// of terabytes with no word of where the number came from.
inline void check_vertex_count_fits(const std::string& path, std::int64_t line, std::int64_t n,
                                    const std::string& what) {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return;  // unknown: let the allocation decide
  const double memory = double(pages) * double(page);
  const double need = (double(n) + 1.0) * 8.0;
  if (need > memory)
    throw io_error(path, line,
                   what + ": " + std::to_string(n) + " vertices need " + std::to_string(std::int64_t(need / (1 << 30))) +
                       " GiB for the row offsets alone, more than this machine's " +
                       std::to_string(std::int64_t(memory / (1 << 30))) + " GiB of memory");
}

}  // namespace tessera::graph::detail
