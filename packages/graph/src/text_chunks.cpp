// The parallel text pass: memory map, chunks cut at line ends, per-chunk
// parsing on the default host execution space, problems merged in line order.
#include "text_chunks.hpp"

#include <tessera/core.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::graph::detail {

mapped_file::mapped_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw io_error(path, 0, std::string("cannot stat: ") + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw io_error(path, 0, "is a directory, not a file");
  }
  if (S_ISREG(st.st_mode)) {
    m_size = std::size_t(st.st_size);
    if (m_size > 0) {
      void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        // Start reading the whole file ahead: the chunks are parsed in
        // parallel, from several places at once.
        ::madvise(p, m_size, MADV_WILLNEED);
        m_map = p;
        m_data = static_cast<const char*>(p);
        ::close(fd);
        return;
      }
    }
  }
  // Not mappable (a pipe, a special file, or mmap refused): read it all.
  m_size = 0;
  char buf[1 << 16];
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw io_error(path, 0, std::string("read failed: ") + std::strerror(e));
    }
    if (r == 0) break;
    m_buffer.insert(m_buffer.end(), buf, buf + r);
  }
  ::close(fd);
  m_size = m_buffer.size();
  if (m_size) m_data = m_buffer.data();
}

mapped_file::~mapped_file() {
  if (m_map) ::munmap(m_map, m_size);
}

namespace {

using host_exec = tessera::DefaultHostExecutionSpace;

void report(const read_options& opts, const char* phase, std::int64_t done, std::int64_t total) {
  if (opts.progress) opts.progress(phase, done, total, opts.progress_user);
}

std::size_t default_chunk_bytes(std::size_t bytes) {
  const std::size_t threads = std::size_t(std::max(1, host_exec().concurrency()));
  // Many chunks per thread (balance, and progress between slices), none so
  // small that the per-chunk bookkeeping shows.
  return std::clamp<std::size_t>(bytes / (threads * 64), std::size_t(64) << 10, std::size_t(4) << 20);
}

// Runs f(i) for chunk indices [0, n) in slices, reporting `phase` progress
// in bytes after each slice.
template <class F>
void in_slices(const std::vector<text_chunk>& chunks, const read_options& opts, const char* phase, const F& f) {
  const std::int64_t n = std::int64_t(chunks.size());
  if (n == 0) return;
  const std::int64_t threads = std::max(1, host_exec().concurrency());
  // About ten slices: progress in steps of a tenth, few barriers.
  const std::int64_t slice = std::max<std::int64_t>(threads * 4, (n + 9) / 10);
  const std::int64_t total = std::int64_t(chunks.back().end - chunks.front().begin);
  for (std::int64_t lo = 0; lo < n; lo += slice) {
    const std::int64_t hi = std::min(n, lo + slice);
    tessera::parallel_for("graph::io::" + std::string(phase),
                          tessera::RangePolicy<host_exec, tessera::Schedule<tessera::Dynamic>>(lo, hi, 1),
                          [&](std::int64_t i) { f(i); });
    report(opts, phase, std::int64_t(chunks[std::size_t(hi - 1)].end - chunks.front().begin), total);
  }
}

// '\n' bytes in [p, e). Blocks of 255 bytes counted into a byte, which
// compilers turn into wide vector compares: several times faster than
// std::count's per-byte 64-bit sum.
std::int64_t count_newlines(const char* p, const char* e) {
  std::int64_t n = 0;
  for (; e - p >= 255; p += 255) {
    unsigned char c = 0;
    for (int i = 0; i < 255; ++i) c = static_cast<unsigned char>(c + (p[i] == '\n'));
    n += c;
  }
  for (; p < e; ++p) n += *p == '\n';
  return n;
}

}  // namespace

std::vector<text_chunk> cut_lines(const mapped_file& f, std::size_t begin, std::int64_t first_line,
                                  const read_options& opts) {
  const char* text = f.data();
  const std::size_t size = f.size();
  begin = std::min(begin, size);
  const std::size_t bytes = size - begin;
  const std::size_t chunk = opts.chunk_bytes > 0 ? std::size_t(opts.chunk_bytes) : default_chunk_bytes(bytes);
  const std::size_t k = std::max<std::size_t>(1, (bytes + chunk - 1) / chunk);
  // Boundaries: the first line start at or after each multiple of the chunk
  // size. A search starts where the previous one ended at the earliest, so a
  // file of few, long lines is still scanned only once.
  std::vector<text_chunk> chunks(k);
  std::size_t prev = begin;
  for (std::size_t b = 0; b < k; ++b) {
    chunks[b].begin = prev;
    std::size_t bound = size;
    if (b + 1 < k) {
      const std::size_t pos = begin + (b + 1) * chunk;
      if (pos <= prev) {
        bound = prev;
      } else if (text[pos - 1] == '\n') {
        bound = pos;
      } else {
        const void* nl = std::memchr(text + pos, '\n', size - pos);
        bound = nl ? std::size_t(static_cast<const char*>(nl) - text) + 1 : size;
      }
    }
    chunks[b].end = bound;
    prev = bound;
  }
  const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  in_slices(chunks, opts, "reading", [&](std::int64_t i) {
    text_chunk& c = chunks[std::size_t(i)];
#ifdef MADV_POPULATE_READ
    // Map the chunk's pages in one call (reading them from disk if needed)
    // rather than one fault per page; only a hint, so failures are ignored.
    if (f.is_mapped() && c.end > c.begin) {
      const std::uintptr_t b = std::uintptr_t(text + c.begin) & ~(page - 1);
      ::madvise(reinterpret_cast<void*>(b), std::uintptr_t(text + c.end) - b, MADV_POPULATE_READ);
    }
#endif
    c.lines = count_newlines(text + c.begin, text + c.end);
    if (c.end == size && c.end > c.begin && text[c.end - 1] != '\n') ++c.lines;  // a last line without '\n'
  });
  std::int64_t lines = 0;
  for (auto& c : chunks) {
    c.first_slot = lines;
    c.first_line = first_line + lines;
    lines += c.lines;
  }
  return chunks;
}

void for_each_chunk(std::vector<text_chunk>& chunks, const read_options& opts, const char* phase,
                    const std::function<void(text_chunk&)>& parse) {
  in_slices(chunks, opts, phase, [&](std::int64_t i) { parse(chunks[std::size_t(i)]); });
}

void size_lists(edge_list& el, std::int64_t slots, bool weights) {
  const std::size_t n = std::size_t(slots);
  tessera::parallel_for("graph::io::size_lists", tessera::RangePolicy<host_exec>(0, weights ? 3 : 2, 1), [&](std::int64_t i) {
    if (i == 0) el.src.resize(n);
    else if (i == 1) el.dst.resize(n);
    else el.weights.resize(n);
  });
}

void throw_first_problems(const std::string& path, const std::vector<text_chunk>& chunks) {
  std::vector<const line_problem*> first;
  for (const auto& c : chunks)
    for (const auto& p : c.problems)
      if (first.size() < text_chunk::max_problems) first.push_back(&p);
  if (first.empty()) return;
  std::string msg = first[0]->text;
  for (std::size_t i = 1; i < first.size(); ++i)
    msg += (i == 1 ? " (also line " : "; line ") + std::to_string(first[i]->line) + ": " + first[i]->text;
  if (first.size() > 1) msg += ")";
  throw io_error(path, first[0]->line, msg);
}

std::string shown(std::string_view s) {
  std::string r(s.substr(0, 60));
  for (auto& c : r)
    if (!std::isprint(static_cast<unsigned char>(c))) c = '?';
  return "'" + r + (s.size() > 60 ? "...'" : "'");
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Where from_chars must start reading the number s: after one optional '+'
// (from_chars takes '-' but not '+'). Null when nothing follows the sign or
// a second sign does ("+-5" is not -5, "++5" is not 5).
static const char* number_start(std::string_view s) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') {
    ++b;
    if (b != e && *b == '-') return nullptr;
  }
  return b == e || *b == '+' ? nullptr : b;
}

bool parse_long_int(std::string_view s, std::int64_t& v) {
  const char* b = number_start(s);
  const char* e = s.data() + s.size();
  if (!b) return false;
  auto r = std::from_chars(b, e, v);
  return r.ec == std::errc() && r.ptr == e;
}

bool parse_real(std::string_view s, double& v, bool& overflow) {
  overflow = false;
  const char* b = number_start(s);
  const char* e = s.data() + s.size();
  if (!b) return false;
  auto r = std::from_chars(b, e, v);
  if (r.ec == std::errc() && r.ptr == e) return true;
  // Out of range, or a form from_chars does not take (hexadecimal floats):
  // strtod decides, and only an overflow to infinity is refused. A value
  // below the normal range reads as the denormal (or zero) nearest to it.
  std::string tmp(s);
  char* end = nullptr;
  errno = 0;
  v = std::strtod(tmp.c_str(), &end);
  if (end != tmp.c_str() + tmp.size() || tmp.empty()) return false;
  if (errno == ERANGE && std::isinf(v)) {
    overflow = true;
    return false;
  }
  return true;
}

}  // namespace tessera::graph::detail
