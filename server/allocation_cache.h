// AllocationCache: the distance structures of (machine, node list, cores) built
// once and reused across requests, least recently used out past a memory budget.
#ifndef HOPMAP_SERVER_ALLOCATION_CACHE_H_
#define HOPMAP_SERVER_ALLOCATION_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/topology/allocation.h"

namespace hopmap::server {

class AllocationCache {
 public:
  explicit AllocationCache(int64_t memory_budget_bytes);

  struct Lookup {
    std::shared_ptr<const Allocation> allocation;
    bool hit = false;
  };

  // `machine_key` identifies the machine and its version (e.g. "kraken#3"); an
  // inline machine uses a hash of its serialized message. Builds the Allocation
  // on a miss (outside the lock; two concurrent misses of one key may both build,
  // one result is kept). Allocation::Create errors pass through. An allocation
  // larger than the whole budget is returned but not kept.
  absl::StatusOr<Lookup> GetOrCreate(const std::string& machine_key,
                                     std::shared_ptr<const Machine> machine,
                                     const std::vector<NodeId>& nodes, int32_t cores_per_node);

  // Drops every entry of `machine_key` and of its versions "<machine_key>#..."
  // (PutMachine/DeleteMachine of a name: EraseMachine("kraken") drops "kraken#3" but
  // not "kraken2#1").
  void EraseMachine(const std::string& machine_key);

  [[nodiscard]] int64_t bytes_used() const;
  [[nodiscard]] size_t entries() const;
  [[nodiscard]] int64_t budget() const { return budget_; }

  // Estimated memory of one cached allocation: dense matrix + node list (counted
  // twice: the key holds a copy) + a fixed per-entry overhead. What bytes_used() adds.
  static int64_t EstimateBytes(const Allocation& allocation);

 private:
  struct Entry {
    std::string key;
    std::string machine_key;
    std::shared_ptr<const Allocation> allocation;
    int64_t bytes = 0;
  };
  const int64_t budget_;
  mutable absl::Mutex mu_;
  std::list<Entry> lru_ ABSL_GUARDED_BY(mu_);  // front: most recently used
  absl::flat_hash_map<std::string, std::list<Entry>::iterator> index_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_used_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_ALLOCATION_CACHE_H_
