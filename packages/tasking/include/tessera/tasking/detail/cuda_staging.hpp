#pragma once
// The host side of a TaskScheduler<Cuda> between waits: host_spawn and host
// when_all stage records in a pinned mirror of the device's host arena, and
// host futures change records' reference counts. A wait takes what is staged
// (uploads the mirror's new bytes and the list of new records) and the
// reference changes that the device must apply.
//
// Where a host future's +1 or -1 goes. A record not yet taken by a wait
// exists only in the mirror, so the change is made there, to `refs` itself
// (and when that reaches 0, wait_head becomes the ORPHANED marker, as the
// device does when a last reference goes before completion): nothing to
// merge, upload or apply later. A record already taken is the device's: the
// change is merged per record into a map, uploaded by the next wait and
// applied there before the driver starts. (Every change went to the map
// before; the map's node allocation and the upload of one entry per
// record were most of a host_spawn whose future is dropped at once, the
// 10^6-task fan-out's case.)
//
// Locks. The staging lock covers the arena's bump pointer, the list of
// staged records and their host copies: one record's staging from start to
// end. The delta lock covers the taken boundary, the mirror's reference
// fields and the map. It is a leaf (nothing is locked while it is held), so
// a record staged under one scheduler's staging lock may copy futures of
// any scheduler. A wait moves the taken boundary under both locks, so a
// change made in the mirror before the move is in the bytes it uploads, and
// one made after goes to the map.
//
// A template over the record type, which needs `refs` (std::int32_t) and
// `wait_head` (Record*): the driver uses CudaTaskRecord; a host test
// (tests/test_task_cuda_staging_concurrency.cpp) runs the protocol on
// threads with a plain record, without CUDA.
#include <tessera/tasking/detail/task_errors.hpp>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tessera::detail::tasking {

// Set while the host destroys its copies of functors the device has run:
// host futures inside them gave their references to the device copy, which
// released them on the device.
inline thread_local bool t_cuda_host_copy_teardown = false;

template <class Record>
class CudaHostStaging {
 public:
  struct HostCopy {
    void* image;
    void (*destroy)(void*);
  };
  // What one wait takes: the records staged since the last wait, in creation
  // order, the host copies to destroy after it (functors with a destructor),
  // and the arena bytes [upload_begin, upload_end) to upload.
  struct Batch {
    std::vector<Record*> records;
    std::vector<HostCopy> copies;
    std::size_t upload_begin = 0, upload_end = 0;
  };

  // `device_arena`: the arena's device address (never dereferenced here);
  // `host_mirror`: its pinned host image, `bytes` long; `orphan`: the
  // wait_head marker of a record whose last reference went before it completed.
  CudaHostStaging(char* device_arena, char* host_mirror, std::size_t bytes, Record* orphan)
      : m_arena(device_arena), m_mirror(host_mirror), m_bytes(bytes), m_orphan(orphan) {}
  CudaHostStaging(const CudaHostStaging&) = delete;
  CudaHostStaging& operator=(const CudaHostStaging&) = delete;
  ~CudaHostStaging() { destroy_copies(m_copies); }

  std::size_t capacity() const noexcept { return m_bytes; }

  // ---- staging (host_spawn, host when_all), under mutex() ----
  std::mutex& mutex() noexcept { return m_staging_mutex; }

  // Room for a record of `bytes`: its host image in the mirror, and its
  // device address. Throws when the arena is full, naming what() (called
  // only then: a functor's demangled name cost 420 ns, half of a host_spawn,
  // when it was built for every spawn); nothing is taken then.
  template <class What>
  void* stage(std::size_t bytes, Record*& device_address, const char* where, const What& what) {
    const std::size_t need = (bytes + 63) / 64 * 64;
    if (m_bump + need > m_bytes)
      throw_pool_exhausted(where,
                           what() +
                               " (the staging area of host spawns, a quarter of the pool: wait() to run "
                               "what is staged, or make the pool larger)",
                           bytes, m_bytes - m_bump, m_bytes);
    device_address = reinterpret_cast<Record*>(m_arena + m_bump);
    void* host = m_mirror + m_bump;
    m_bump += need;
    return host;
  }
  // Refuses a host_spawn from the TU of `module` when the arena holds tasks
  // of another TU (before anything is staged: a refused spawn takes nothing).
  void check_module(const void* module) const {
    if (m_module != nullptr && module != m_module)
      throw_cuda_tasking(
          "tessera::host_spawn (Cuda): this scheduler already holds tasks spawned from another translation "
          "unit; "
          "without relocatable device code each translation unit is its own CUDA module, so spawn every task "
          "of "
          "one scheduler from the translation unit that calls wait");
  }
  // A staged record, in creation order; host_destroy destroys the host copy
  // of its functor after the wait that ran it (null: nothing to destroy).
  // `module`: the marker of the TU whose host_spawn made it, after
  // check_module (null for a when_all node, which runs no code).
  void staged(Record* device_address, void* host_image, void (*host_destroy)(void*), const void* module) {
    if (module != nullptr) {
      m_module = module;
      m_staged_module = module;
    }
    m_staged.push_back(device_address);
    if (host_destroy != nullptr) m_copies.push_back({host_image, host_destroy});
  }

  // ---- host futures ----
  // A host future's copy (+1) or release (-1) of a record's reference.
  void delta(Record* r, int n) {
    if (r == nullptr || n == 0 || t_cuda_host_copy_teardown) return;
    std::lock_guard<std::mutex> lock(m_delta_mutex);
    if (Record* image = untaken_image(r)) {
      image->refs += n;
      if (image->refs == 0) image->wait_head = m_orphan;
      return;
    }
    m_deltas[r] += n;
  }
  // Where the host reads a record between waits (Future::is_ready, get):
  // its image, while no wait that took it has finished (null: read the
  // device's copy). A wait still running leaves its records' images as they
  // were uploaded (not complete): a read of the device's copy would block
  // until the driver ends, on the legacy stream the driver runs on.
  const void* mirror_of(const Record* r) const {
    std::lock_guard<std::mutex> lock(m_delta_mutex);
    return image_past(m_finished, r);
  }

  // ---- a wait ----
  // Takes what is staged, unless it was spawned by another module than the
  // waiting TU's (refused, with nothing taken: the tasks stay staged).
  Batch take(const void* module) {
    std::lock_guard<std::mutex> sl(m_staging_mutex);
    if (m_staged_module != nullptr && m_staged_module != module)
      throw_cuda_tasking(
          "tessera::wait (Cuda): the tasks staged on this scheduler were spawned by host_spawn in another "
          "translation unit than this wait's; without relocatable device code each translation unit is its "
          "own "
          "CUDA module and its kernel cannot run another module's tasks, so call wait from the translation "
          "unit "
          "that spawned them (nothing was run; they stay staged)");
    Batch b;
    b.records.swap(m_staged);
    b.copies.swap(m_copies);
    m_staged_module = nullptr;
    std::lock_guard<std::mutex> dl(m_delta_mutex);
    b.upload_begin = m_taken;
    b.upload_end = m_taken = m_bump;
    return b;
  }
  // The merged reference changes of taken records (zero sums left out), in
  // two arrays for the upload; the map starts empty again.
  void take_deltas(std::vector<Record*>& records, std::vector<int>& values) {
    records.clear();
    values.clear();
    std::lock_guard<std::mutex> dl(m_delta_mutex);
    for (const auto& [r, n] : m_deltas)
      if (n != 0) {
        records.push_back(r);
        values.push_back(n);
      }
    m_deltas.clear();
  }
  // After the wait that ran `b`: its host copies are destroyed, and the arena
  // restarts when none of its records is live on the device and nothing was
  // staged meanwhile.
  void finished(Batch& b, bool arena_idle) {
    destroy_copies(b.copies);
    std::lock_guard<std::mutex> sl(m_staging_mutex);
    std::lock_guard<std::mutex> dl(m_delta_mutex);
    if (arena_idle && m_bump == b.upload_end) {
      m_bump = m_taken = m_finished = 0;
      m_module = nullptr;
    } else {
      m_finished = b.upload_end;
    }
  }
  // The host copies of a batch whose tasks will never run (a failed launch).
  static void abandon(Batch& b) { destroy_copies(b.copies); }

  // For tests and statistics.
  std::size_t staged_count() const {
    std::lock_guard<std::mutex> sl(m_staging_mutex);
    return m_staged.size();
  }
  std::size_t pending_deltas() const {
    std::lock_guard<std::mutex> dl(m_delta_mutex);
    return m_deltas.size();
  }

 private:
  static void destroy_copies(std::vector<HostCopy>& copies) {
    t_cuda_host_copy_teardown = true;
    for (const HostCopy& c : copies) c.destroy(c.image);
    t_cuda_host_copy_teardown = false;
    copies.clear();
  }
  // Under m_delta_mutex: the image of a record at or past arena byte
  // `boundary`. Every record a future names was staged, so one past a
  // boundary is below the bump pointer.
  Record* image_past(std::size_t boundary, const Record* r) const {
    const char* p = reinterpret_cast<const char*>(r);
    if (p < m_arena + boundary || p >= m_arena + m_bytes) return nullptr;
    return reinterpret_cast<Record*>(m_mirror + (p - m_arena));
  }
  Record* untaken_image(const Record* r) const { return image_past(m_taken, r); }

  char* const m_arena;
  char* const m_mirror;
  const std::size_t m_bytes;
  Record* const m_orphan;
  // Under m_staging_mutex.
  std::size_t m_bump = 0;
  const void* m_module = nullptr;         // the module of the arena's task records
  const void* m_staged_module = nullptr;  // the module of the tasks staged for the next wait
  std::vector<Record*> m_staged;
  std::vector<HostCopy> m_copies;
  mutable std::mutex m_staging_mutex;
  // Under m_delta_mutex (moved under both locks).
  std::size_t m_taken = 0;     // arena bytes taken by waits
  std::size_t m_finished = 0;  // arena bytes taken by waits that have finished
  std::unordered_map<Record*, int> m_deltas;
  mutable std::mutex m_delta_mutex;
};

}  // namespace tessera::detail::tasking
