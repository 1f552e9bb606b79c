// Job-file parsing (job_file.hpp): one job per line, '#' comments.
#include <tessera/graph/job_file.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tessera::graph {

namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

struct line_parser {
  const std::string& file;
  std::int64_t line;

  [[noreturn]] void fail(const std::string& problem) const { throw io_error(file, line, problem); }

  std::int64_t vertex(const std::string& s, const char* what) const {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
      fail(std::string(what) + " '" + s + "' is not a vertex id (an integer >= 0)");
    errno = 0;
    const long long x = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == ERANGE) fail(std::string(what) + " '" + s + "' is too large");
    return std::int64_t(x);
  }

  double damping(const std::string& s) const {
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(d)) fail("damping '" + s + "' is not a number");
    if (!(d >= 0.0 && d < 1.0)) fail("damping '" + s + "' is outside [0, 1)");
    return d;
  }

  void arity(const std::vector<std::string>& w, std::size_t want, const char* form) const {
    if (w.size() != want)
      fail("'" + w[0] + "' takes " + std::to_string(want - 1) + " argument" + (want == 2 ? "" : "s") + " (" + form + "), got " +
           std::to_string(w.size() - 1));
  }

  graph_job job(const std::vector<std::string>& w) const {
    const std::string& k = w[0];
    if (k == "bfs" || k == "sssp") {
      arity(w, 2, k == "bfs" ? "bfs SOURCE" : "sssp SOURCE");
      return k == "bfs" ? graph_job::bfs(vertex(w[1], "source")) : graph_job::sssp(vertex(w[1], "source"));
    }
    if (k == "jaccard") {
      arity(w, 3, "jaccard U V");
      return graph_job::jaccard(vertex(w[1], "vertex"), vertex(w[2], "vertex"));
    }
    if (k == "pagerank") {
      if (w.size() != 2 && w.size() != 4)
        fail("pagerank takes a damping factor, optionally followed by 'personalize V,V,...', got " + std::to_string(w.size() - 1) +
             " arguments");
      const double d = damping(w[1]);
      std::vector<std::int64_t> set;
      if (w.size() == 4) {
        if (w[2] != "personalize") fail("expected 'personalize' after the damping factor, got '" + w[2] + "'");
        std::string item;
        std::istringstream list(w[3]);
        while (std::getline(list, item, ',')) set.push_back(vertex(item, "personalization vertex"));
        if (set.empty() || w[3].back() == ',') fail("personalization list '" + w[3] + "' has an empty entry");
      }
      return graph_job::pagerank(d, std::move(set));
    }
    fail("unknown job '" + k + "' (known: bfs, sssp, pagerank, jaccard)");
  }
};

}  // namespace

std::vector<graph_job> parse_jobs(const std::string& text, const std::string& name) {
  std::vector<graph_job> jobs;
  std::istringstream in(text);
  std::int64_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const auto w = words_of(line);
    if (w.empty()) continue;
    graph_job j = line_parser{name, number}.job(w);
    j.origin = name + ":" + std::to_string(number);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

std::vector<graph_job> read_job_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw io_error(path, 0, "cannot open the job file");
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) throw io_error(path, 0, "cannot read the job file");
  return parse_jobs(s.str(), path);
}

}  // namespace tessera::graph
