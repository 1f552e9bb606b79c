#pragma once
// Progress of a CLI's phases (reading, building, factorizing, ...) on
// stderr, the same way in every Tessera CLI:
//
//  - only phases that last longer than a second (the threshold; the
//    environment variable TESSERA_PROGRESS_SECONDS sets another, 0 shows
//    every phase) show;
//  - on a terminal the current phase is one line redrawn in place ("\r"),
//    with its share done when the phase reports one, ended by a newline;
//  - otherwise (a log file, a pipe) nothing is redrawn: one line per phase,
//    written when the phase ends ("tessera-solve: factorizing: 3.2 s"), so
//    that logs hold no carriage returns.
//
//   tessera::tools::Progress progress("tessera-solve");
//   progress.phase("analyzing");            // ends the phase before
//   ...
//   progress.phase("factorizing");
//   progress.update(done, total);           // optional: the share done
//   progress.end();                         // or the destructor
//
// Progress::callback is the graph readers' and builders' progress_callback
// (user: the Progress), which names its own phases.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace tessera::tools {

class Progress {
 public:
  // terminal: whether `out` is a terminal (asked of the system by default);
  // threshold_seconds: how long a phase lasts before it shows (negative:
  // TESSERA_PROGRESS_SECONDS, else 1); quiet: show nothing at all (an MPI
  // rank other than 0).
  explicit Progress(std::string program, std::FILE* out = stderr, std::optional<bool> terminal = std::nullopt,
                    double threshold_seconds = -1, bool quiet = false)
      : m_program(std::move(program)),
        m_out(out),
        m_terminal(terminal ? *terminal : ::isatty(::fileno(out)) == 1),
        m_threshold(threshold_seconds >= 0 ? threshold_seconds : default_threshold()),
        m_quiet(quiet) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() {
    end();
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    if (m_ticker.joinable()) m_ticker.join();
  }

  bool terminal() const { return m_terminal; }

  // Starts phase `name`, ending the one before (if another).
  void phase(const std::string& name) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_active && name == m_phase) return;
    finish_locked();
    m_active = true;
    m_phase = name;
    m_done = m_total = 0;
    m_start = clock::now();
    m_drawn = false;
    if (m_terminal && !m_quiet && !m_ticker.joinable()) m_ticker = std::thread([this] { tick(); });
  }

  // The current phase's share done (done of total); starts `name` first when
  // it is another phase.
  void update(const std::string& name, std::int64_t done, std::int64_t total) {
    phase(name);
    update(done, total);
  }
  void update(std::int64_t done, std::int64_t total) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_done = done;
    m_total = total;
    if (m_terminal && elapsed_locked() >= m_threshold) draw_locked();
  }

  // Ends the current phase: its last line (a newline on a terminal, the one
  // line otherwise) if it lasted longer than the threshold.
  void end() {
    std::lock_guard<std::mutex> lock(m_mutex);
    finish_locked();
  }

  // graph::progress_callback: user is the Progress.
  static void callback(const char* phase, std::int64_t done, std::int64_t total, void* user) {
    static_cast<Progress*>(user)->update(phase, done, total);
  }

 private:
  using clock = std::chrono::steady_clock;

  static double default_threshold() {
    if (const char* env = std::getenv("TESSERA_PROGRESS_SECONDS"); env && *env) {
      char* end = nullptr;
      const double v = std::strtod(env, &end);
      if (*end == '\0' && v >= 0) return v;
    }
    return 1.0;
  }

  double elapsed_locked() const { return std::chrono::duration<double>(clock::now() - m_start).count(); }

  std::string line_locked() const {
    char buf[64];
    if (m_total > 0)
      std::snprintf(buf, sizeof buf, " %5.1f%% (%.1f s)", 100.0 * double(m_done) / double(m_total),
                    elapsed_locked());
    else
      std::snprintf(buf, sizeof buf, " (%.1f s)", elapsed_locked());
    return m_program + ": " + m_phase + buf;
  }

  void draw_locked() {
    if (m_quiet) return;
    std::fprintf(m_out, "\r%s\033[K", line_locked().c_str());
    std::fflush(m_out);
    m_drawn = true;
  }

  void finish_locked() {
    if (!m_active) return;
    m_active = false;
    if (m_quiet || elapsed_locked() < m_threshold) {
      if (m_drawn) std::fputc('\n', m_out);
      return;
    }
    if (m_total > 0) m_done = m_total;
    if (m_terminal) {
      draw_locked();
      std::fputc('\n', m_out);
    } else {
      std::fprintf(m_out, "%s\n", line_locked().c_str());
    }
    std::fflush(m_out);
  }

  // On a terminal: redraws a phase that reports nothing itself, so that a
  // long analysis or factorization still shows its time.
  void tick() {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_stop) {
      m_wake.wait_for(lock, std::chrono::milliseconds(250));
      if (!m_stop && m_active && elapsed_locked() >= m_threshold) draw_locked();
    }
  }

  std::string m_program;
  std::FILE* m_out;
  bool m_terminal;
  double m_threshold;
  bool m_quiet;

  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::thread m_ticker;
  bool m_stop = false;
  bool m_active = false, m_drawn = false;
  std::string m_phase;
  std::int64_t m_done = 0, m_total = 0;
  clock::time_point m_start{};
};

}  // namespace tessera::tools
