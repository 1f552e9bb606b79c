#include <tessera/dist/sparse/halo_plan.hpp>

#include <climits>
#include <string>

namespace tessera::dist {

HaloPlan::HaloPlan(const Comm& comm, const Partition& rows, const std::vector<std::int64_t>& ghosts) {
  const int P = comm.size(), me = comm.rank();
  // Group the ghosts by owner (contiguous since they are sorted), and ask
  // each owner for its segment. A bad ghost list is this rank's error,
  // agreed on in the exchange below (it asks for nothing).
  std::string err;
  std::vector<std::int64_t> ask_offsets(std::size_t(P) + 1, 0);
  for (std::size_t g = 0; g < ghosts.size() && err.empty(); ++g) {
    if (g > 0 && ghosts[g] <= ghosts[g - 1])
      err = "tessera::dist::HaloPlan: ghost indices must increase (index " + std::to_string(g) + ")";
    else if (rows.owner(ghosts[g]) == me)
      err = "tessera::dist::HaloPlan: ghost " + std::to_string(ghosts[g]) + " is owned here";
    else
      ++ask_offsets[std::size_t(rows.owner(ghosts[g])) + 1];
  }
  for (int q = 0; q < P; ++q) ask_offsets[std::size_t(q) + 1] += ask_offsets[std::size_t(q)];
  // Each segment travels as one message of up to 16 bytes an entry: the
  // receiver checks it here, so the sender (who sends the same segment)
  // never meets a count that does not fit.
  for (int q = 0; q < P && err.empty(); ++q) {
    const auto n = ask_offsets[std::size_t(q) + 1] - ask_offsets[std::size_t(q)];
    if (std::size_t(n) * 16 > std::size_t(INT_MAX))
      err = "tessera::dist::HaloPlan: " + std::to_string(n) + " ghosts owned by rank " + std::to_string(q) +
            " exceed MPI's int count in one message; use more ranks";
    else if (n > 0) {
      m_recv_ranks.push_back(q);
      m_recv_offsets.push_back(ask_offsets[std::size_t(q) + 1]);
    }
  }
  if (!err.empty()) ask_offsets.assign(std::size_t(P) + 1, 0);
  std::vector<std::int64_t> asked_offsets;
  const std::vector<std::int64_t> asked =
      comm.alltoallv(err.empty() ? ghosts : std::vector<std::int64_t>(), ask_offsets, &asked_offsets, err);
  const std::int64_t first = rows.begin(me);
  for (int q = 0; q < P; ++q) {
    const auto b = asked_offsets[std::size_t(q)], e = asked_offsets[std::size_t(q) + 1];
    if (e == b) continue;
    m_send_ranks.push_back(q);
    for (auto k = b; k < e; ++k) m_send_indices.push_back(std::int32_t(asked[std::size_t(k)] - first));
    m_send_offsets.push_back(std::int64_t(m_send_indices.size()));
  }
}

void HaloPlan::post(const Comm& comm, void* packed, void* ghosts, std::size_t elem, bool reverse,
                    CommVolume& volume) const {
  const double t0 = MPI_Wtime();
  m_requests.assign(m_recv_ranks.size() + m_send_ranks.size(), MPI_REQUEST_NULL);
  auto* g = static_cast<char*>(ghosts);
  auto* s = static_cast<char*>(packed);
  std::size_t r = 0;
  std::int64_t to_ghosts = 0, to_packed = 0;
  // Receives first, so that a message never waits for its buffer.
  for (std::size_t k = 0; k < m_recv_ranks.size(); ++k) {
    const auto b = m_recv_offsets[k], n = m_recv_offsets[k + 1] - b;
    const int bytes = Comm::count_of(std::size_t(n) * elem);
    to_ghosts += bytes;
    if (reverse)
      check_mpi(MPI_Isend(g + b * std::int64_t(elem), bytes, MPI_BYTE, m_recv_ranks[k], tag, comm.raw(), &m_requests[r++]),
                "MPI_Isend");
    else
      check_mpi(MPI_Irecv(g + b * std::int64_t(elem), bytes, MPI_BYTE, m_recv_ranks[k], tag, comm.raw(), &m_requests[r++]),
                "MPI_Irecv");
  }
  for (std::size_t k = 0; k < m_send_ranks.size(); ++k) {
    const auto b = m_send_offsets[k], n = m_send_offsets[k + 1] - b;
    const int bytes = Comm::count_of(std::size_t(n) * elem);
    to_packed += bytes;
    if (reverse)
      check_mpi(MPI_Irecv(s + b * std::int64_t(elem), bytes, MPI_BYTE, m_send_ranks[k], tag, comm.raw(), &m_requests[r++]),
                "MPI_Irecv");
    else
      check_mpi(MPI_Isend(s + b * std::int64_t(elem), bytes, MPI_BYTE, m_send_ranks[k], tag, comm.raw(), &m_requests[r++]),
                "MPI_Isend");
  }
  volume.bytes_sent += reverse ? to_ghosts : to_packed;
  volume.bytes_received += reverse ? to_packed : to_ghosts;
  ++volume.calls;
  volume.seconds += MPI_Wtime() - t0;
}

void HaloPlan::finish(CommVolume& volume) const {
  const double t0 = MPI_Wtime();
  const int rc = MPI_Waitall(int(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE);
  volume.seconds += MPI_Wtime() - t0;
  check_mpi(rc, "MPI_Waitall (the halo exchange)");
}

}  // namespace tessera::dist
