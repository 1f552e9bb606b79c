// Non-template pieces of the Cholesky solver: names and the level sets of
// the assembly tree.
#include <tessera/sparse/cholesky.hpp>

namespace tessera::sparse {

const char* to_string(Scheduler s) { return s == Scheduler::Tasks ? "tasks" : "levelset"; }
const char* to_string(Factorization f) { return f == Factorization::Cholesky ? "cholesky" : "ldlt"; }

Scheduler parse_scheduler(const std::string& w) {
  if (w == "tasks") return Scheduler::Tasks;
  if (w == "levelset") return Scheduler::LevelSet;
  throw sparse_error("unknown scheduler '" + w + "' (expected tasks or levelset)");
}

namespace detail {

// Level of a supernode = its height above the leaves (leaves 0), so that a
// level's supernodes depend only on lower levels.
std::vector<std::vector<std::int64_t>> assembly_tree_levels(const SymbolicFactor& f) {
  std::vector<std::int64_t> height(f.nsuper, 0);
  std::int64_t top = -1;
  for (std::int64_t s = 0; s < f.nsuper; ++s) {  // children before parents
    if (f.sparent[s] != -1) height[f.sparent[s]] = std::max(height[f.sparent[s]], height[s] + 1);
    top = std::max(top, height[s]);
  }
  std::vector<std::vector<std::int64_t>> levels(std::size_t(top + 1));
  for (std::int64_t s = 0; s < f.nsuper; ++s) levels[height[s]].push_back(s);
  return levels;
}

}  // namespace detail
}  // namespace tessera::sparse
