#pragma once
// The MPI layer every dist algorithm goes through: the process environment
// (MPI initialized with MPI_THREAD_FUNNELED, so the node-level back-ends run
// threads inside each rank while only the calling thread talks to MPI), a
// communicator with typed collectives that count what they move, and the
// rule for errors: one rank's failure becomes the same dist_error on every
// rank at the next agreement point, never a hang in a collective.
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::dist {

// Thrown on every rank, with the same message, when any rank failed.
class dist_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An MPI call returned an error (MPI_ERRORS_RETURN is set on
// MPI_COMM_WORLD). Thrown on the rank whose call failed, naming the rank,
// the call and MPI's error string; it is not agreed with the other ranks
// (the communicator may no longer work), so a program that catches it ends
// the job with MPI_Abort rather than waiting in the next collective.
class mpi_error : public dist_error {
 public:
  using dist_error::dist_error;
};

// Throws mpi_error when rc is not MPI_SUCCESS: "rank r: <call> failed: <MPI's words>".
void check_mpi(int rc, const char* call);

// MPI for the life of the object: initializes it (MPI_THREAD_FUNNELED) unless
// the program already did, and finalizes only what it initialized.
class Environment {
 public:
  Environment(int& argc, char**& argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  int thread_level() const noexcept { return m_provided; }

 private:
  bool m_owner = false;
  int m_provided = 0;
};

// What one rank moved through a Comm's collectives: bytes it sent to other
// ranks, bytes it received, collective calls, and the seconds spent in them.
struct CommVolume {
  std::int64_t bytes_sent = 0;
  std::int64_t bytes_received = 0;
  std::int64_t calls = 0;
  double seconds = 0.0;
};

class Comm {
 public:
  Comm() : Comm(MPI_COMM_WORLD) {}
  explicit Comm(MPI_Comm c);

  int rank() const noexcept { return m_rank; }
  int size() const noexcept { return m_size; }
  MPI_Comm raw() const noexcept { return m_comm; }
  const CommVolume& volume() const noexcept { return *m_volume; }
  void reset_volume() const noexcept { *m_volume = CommVolume(); }

  void barrier() const;

  template <class T>
  T sum(T x) const {
    return reduce(x, MPI_SUM);
  }
  template <class T>
  T max(T x) const {
    return reduce(x, MPI_MAX);
  }
  template <class T>
  T min(T x) const {
    return reduce(x, MPI_MIN);
  }
  // Element-wise sum over ranks, in place (every rank the same length).
  template <class T>
  void sum_in_place(std::vector<T>& v) const {
    static_assert(std::is_arithmetic_v<T>);
    const int n = count_of(v.size());
    timed([&] { check_mpi(MPI_Allreduce(MPI_IN_PLACE, v.data(), n, type_of<T>(), MPI_SUM, m_comm), "MPI_Allreduce"); },
          std::int64_t(v.size() * sizeof(T)), std::int64_t(v.size() * sizeof(T)));
  }
  // Every rank's x, in rank order.
  template <class T>
  std::vector<T> allgather(const T& x) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> all(static_cast<std::size_t>(m_size));
    timed([&] {
      check_mpi(MPI_Allgather(&x, int(sizeof(T)), MPI_BYTE, all.data(), int(sizeof(T)), MPI_BYTE, m_comm),
                "MPI_Allgather");
    },
          std::int64_t(sizeof(T)) * (m_size - 1), std::int64_t(sizeof(T)) * (m_size - 1));
    return all;
  }
  // Every rank's vector, concatenated in rank order; offsets (size + 1) say
  // where each rank's part starts. The sizes are exchanged first; what can
  // fail on one rank (the result's allocation, a part beyond MPI's int
  // count) is agreed on before the data moves.
  template <class T>
  std::vector<T> allgatherv(const std::vector<T>& mine, std::vector<std::int64_t>* offsets = nullptr) const;
  // Personalized all-to-all: send[send_offsets[r] .. send_offsets[r+1]) goes
  // to rank r; the result holds what every rank sent here, in rank order,
  // with recv_offsets (size + 1) when asked for. The counts are exchanged
  // first; then every check that can fail on one rank (offsets that do not
  // fit the send buffer, a message beyond MPI's int count, the receive
  // buffer's allocation, and local_error: a problem the caller found on this
  // rank before the exchange) is agreed on through one small allreduce, so
  // that either every rank throws the same dist_error or the data moves.
  template <class T>
  std::vector<T> alltoallv(const std::vector<T>& send, const std::vector<std::int64_t>& send_offsets,
                           std::vector<std::int64_t>* recv_offsets = nullptr,
                           const std::string& local_error = std::string()) const;
  // Rank root's value on every rank.
  template <class T>
  T broadcast(T x, int root = 0) const {
    static_assert(std::is_trivially_copyable_v<T>);
    timed([&] { check_mpi(MPI_Bcast(&x, int(sizeof(T)), MPI_BYTE, root, m_comm), "MPI_Bcast"); }, 0, 0);
    return x;
  }
  std::string broadcast(const std::string& s, int root = 0) const;

  // The agreement point. Every rank calls it with its own error ("" when
  // none). If any rank has one, every rank throws dist_error with the message
  // of the lowest failing rank, prefixed by that rank's number and the count
  // of failing ranks; what each rank computed before stays as it was. When
  // no rank failed it costs one allreduce of an int.
  void agree(const std::string& local_error) const;
  // Runs f() on this rank; an exception it throws becomes this rank's error
  // and is agreed on (so a failure on one rank cannot leave the others
  // waiting in the next collective). Returns f's value.
  template <class F>
  auto agreed(F&& f) const -> decltype(f()) {
    std::string err;
    if constexpr (std::is_void_v<decltype(f())>) {
      try {
        f();
      } catch (const std::exception& e) {
        err = e.what();
      }
      agree(err);
    } else {
      decltype(f()) r{};
      try {
        r = f();
      } catch (const std::exception& e) {
        err = e.what();
      }
      agree(err);
      return r;
    }
  }

  // MPI's type for an arithmetic T.
  template <class T>
  static MPI_Datatype type_of();
  // An MPI count from a size, or a dist_error when it does not fit in int.
  static int count_of(std::size_t n);

 private:
  template <class T>
  T reduce(T x, MPI_Op op) const {
    static_assert(std::is_arithmetic_v<T>);
    T r{};
    timed([&] { check_mpi(MPI_Allreduce(&x, &r, 1, type_of<T>(), op, m_comm), "MPI_Allreduce"); },
          std::int64_t(sizeof(T)), std::int64_t(sizeof(T)));
    return r;
  }
  template <class F>
  void timed(F&& f, std::int64_t sent, std::int64_t received) const {
    const double t0 = MPI_Wtime();
    f();
    m_volume->seconds += MPI_Wtime() - t0;
    m_volume->bytes_sent += sent;
    m_volume->bytes_received += received;
    ++m_volume->calls;
  }

  MPI_Comm m_comm;
  int m_rank = 0, m_size = 1;
  // Shared by the copies of one Comm (algorithms take it by value).
  std::shared_ptr<CommVolume> m_volume;
};

template <class T>
MPI_Datatype Comm::type_of() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, char>) return MPI_CHAR;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 8) return MPI_INT64_T;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 4) return MPI_INT32_T;
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 8) return MPI_UINT64_T;
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 4) return MPI_UINT32_T;
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 1) return MPI_UINT8_T;
  else static_assert(sizeof(T) == 0, "tessera::dist::Comm::type_of: no MPI type for this T");
}

namespace detail {
// "cannot allocate 8.0 GB (1000000000 elements of 8 bytes) for <what>": an
// allocation failure in words a person can act on.
std::string allocation_failure(std::size_t elements, std::size_t element_bytes, const char* what);
}  // namespace detail

template <class T>
std::vector<T> Comm::allgatherv(const std::vector<T>& mine, std::vector<std::int64_t>* offsets) const {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto counts = allgather<std::int64_t>(std::int64_t(mine.size()));
  std::vector<int> bytes(static_cast<std::size_t>(m_size)), displs(static_cast<std::size_t>(m_size));
  std::int64_t total = 0;
  std::vector<T> all;
  // Every rank knows every count, but the allocation can fail on one rank only.
  std::string err;
  try {
    for (int r = 0; r < m_size; ++r) {
      displs[std::size_t(r)] = count_of(std::size_t(total) * sizeof(T));
      bytes[std::size_t(r)] = count_of(std::size_t(counts[std::size_t(r)]) * sizeof(T));
      total += counts[std::size_t(r)];
    }
    try {
      all.resize(static_cast<std::size_t>(total));
    } catch (const std::exception&) {
      throw dist_error(detail::allocation_failure(std::size_t(total), sizeof(T), "the gathered parts"));
    }
  } catch (const std::exception& e) {
    err = std::string("tessera::dist::Comm::allgatherv: ") + e.what();
  }
  agree(err);
  timed([&] {
    check_mpi(MPI_Allgatherv(mine.data(), bytes[std::size_t(m_rank)], MPI_BYTE, all.data(), bytes.data(),
                             displs.data(), MPI_BYTE, m_comm),
              "MPI_Allgatherv");
  },
        std::int64_t(mine.size() * sizeof(T)) * (m_size - 1), std::int64_t((std::size_t(total) - mine.size()) * sizeof(T)));
  if (offsets) {
    offsets->assign(std::size_t(m_size) + 1, 0);
    for (int r = 0; r < m_size; ++r) (*offsets)[std::size_t(r) + 1] = (*offsets)[std::size_t(r)] + counts[std::size_t(r)];
  }
  return all;
}

template <class T>
std::vector<T> Comm::alltoallv(const std::vector<T>& send, const std::vector<std::int64_t>& send_offsets,
                               std::vector<std::int64_t>* recv_offsets, const std::string& local_error) const {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::size_t P = static_cast<std::size_t>(m_size);
  std::string err = local_error;
  // This rank's counts; a rank with a problem takes part in the exchange
  // with zero counts and reports it at the agreement below.
  std::vector<std::int64_t> scount(P, 0), rcount(P, 0);
  if (err.empty()) {
    if (send_offsets.size() != P + 1) {
      err = "tessera::dist::Comm::alltoallv: send_offsets has " + std::to_string(send_offsets.size()) +
            " entries, needs size() + 1 = " + std::to_string(P + 1);
    } else {
      for (std::size_t r = 0; r < P && err.empty(); ++r) {
        scount[r] = send_offsets[r + 1] - send_offsets[r];
        if (send_offsets[r] < 0 || scount[r] < 0 || send_offsets[r + 1] > std::int64_t(send.size()))
          err = "tessera::dist::Comm::alltoallv: send_offsets[" + std::to_string(r) + ".." + std::to_string(r + 1) +
                "] = " + std::to_string(send_offsets[r]) + ".." + std::to_string(send_offsets[r + 1]) +
                " is not a range of the " + std::to_string(send.size()) + " elements sent";
      }
      if (!err.empty()) scount.assign(P, 0);
    }
  }
  timed([&] { check_mpi(MPI_Alltoall(scount.data(), 1, MPI_INT64_T, rcount.data(), 1, MPI_INT64_T, m_comm), "MPI_Alltoall"); },
        8 * std::int64_t(m_size - 1), 8 * std::int64_t(m_size - 1));
  std::vector<int> sb(P), sd(P), rb(P), rd(P);
  std::int64_t rtotal = 0, sent = 0, received = 0;
  std::vector<T> recv;
  if (err.empty()) {
    try {
      for (std::size_t i = 0; i < P; ++i) {
        sb[i] = count_of(std::size_t(scount[i]) * sizeof(T));
        sd[i] = count_of(std::size_t(send_offsets[i]) * sizeof(T));
        if (rcount[i] < 0) throw dist_error("rank " + std::to_string(i) + " announced a negative count");
        rb[i] = count_of(std::size_t(rcount[i]) * sizeof(T));
        rd[i] = count_of(std::size_t(rtotal) * sizeof(T));
        rtotal += rcount[i];
        if (int(i) != m_rank) sent += sb[i], received += rb[i];
      }
      try {
        recv.resize(static_cast<std::size_t>(rtotal));
      } catch (const std::exception&) {
        throw dist_error(detail::allocation_failure(std::size_t(rtotal), sizeof(T), "the received data"));
      }
    } catch (const std::exception& e) {
      err = std::string("tessera::dist::Comm::alltoallv: ") + e.what();
    }
  }
  agree(err);  // every rank throws here, or none does
  timed([&] {
    check_mpi(MPI_Alltoallv(send.data(), sb.data(), sd.data(), MPI_BYTE, recv.data(), rb.data(), rd.data(), MPI_BYTE, m_comm),
              "MPI_Alltoallv");
  },
        sent, received);
  if (recv_offsets) {
    recv_offsets->assign(P + 1, 0);
    for (std::size_t r = 0; r < P; ++r) (*recv_offsets)[r + 1] = (*recv_offsets)[r] + rcount[r];
  }
  return recv;
}

}  // namespace tessera::dist
