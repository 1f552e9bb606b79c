// dist_fault_injection <case> <bad rank> [file]: one rank fails in the middle
// of a collective step, and every rank must end with the same error (ranks
// fail together), never wait in a collective for the failed one. Run under
// mpiexec by the dist_fault_* ctests (2 and 4 ranks, each with a time limit).
//
//   bad-size   the bad rank passes update_ghosts a vector one entry short
//   bad-file   the bad rank reads a file that is not there (a node without
//              the data), the others read `file`
//   alloc      the bad rank's address space is capped just above its use, and
//              every other rank sends it 16 MB in one alltoallv: its receive
//              buffer cannot be allocated
//   kill       the bad rank is killed (SIGKILL) after the first collective;
//              the others go on to the next: mpiexec must end the job and exit
//              nonzero
//
// Every rank that catches the error prints
//   dist_fault_injection: rank <r> caught: <message>
// on stderr and exits 1; a rank that finishes without an error exits 0.
#include <tessera/core.hpp>
#include <tessera/dist.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace td = tessera::dist;

namespace {

// This process's virtual size in bytes (/proc/self/statm, in pages).
std::size_t virtual_bytes() {
  std::ifstream in("/proc/self/statm");
  std::size_t pages = 0;
  in >> pages;
  return pages * std::size_t(sysconf(_SC_PAGESIZE));
}

int run(const td::Comm& comm, const std::string& which, int bad, const std::string& file) {
  const bool me_bad = comm.rank() == bad;
  if (which == "bad-size") {
    const td::DistGraph g(comm, td::kronecker(comm, 8, 8, 1));
    std::vector<double> values(std::size_t(g.num_local() - (me_bad ? 1 : 0)), 1.0);
    g.update_ghosts(values);
  } else if (which == "bad-file") {
    const std::string path = me_bad ? file + ".missing-on-this-rank" : file;
    const td::DistGraph g(comm, td::read_edge_list(comm, path));
    std::printf("rank %d: %lld vertices\n", comm.rank(), (long long)g.num_vertices());
  } else if (which == "alloc") {
    constexpr std::size_t mb16 = std::size_t(1) << 21;  // int64s in 16 MB
    std::vector<std::int64_t> send;
    std::vector<std::int64_t> offsets(std::size_t(comm.size()) + 1, 0);
    if (!me_bad) send.assign(mb16, comm.rank());
    for (int r = 0; r < comm.size(); ++r)
      offsets[std::size_t(r) + 1] = offsets[std::size_t(r)] + (r == bad ? std::int64_t(send.size()) : 0);
    comm.barrier();
    if (me_bad) {
      const rlim_t cap = virtual_bytes() + (std::size_t(8) << 20);  // 8 MB of room
      const rlimit limit{cap, cap};
      if (setrlimit(RLIMIT_AS, &limit) != 0) std::perror("setrlimit");
    }
    const auto got = comm.alltoallv(send, offsets);
    std::printf("rank %d: received %zu\n", comm.rank(), got.size());
  } else if (which == "kill") {
    comm.barrier();
    if (me_bad) std::raise(SIGKILL);
    comm.barrier();
    comm.barrier();
  } else {
    std::fprintf(stderr, "dist_fault_injection: unknown case '%s' (bad-size, bad-file, alloc, kill)\n", which.c_str());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  td::Environment mpi(argc, argv);
  tessera::ScopeGuard guard(argc, argv);
  const td::Comm world;
  if (argc < 3) {
    if (world.rank() == 0) std::fprintf(stderr, "usage: dist_fault_injection <case> <bad rank> [file]\n");
    return 2;
  }
  try {
    return run(world, argv[1], std::atoi(argv[2]), argc > 3 ? argv[3] : "");
  } catch (const td::dist_error& e) {
    std::fprintf(stderr, "dist_fault_injection: rank %d caught: %s\n", world.rank(), e.what());
    return 1;
  }
}
