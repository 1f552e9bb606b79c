#pragma once
// The command line of every Tessera program: the CLIs (tessera-graph,
// tessera-solve, tessera-minitri, tessera-dist), tessera-demo and the
// benchmarks. One parser (CLI11) and one set of rules:
//
//  - the --tessera-* runtime flags are taken out of argv first, by
//    tessera::parse_flags (what tessera::initialize(argc, argv) does), so
//    every program accepts them; the program initializes with settings()
//    once its own options are read;
//  - --help prints the program's options, then the runtime flags, on stdout
//    and exits 0;
//  - a usage error (an unknown option, a value that is not a number or lies
//    outside its range, a missing argument, a malformed runtime flag) prints
//    "<program>: <flag>: <problem with the value>" and a pointer to --help on
//    stderr, and the program exits with status 2 (usage_exit_code).
//
// Typical use:
//
//   tessera::tools::Command cmd("tessera-solve", "Factors and solves A x = b.");
//   int repeat = 1;
//   cmd.app().add_option("--repeat", repeat, "factorize R times")->check(tessera::tools::integer(1,
//   1000000)); if (auto status = cmd.parse(argc, argv)) return *status;   // --help, or a usage error
//   tessera::ScopeGuard guard(cmd.settings());
#include <tessera/core/initialize.hpp>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace tessera::tools {

// The exit status of every usage error (bad options, bad arguments).
inline constexpr int usage_exit_code = 2;

// A usage problem found after parsing (options that do not go together, a
// malformed generator spec): the program reports it as cmd.fail(e.what()).
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The whole of `text` as an integer, or nothing.
inline std::optional<long long> to_integer(const std::string& text) {
  long long v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data() + (!text.empty() && text[0] == '+'), end, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

// The whole of `text` as a finite real number, or nothing.
inline std::optional<double> to_real(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

inline std::string range_text(long long lo, long long hi) {
  if (hi == std::numeric_limits<long long>::max()) return ">= " + std::to_string(lo);
  return "in " + std::to_string(lo) + ".." + std::to_string(hi);
}

// An integer option in lo..hi: "'x' is not an integer", "0 is not in 1..1000".
// CLI11 puts the flag in front of the message.
inline CLI::Validator integer(long long lo, long long hi = std::numeric_limits<long long>::max()) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const auto v = to_integer(text);
        if (!v) return "'" + text + "' is not an integer";
        if (*v < lo || *v > hi) return text + " is not " + range_text(lo, hi);
        return {};
      },
      hi == std::numeric_limits<long long>::max() ? ">= " + std::to_string(lo)
                                                  : std::to_string(lo) + ".." + std::to_string(hi));
}

// A real option in [lo, hi] (or (lo, hi] when lo_open): "'abc' is not a number",
// "-1 is not > 0".
inline CLI::Validator real(double lo, double hi = std::numeric_limits<double>::max(), bool lo_open = false) {
  char lo_text[32], hi_text[32];
  std::snprintf(lo_text, sizeof lo_text, "%g", lo);
  std::snprintf(hi_text, sizeof hi_text, "%g", hi);
  const std::string range = hi == std::numeric_limits<double>::max()
                                ? std::string(lo_open ? "> " : ">= ") + lo_text
                                : std::string("in ") + (lo_open ? "(" : "[") + lo_text + ", " + hi_text + "]";
  return CLI::Validator(
      [lo, hi, lo_open, range](std::string& text) -> std::string {
        const auto v = to_real(text);
        if (!v) return "'" + text + "' is not a number";
        if (*v < lo || (lo_open && *v == lo) || *v > hi) return text + " is not " + range;
        return {};
      },
      range.substr(range.rfind("in ", 0) == 0 ? 3 : 0));
}

// One of a fixed set of words: "'fast' is not one of direct, tasks, data".
inline CLI::Validator one_of(std::vector<std::string> words) {
  std::string list;
  for (const auto& w : words) list += (list.empty() ? "" : ", ") + w;
  return CLI::Validator(
      [words, list](std::string& text) -> std::string {
        for (const auto& w : words)
          if (text == w) return {};
        return "'" + text + "' is not one of " + list;
      },
      "{" + list + "}");
}

// A program's command line: its CLI11 App, the runtime settings taken from
// the --tessera-* flags, and the reporting of usage errors.
class Command {
 public:
  Command(std::string program, std::string description)
      : m_app(std::move(description), program), m_program(program) {
    m_app.footer(tessera::help_text());
    m_app.get_formatter()->column_width(34);
  }
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  CLI::App& app() { return m_app; }
  const std::string& program() const { return m_program; }

  // Under MPI: only one rank prints (the others stay quiet but return the
  // same status).
  void set_quiet(bool quiet) { m_quiet = quiet; }

  // Takes the --tessera-* flags out of argv, then parses the program's own
  // options. Returns nothing when the program should go on, or the status
  // it should exit with: 0 after --help, usage_exit_code after a usage error
  // (already reported).
  std::optional<int> parse(int& argc, char** argv) {
    try {
      m_settings = tessera::parse_flags(argc, argv);
    } catch (const std::invalid_argument& e) {
      std::string what = e.what();
      if (what.rfind("tessera: ", 0) == 0) what.erase(0, 9);
      return fail(what);
    }
    try {
      m_app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      if (!m_quiet) std::fputs(m_app.help().c_str(), stdout);
      return 0;
    } catch (const CLI::ParseError& e) {
      return fail(e.what());
    }
    return std::nullopt;
  }

  // The runtime settings of the --tessera-* flags; a program's own --threads
  // sets num_threads here before it initializes.
  tessera::InitializationSettings& settings() { return m_settings; }

  // Reports a usage error ("<program>: <message>", then where the help is)
  // and returns usage_exit_code.
  int fail(const std::string& message) const {
    if (!m_quiet)
      std::fprintf(stderr, "%s: %s\nRun '%s --help' for the options.\n", m_program.c_str(), message.c_str(),
                   m_program.c_str());
    return usage_exit_code;
  }

 private:
  CLI::App m_app;
  std::string m_program;
  tessera::InitializationSettings m_settings;
  bool m_quiet = false;
};

}  // namespace tessera::tools
