// tessera::MemoryPool in a kernel: every iteration builds a variable-length
// list from pool blocks, sums it, and gives the blocks back. Shows how to
// size a pool, how to react to nullptr (here: count it and fall back to a
// slower path), and the usage statistics. In a CUDA build on a machine
// without a GPU it says so and runs on the host.
#include <tessera/core/host_fallback.hpp>
#include <tessera/mempool.hpp>

#include <cstdio>
#include <iostream>

namespace {
struct Node {
  Node* next;
  long value;
};
constexpr int kMaxNodes = 100;
}  // namespace

// Space: the default execution space, or the host's when it cannot run here.
template <class Space>
int run() {
  using Pool = tessera::MemoryPool<Space>;

  // Sizing: at most `concurrency` iterations run at once, each holds at most
  // kMaxNodes blocks of 64 bytes. Give the pool twice that plus one
  // superblock per block size in use, so that threads never run it dry.
  const std::size_t concurrency = std::size_t(Space().concurrency());
  const std::size_t need = concurrency * kMaxNodes * 64;
  Pool pool(typename Pool::memory_space(), 2 * need + (std::size_t(1) << 20), 64, 4096);

  const int n = 20000;
  long total = 0;
  tessera::View<int*, Space> fallbacks("fallbacks", 1);
  tessera::parallel_reduce(
      "lists", tessera::RangePolicy<Space>(0, n),
      TESSERA_LAMBDA(int i, long& sum) {
        const int len = 1 + i % kMaxNodes;
        Node* head = nullptr;
        bool complete = true;
        for (int k = 0; k < len; ++k) {
          auto* node = static_cast<Node*>(pool.allocate(sizeof(Node)));
          if (node == nullptr) {  // the pool is exhausted right now: degrade, do not crash
            complete = false;
            break;
          }
          node->value = k;
          node->next = head;
          head = node;
        }
        long s = 0;
        for (Node* p = head; p != nullptr;) {
          Node* next = p->next;
          s += p->value;
          pool.deallocate(p, sizeof(Node));
          p = next;
        }
        if (!complete) {  // fallback: the closed form instead of the list
          tessera::atomic_add(&fallbacks(0), 1);
          s = long(len) * (len - 1) / 2;
        }
        sum += s;
      },
      total);

  long expected = 0;
  for (int i = 0; i < n; ++i) {
    const long len = 1 + i % kMaxNodes;
    expected += len * (len - 1) / 2;
  }
  auto hf = tessera::create_mirror_view_and_copy(tessera::HostSpace(), fallbacks);
  typename Pool::usage_statistics st;
  pool.get_usage_statistics(st);
  std::printf("sum %ld (expected %ld), fallbacks %d, pool %zu bytes in %zu superblocks, high water %zu superblocks, "
              "in use %zu blocks, failed allocations %zu\n",
              total, expected, hf(0), st.capacity_bytes, st.capacity_superblocks, st.high_water_superblocks,
              st.consumed_blocks, st.failed_allocations);
  const bool ok = total == expected && pool.is_empty() && st.bad_deallocations == 0;
  if (!ok) pool.print_state(std::cout);
  return ok ? 0 : 1;
}

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  return tessera::run_on_usable_default_space("mempool_basic", [&]<class Space>() { return run<Space>(); });
}
