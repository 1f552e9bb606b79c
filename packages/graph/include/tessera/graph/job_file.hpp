#pragma once
// Job files: a job set as text, one job per line (graph_jobs.hpp runs it).
//
//   # comments run from '#' to the end of the line; blank lines are skipped
//   bfs 17                         breadth-first search from vertex 17
//   sssp 3                         shortest paths from vertex 3 (the graph's weights, or 1)
//   pagerank 0.85                  PageRank with damping 0.85
//   pagerank 0.9 personalize 1,5,9 ... teleporting to vertices 1, 5 and 9 only
//   jaccard 3 7                    Jaccard similarity of the neighbour sets of 3 and 7
//
// A bad line is an io_error "<file>:<line>: <problem>" quoting the token at
// fault; each job remembers "<file>:<line>" (graph_job::origin), so a vertex
// outside the graph, found when the set runs, names its line too.
#include <tessera/graph/graph_jobs.hpp>
#include <tessera/graph/io.hpp>

#include <string>
#include <vector>

namespace tessera::graph {

// Parses job-file text; `name` is the file name used in messages and origins.
std::vector<graph_job> parse_jobs(const std::string& text, const std::string& name);

// Reads and parses a job file (an unreadable file is an io_error at line 0).
std::vector<graph_job> read_job_file(const std::string& path);

}  // namespace tessera::graph
