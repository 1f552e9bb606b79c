#pragma once
// The halo import plan of a row-distributed matrix: which owned entries of x
// each rank sends to which neighbour, and where the values it receives land
// among its ghosts. Built once from the ghost lists (one alltoallv of the
// global indices each rank needs), then used by every SpMV and by the
// overlapping Schwarz preconditioner, with point-to-point Isend/Irecv so that
// the interior product runs while the messages travel.
//
// Ghosts are numbered in increasing global index. Since a Partition gives
// each rank a contiguous range, the ghosts owned by one rank are one
// contiguous segment of them: a neighbour's message lands in place, with no
// unpacking.
#include <tessera/dist/comm.hpp>
#include <tessera/dist/partition.hpp>

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::dist {

class HaloPlan {
 public:
  HaloPlan() = default;
  // Collective over comm. ghosts: the global indices this rank needs from
  // other ranks, strictly increasing, none of them its own.
  HaloPlan(const Comm& comm, const Partition& rows, const std::vector<std::int64_t>& ghosts);

  // Neighbours this rank receives from, and the segment of the ghost array
  // each one fills: ghosts [recv_offsets[k], recv_offsets[k+1]) come from
  // recv_ranks[k].
  const std::vector<int>& recv_ranks() const noexcept { return m_recv_ranks; }
  const std::vector<std::int64_t>& recv_offsets() const noexcept { return m_recv_offsets; }
  // Neighbours this rank sends to: send_ranks[k] gets the owned entries
  // send_indices[send_offsets[k] .. send_offsets[k+1]) (local row numbers).
  const std::vector<int>& send_ranks() const noexcept { return m_send_ranks; }
  const std::vector<std::int64_t>& send_offsets() const noexcept { return m_send_offsets; }
  const std::vector<std::int32_t>& send_indices() const noexcept { return m_send_indices; }
  std::int64_t num_ghosts() const noexcept { return m_recv_offsets.empty() ? 0 : m_recv_offsets.back(); }
  std::int64_t num_sends() const noexcept { return std::int64_t(m_send_indices.size()); }

  // One exchange in flight. start() posts the receives into ghosts (size
  // num_ghosts()) and the sends from packed (size num_sends(), already
  // filled in send_indices order); finish() waits for all of them. Both
  // count into `volume` (bytes of the messages, MPI time; not the work done
  // between them). reverse = true runs the plan backwards: packed (size
  // num_sends()) receives what the neighbours send from their ghosts.
  template <class T>
  void start(const Comm& comm, const T* packed, T* ghosts, CommVolume& volume) const {
    post(comm, const_cast<T*>(packed), ghosts, sizeof(T), false, volume);
  }
  template <class T>
  void start_reverse(const Comm& comm, const T* ghosts, T* packed, CommVolume& volume) const {
    post(comm, packed, const_cast<T*>(ghosts), sizeof(T), true, volume);
  }
  void finish(CommVolume& volume) const;

  // The tag of the halo messages (MPI keeps messages of one tag, source and
  // communicator in order, and a plan has at most one exchange in flight).
  static constexpr int tag = 7301;

 private:
  void post(const Comm& comm, void* packed, void* ghosts, std::size_t elem, bool reverse, CommVolume& volume) const;

  std::vector<int> m_recv_ranks, m_send_ranks;
  std::vector<std::int64_t> m_recv_offsets{0}, m_send_offsets{0};
  std::vector<std::int32_t> m_send_indices;
  mutable std::vector<MPI_Request> m_requests;
};

}  // namespace tessera::dist
