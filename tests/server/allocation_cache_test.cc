#include "server/allocation_cache.h"

#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "core/io/machine_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap::server {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const Machine> Torus444() {
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec("torus:4x4x4");
  EXPECT_TRUE(machine.ok()) << machine.status();
  return machine.ok() ? std::shared_ptr<const Machine>(*std::move(machine)) : nullptr;
}

std::vector<NodeId> Range(NodeId first, NodeId count) {
  std::vector<NodeId> nodes(count);
  std::iota(nodes.begin(), nodes.end(), first);
  return nodes;
}

// What one cached allocation of `count` nodes costs.
int64_t BytesOf(const std::shared_ptr<const Machine>& machine, NodeId count) {
  absl::StatusOr<Allocation> allocation = Allocation::Create(machine, Range(0, count), 1);
  EXPECT_TRUE(allocation.ok());
  return AllocationCache::EstimateBytes(*allocation);
}

TEST(AllocationCacheTest, EstimateBytesCountsTheDenseMatrix) {
  std::shared_ptr<const Machine> machine = Torus444();
  absl::StatusOr<Allocation> dense = Allocation::Create(machine, Range(0, 64), 1);
  absl::StatusOr<Allocation> sparse =
      Allocation::Create(machine, Range(0, 64), 1, /*dense_limit=*/8);
  ASSERT_TRUE(dense.ok() && sparse.ok());
  ASSERT_TRUE(dense->has_dense_hops());
  ASSERT_FALSE(sparse->has_dense_hops());
  // 64 x 64 uint16 hops more for the dense one.
  EXPECT_EQ(AllocationCache::EstimateBytes(*dense) - AllocationCache::EstimateBytes(*sparse),
            64 * 64 * 2);
  EXPECT_GT(AllocationCache::EstimateBytes(*sparse), 64 * 4);
}

TEST(AllocationCacheTest, SecondLookupHits) {
  std::shared_ptr<const Machine> machine = Torus444();
  AllocationCache cache(int64_t{1} << 30);
  EXPECT_EQ(cache.budget(), int64_t{1} << 30);
  absl::StatusOr<AllocationCache::Lookup> first = cache.GetOrCreate("t#1", machine, {5, 0, 63}, 2);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->hit);
  EXPECT_EQ(first->allocation->nodes(), (std::vector<NodeId>{5, 0, 63}));
  EXPECT_EQ(first->allocation->cores_per_node(), 2);
  EXPECT_EQ(first->allocation->HopsBetweenPositions(1, 2), 3);  // (0,0,0)-(3,3,3)
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(cache.bytes_used(), AllocationCache::EstimateBytes(*first->allocation));

  absl::StatusOr<AllocationCache::Lookup> second = cache.GetOrCreate("t#1", machine, {5, 0, 63}, 2);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->hit);
  EXPECT_EQ(second->allocation, first->allocation);

  // Another order, other cores or another machine version are other entries.
  EXPECT_FALSE(cache.GetOrCreate("t#1", machine, {0, 5, 63}, 2)->hit);
  EXPECT_FALSE(cache.GetOrCreate("t#1", machine, {5, 0, 63}, 1)->hit);
  EXPECT_FALSE(cache.GetOrCreate("t#2", machine, {5, 0, 63}, 2)->hit);
  EXPECT_EQ(cache.entries(), 4u);
}

TEST(AllocationCacheTest, EraseMachineDropsItsEntriesOnly) {
  std::shared_ptr<const Machine> machine = Torus444();
  AllocationCache cache(int64_t{1} << 30);
  for (const char* key : {"m#1", "m#2", "m2#1", "inline:abc"}) {
    ASSERT_TRUE(cache.GetOrCreate(key, machine, Range(0, 8), 1).ok());
  }
  const int64_t one = BytesOf(machine, 8);
  EXPECT_EQ(cache.bytes_used(), 4 * one);

  cache.EraseMachine("m");  // a name: every version of it, not "m2"
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.bytes_used(), 2 * one);
  EXPECT_FALSE(cache.GetOrCreate("m#1", machine, Range(0, 8), 1)->hit);
  EXPECT_TRUE(cache.GetOrCreate("m2#1", machine, Range(0, 8), 1)->hit);
  EXPECT_TRUE(cache.GetOrCreate("inline:abc", machine, Range(0, 8), 1)->hit);

  cache.EraseMachine("m2#1");  // an exact key
  EXPECT_FALSE(cache.GetOrCreate("m2#1", machine, Range(0, 8), 1)->hit);
  cache.EraseMachine("inline:abc");
  EXPECT_FALSE(cache.GetOrCreate("inline:abc", machine, Range(0, 8), 1)->hit);
}

TEST(AllocationCacheTest, EvictsLeastRecentlyUsed) {
  std::shared_ptr<const Machine> machine = Torus444();
  const int64_t one = BytesOf(machine, 16);
  AllocationCache cache(2 * one + one / 2);  // room for two
  const std::vector<NodeId> a = Range(0, 16), b = Range(16, 16), c = Range(32, 16);
  auto hit = [&](const std::vector<NodeId>& nodes) {
    absl::StatusOr<AllocationCache::Lookup> lookup = cache.GetOrCreate("t#1", machine, nodes, 1);
    EXPECT_TRUE(lookup.ok());
    EXPECT_EQ(lookup->allocation->nodes(), nodes);
    return lookup->hit;
  };
  EXPECT_FALSE(hit(a));
  EXPECT_FALSE(hit(b));
  EXPECT_TRUE(hit(a));   // a is now more recent than b
  EXPECT_FALSE(hit(c));  // evicts b
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.bytes_used(), 2 * one);
  EXPECT_TRUE(hit(a));   // order: a, c
  EXPECT_FALSE(hit(b));  // evicts c
  EXPECT_FALSE(hit(c));  // evicts a
  EXPECT_TRUE(hit(b));
  EXPECT_FALSE(hit(a));
  EXPECT_LE(cache.bytes_used(), cache.budget());
}

TEST(AllocationCacheTest, OversizeAllocationIsReturnedButNotKept) {
  std::shared_ptr<const Machine> machine = Torus444();
  AllocationCache cache(BytesOf(machine, 64) - 1);
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<AllocationCache::Lookup> lookup =
        cache.GetOrCreate("t#1", machine, Range(0, 64), 1);
    ASSERT_TRUE(lookup.ok());
    EXPECT_FALSE(lookup->hit);
    ASSERT_NE(lookup->allocation, nullptr);
    EXPECT_EQ(lookup->allocation->num_nodes(), 64);
    EXPECT_EQ(lookup->allocation->HopsBetweenPositions(0, 42), machine->Hops(0, 42));
  }
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes_used(), 0);
  // A smaller one still fits.
  EXPECT_FALSE(cache.GetOrCreate("t#1", machine, Range(0, 8), 1)->hit);
  EXPECT_TRUE(cache.GetOrCreate("t#1", machine, Range(0, 8), 1)->hit);
}

TEST(AllocationCacheTest, CreateErrorsPassThrough) {
  std::shared_ptr<const Machine> machine = Torus444();
  AllocationCache cache(int64_t{1} << 30);
  absl::StatusOr<AllocationCache::Lookup> dup = cache.GetOrCreate("t#1", machine, {3, 5, 3}, 1);
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dup.status().message(), HasSubstr("node 3"));
  EXPECT_THAT(dup.status().message(), HasSubstr("listed twice"));

  absl::StatusOr<AllocationCache::Lookup> outside = cache.GetOrCreate("t#1", machine, {64}, 1);
  EXPECT_EQ(outside.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(outside.status().message(), HasSubstr("outside the machine"));

  absl::StatusOr<AllocationCache::Lookup> cores = cache.GetOrCreate("t#1", machine, {1}, 0);
  EXPECT_EQ(cores.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cache.entries(), 0u);
}

TEST(AllocationCacheTest, ConcurrentMissesOfOneKeyShareOneAllocation) {
  std::shared_ptr<const Machine> machine = Torus444();
  AllocationCache cache(int64_t{1} << 30);
  constexpr int kThreads = 8;
  const std::vector<NodeId> nodes = Range(0, 64);
  std::vector<absl::StatusOr<AllocationCache::Lookup>> results(kThreads,
                                                               absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { results[t] = cache.GetOrCreate("t#1", machine, nodes, 2); });
  }
  for (std::thread& thread : threads) thread.join();

  absl::StatusOr<AllocationCache::Lookup> after = cache.GetOrCreate("t#1", machine, nodes, 2);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->hit);
  EXPECT_EQ(cache.entries(), 1u);
  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE(t);
    ASSERT_TRUE(results[t].ok()) << results[t].status();
    const Allocation& allocation = *results[t]->allocation;
    EXPECT_EQ(allocation.nodes(), nodes);
    EXPECT_EQ(allocation.cores_per_node(), 2);
    EXPECT_EQ(allocation.HopsBetweenPositions(0, 63), 3);
    EXPECT_EQ(allocation.HopsBetweenPositions(5, 6), 1);
    // Whoever built a copy that lost the race got the kept one instead.
    EXPECT_EQ(results[t]->allocation, after->allocation);
  }
}

}  // namespace
}  // namespace hopmap::server
