#include "server/allocation_cache.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hopmap::server {
namespace {

// Fixed cost of one cache entry beyond its arrays: the Allocation and Entry
// objects, the list node, the index slot, allocator headers.
constexpr int64_t kEntryOverheadBytes = 512;

// The cache key: machine key, cores and the node list in binary (exact; no hash
// collision can hand one request another allocation's distances). The machine key
// comes first and ends at a NUL, so keys of different machines never share a prefix
// that could be confused.
std::string CacheKey(const std::string& machine_key, const std::vector<NodeId>& nodes,
                     int32_t cores_per_node) {
  std::string key;
  key.reserve(machine_key.size() + 1 + sizeof(int32_t) + nodes.size() * sizeof(NodeId));
  key.append(machine_key);
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(&cores_per_node), sizeof(cores_per_node));
  if (!nodes.empty()) {
    key.append(reinterpret_cast<const char*>(nodes.data()), nodes.size() * sizeof(NodeId));
  }
  return key;
}

// True when `entry_key` is `erased` itself or one of its versions ("kraken#3" for
// "kraken"), but not another machine that merely starts the same ("kraken2#1").
bool MatchesMachine(const std::string& entry_key, const std::string& erased) {
  if (entry_key == erased) return true;
  return entry_key.size() > erased.size() && absl::StartsWith(entry_key, erased) &&
         entry_key[erased.size()] == '#';
}

}  // namespace

AllocationCache::AllocationCache(int64_t memory_budget_bytes)
    : budget_(std::max<int64_t>(0, memory_budget_bytes)) {}

int64_t AllocationCache::EstimateBytes(const Allocation& allocation) {
  const int64_t n = allocation.num_nodes();
  const int64_t dense = allocation.has_dense_hops() ? n * n * int64_t{sizeof(uint16_t)} : 0;
  // The node list twice: in the Allocation and in the cache key.
  return kEntryOverheadBytes + dense + 2 * n * int64_t{sizeof(NodeId)};
}

absl::StatusOr<AllocationCache::Lookup> AllocationCache::GetOrCreate(
    const std::string& machine_key, std::shared_ptr<const Machine> machine,
    const std::vector<NodeId>& nodes, int32_t cores_per_node) {
  std::string key = CacheKey(machine_key, nodes, cores_per_node);
  {
    absl::MutexLock lock(&mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);  // now the most recently used
      return Lookup{it->second->allocation, true};
    }
  }

  // Built without the lock: a dense matrix takes a while and other keys must not
  // wait for it.
  absl::StatusOr<Allocation> built = Allocation::Create(std::move(machine), nodes, cores_per_node);
  if (!built.ok()) return built.status();
  auto allocation = std::make_shared<const Allocation>(*std::move(built));
  const int64_t bytes = EstimateBytes(*allocation);
  if (bytes > budget_) return Lookup{std::move(allocation), false};  // used once, not kept

  absl::MutexLock lock(&mu_);
  if (auto it = index_.find(key); it != index_.end()) {
    // Another caller built the same key meanwhile: share theirs, drop ours.
    lru_.splice(lru_.begin(), lru_, it->second);
    return Lookup{it->second->allocation, false};
  }
  lru_.push_front(Entry{key, machine_key, allocation, bytes});
  index_.emplace(std::move(key), lru_.begin());
  bytes_used_ += bytes;
  // The new entry fits the budget by itself, so eviction stops before reaching it.
  while (bytes_used_ > budget_ && !lru_.empty()) {
    Entry& victim = lru_.back();
    bytes_used_ -= victim.bytes;
    index_.erase(victim.key);
    lru_.pop_back();
  }
  return Lookup{std::move(allocation), false};
}

void AllocationCache::EraseMachine(const std::string& machine_key) {
  absl::MutexLock lock(&mu_);
  for (auto it = lru_.begin(); it != lru_.end();) {
    if (MatchesMachine(it->machine_key, machine_key)) {
      bytes_used_ -= it->bytes;
      index_.erase(it->key);
      it = lru_.erase(it);
    } else {
      ++it;
    }
  }
}

int64_t AllocationCache::bytes_used() const {
  absl::MutexLock lock(&mu_);
  return bytes_used_;
}

size_t AllocationCache::entries() const {
  absl::MutexLock lock(&mu_);
  return lru_.size();
}

}  // namespace hopmap::server
