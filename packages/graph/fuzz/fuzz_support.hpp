#pragma once
// Shared pieces of the graph reader fuzzers (libFuzzer, see the "Fuzzing"
// section of packages/graph/docs/README.md).
//
// The readers take a path, so each input becomes a file: an anonymous
// memory file (memfd) reached through /proc/self/fd/N, rewritten for every
// input. Nothing touches the disk and the file can be memory-mapped like a
// real one, so the readers run exactly their normal code path.
//
// What counts as a finding (the harness aborts, libFuzzer keeps the input):
//   - any exception other than graph::io_error, or an io_error whose message
//     does not start with "<file>:<line>: ";
//   - a result whose arrays disagree (sizes, ids outside [0, n));
//   - a text reader whose result (or error message) depends on the chunk
//     size: the parallel pass must give what the sequential one gives;
//   - a text file the reader accepts that the reference reader
//     (fuzz_reference.hpp) refuses or reads differently;
//   - and, through the sanitizers and libFuzzer's limits, any crash, ASan or
//     UBSan report, allocation above -malloc_limit_mb, or hang.
#include <tessera/core.hpp>
#include <tessera/graph/io.hpp>

#include "fuzz_reference.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera_fuzz {

namespace tg = tessera::graph;

// The runtime, started once for the whole fuzzing process.
inline void start_runtime() {
  static const bool started = [] {
    tessera::initialize();
    return true;
  }();
  (void)started;
}

// One memory file per process, holding the current input.
class input_file {
 public:
  input_file() {
    m_fd = ::memfd_create("tessera_fuzz_input", MFD_CLOEXEC);
    if (m_fd < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    m_path = "/proc/self/fd/" + std::to_string(m_fd);
  }
  // Replaces the file's bytes with [data, data + size) and returns its path.
  const std::string& hold(const std::uint8_t* data, std::size_t size) {
    if (::ftruncate(m_fd, 0) != 0) fail("ftruncate");
    std::size_t done = 0;
    while (done < size) {
      const ssize_t w = ::pwrite(m_fd, data + done, size - done, off_t(done));
      if (w <= 0) fail("pwrite");
      done += std::size_t(w);
    }
    return m_path;
  }
  const std::string& path() const { return m_path; }
  // The file every input goes to (one per process).
  static input_file& instance() {
    static input_file f;
    return f;
  }

 private:
  [[noreturn]] static void fail(const char* what) {
    std::perror(what);
    std::abort();
  }
  int m_fd = -1;
  std::string m_path;
};

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "\n==tessera-fuzz== FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// An io_error must name the file and a line before its problem.
inline void check_message(const tg::io_error& e, const std::string& path) {
  const std::string msg = e.what();
  const std::string prefix = path + ":" + std::to_string(e.line()) + ": ";
  if (msg.rfind(prefix, 0) != 0 || e.problem().empty() || e.line() < 0)
    finding("io_error message does not start with '" + prefix + "' and a problem: " + msg);
}

// An edge list that a reader returned: arrays of one length, ids in range.
inline void check_edge_list(const tg::edge_list& el) {
  if (el.src.size() != el.dst.size()) finding("src and dst lengths differ");
  if (!el.weights.empty() && el.weights.size() != el.src.size()) finding("weights length differs from src");
  if (el.num_vertices < 0) finding("negative vertex count");
  for (std::size_t i = 0; i < el.src.size(); ++i)
    if (el.src[i] < 0 || el.src[i] >= el.num_vertices || el.dst[i] < 0 || el.dst[i] >= el.num_vertices)
      finding("edge " + std::to_string(i) + " (" + std::to_string(el.src[i]) + ", " +
              std::to_string(el.dst[i]) + ") outside [0, " + std::to_string(el.num_vertices) + ")");
}

// What one text read gave: the edges, or the error message.
struct text_outcome {
  bool ok = false;
  std::string error;
  tg::edge_list el;
};

template <class Reader>
text_outcome read_text(Reader reader, const std::string& path, std::int64_t chunk_bytes) {
  tg::read_options opts;
  opts.chunk_bytes = chunk_bytes;
  text_outcome r;
  try {
    r.el = reader(path, opts);
    r.ok = true;
    check_edge_list(r.el);
  } catch (const tg::io_error& e) {
    check_message(e, path);
    r.error = e.what();
  }
  return r;
}

// NaN weights compare by their bits: the same text must give the same bits.
inline bool same_weights(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i]) && !(a[i] != a[i] && b[i] != b[i])) return false;
  return true;
}

// Reads the file sequentially (one chunk) and in tiny chunks (many chunks,
// lines cut across chunk ends): both must give the same edges or the same
// error. Returns what the sequential read gave.
template <class Reader>
text_outcome read_text_both_ways(Reader reader, const std::string& path, std::int64_t small_chunk) {
  const text_outcome whole = read_text(reader, path, std::int64_t(1) << 40);
  const text_outcome parts = read_text(reader, path, small_chunk);
  if (whole.ok != parts.ok || whole.error != parts.error)
    finding("one chunk and " + std::to_string(small_chunk) + "-byte chunks disagree: '" +
            (whole.ok ? "(read)" : whole.error) + "' vs '" + (parts.ok ? "(read)" : parts.error) + "'");
  if (whole.ok && (whole.el.num_vertices != parts.el.num_vertices || whole.el.src != parts.el.src ||
                   whole.el.dst != parts.el.dst || !same_weights(whole.el.weights, parts.el.weights)))
    finding("one chunk and " + std::to_string(small_chunk) + "-byte chunks give different edges");
  return whole;
}

// A file the reader accepted must be one the reference reader (fuzz_reference.hpp)
// accepts, with the same vertices, edges in file order and values; a file
// the reference reads into at most 2^20 vertices must be read.
inline void check_against_reference(const text_outcome& read, const reference::result& ref) {
  if (!read.ok) {
    if (ref.ok && ref.num_vertices <= (std::int64_t(1) << 20))
      finding("the reader refused a file the reference reads: " + read.error);
    return;
  }
  if (!ref.ok) finding("the reader accepted a file the reference refuses (" + ref.why + ")");
  const tg::edge_list& el = read.el;
  if (el.num_vertices != ref.num_vertices)
    finding("vertex count " + std::to_string(el.num_vertices) + ", the reference finds " +
            std::to_string(ref.num_vertices));
  if (el.src != ref.src || el.dst != ref.dst) finding("edges differ from the reference's");
  // (An empty list has no weights to hold, weighted file or not.)
  if ((!ref.src.empty() && el.has_weights() != ref.weighted) || !same_weights(el.weights, ref.weights))
    finding("weights differ from the reference's");
  if (el.symmetric != ref.symmetric) finding("symmetric flag differs from the reference's");
}

}  // namespace tessera_fuzz
