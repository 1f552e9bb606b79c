#include <tessera/dist/comm.hpp>

#include <climits>

namespace tessera::dist {

Environment::Environment(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    MPI_Query_thread(&m_provided);
  } else {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &m_provided);
    m_owner = true;
  }
  // Errors come back as codes (turned into dist_error), not an abort inside
  // the library that would skip the agreement.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (m_provided < MPI_THREAD_FUNNELED)
    throw dist_error("tessera::dist: the MPI library gives thread level " + std::to_string(m_provided) +
                     ", below MPI_THREAD_FUNNELED: the node-level back-ends cannot run threads inside a rank");
}

Environment::~Environment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (m_owner && !finalized) MPI_Finalize();
}

Comm::Comm(MPI_Comm c) : m_comm(c), m_volume(std::make_shared<CommVolume>()) {
  MPI_Comm_rank(m_comm, &m_rank);
  MPI_Comm_size(m_comm, &m_size);
}

void Comm::barrier() const {
  timed([&] { MPI_Barrier(m_comm); }, 0, 0);
}

int Comm::count_of(std::size_t n) {
  if (n > std::size_t(INT_MAX))
    throw dist_error("tessera::dist: a message of " + std::to_string(n) +
                     " elements exceeds MPI's int count; use more ranks");
  return int(n);
}

std::string Comm::broadcast(const std::string& s, int root) const {
  std::int64_t n = broadcast<std::int64_t>(std::int64_t(s.size()), root);
  std::string out = m_rank == root ? s : std::string(std::size_t(n), '\0');
  timed([&] { MPI_Bcast(out.data(), count_of(std::size_t(n)), MPI_CHAR, root, m_comm); }, 0, n);
  return out;
}

void Comm::agree(const std::string& local_error) const {
  // Lowest failing rank (size when none) and how many failed.
  const int mine = local_error.empty() ? m_size : m_rank;
  const int first = min(mine);
  if (first == m_size) return;
  const int failing = sum(local_error.empty() ? 0 : 1);
  const std::string msg = broadcast(local_error, first);
  throw dist_error("rank " + std::to_string(first) + (failing > 1 ? " (and " + std::to_string(failing - 1) + " more)" : "") +
                   ": " + msg);
}

}  // namespace tessera::dist
