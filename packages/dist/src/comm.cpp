#include <tessera/dist/comm.hpp>

#include <climits>
#include <cstdio>

namespace tessera::dist {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char words[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, words, &length) != MPI_SUCCESS) std::snprintf(words, sizeof words, "MPI error %d", rc);
  int rank = -1, initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw mpi_error("rank " + std::to_string(rank) + ": " + call + " failed: " + words);
}

namespace detail {
std::string allocation_failure(std::size_t elements, std::size_t element_bytes, const char* what) {
  char size[64];
  std::snprintf(size, sizeof size, "%.1f GB", double(elements) * double(element_bytes) * 1e-9);
  return std::string("cannot allocate ") + size + " (" + std::to_string(elements) + " elements of " +
         std::to_string(element_bytes) + " bytes) for " + what + "; use more ranks or a smaller problem";
}
}  // namespace detail

Environment::Environment(int& argc, char**& argv) {
  int initialized = 0;
  check_mpi(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized) {
    check_mpi(MPI_Query_thread(&m_provided), "MPI_Query_thread");
  } else {
    check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &m_provided), "MPI_Init_thread");
    m_owner = true;
  }
  // Errors come back as codes (turned into dist_error), not an abort inside
  // the library that would skip the agreement.
  check_mpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  if (m_provided < MPI_THREAD_FUNNELED)
    throw dist_error("tessera::dist: the MPI library gives thread level " + std::to_string(m_provided) +
                     ", below MPI_THREAD_FUNNELED: the node-level back-ends cannot run threads inside a rank");
}

Environment::~Environment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (m_owner && !finalized) MPI_Finalize();  // a destructor cannot throw: the code is not checked
}

Comm::Comm(MPI_Comm c) : m_comm(c), m_volume(std::make_shared<CommVolume>()) {
  check_mpi(MPI_Comm_rank(m_comm, &m_rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(m_comm, &m_size), "MPI_Comm_size");
}

void Comm::barrier() const {
  timed([&] { check_mpi(MPI_Barrier(m_comm), "MPI_Barrier"); }, 0, 0);
}

int Comm::count_of(std::size_t n) {
  if (n > std::size_t(INT_MAX))
    throw dist_error("tessera::dist: a message of " + std::to_string(n) +
                     " elements exceeds MPI's int count; use more ranks");
  return int(n);
}

std::string Comm::broadcast(const std::string& s, int root) const {
  const std::int64_t n = broadcast<std::int64_t>(std::int64_t(s.size()), root);
  const int count = count_of(std::size_t(n));  // the same n everywhere: all ranks throw or none
  std::string out = m_rank == root ? s : std::string(std::size_t(n), '\0');
  timed([&] { check_mpi(MPI_Bcast(out.data(), count, MPI_CHAR, root, m_comm), "MPI_Bcast"); }, 0, n);
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
