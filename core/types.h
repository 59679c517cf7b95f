// The id and quantity types every part of hopmap shares.
#ifndef HOPMAP_CORE_TYPES_H_
#define HOPMAP_CORE_TYPES_H_

#include <cstdint>
#include <limits>

namespace hopmap {

using TaskId = int32_t;     // a process/rank of the job, 0..n-1
using NodeId = int32_t;     // a machine node, numbered by the machine model
using SlotId = int32_t;     // allocation_position * cores_per_node + core
using EdgeIndex = int64_t;  // an index into a CSR adjacency array
using Bytes = int64_t;      // a communication volume
using HopBytes = int64_t;   // bytes x hops, exact

inline constexpr TaskId kInvalidTask = -1;
inline constexpr NodeId kInvalidNode = -1;
inline constexpr SlotId kInvalidSlot = -1;

// Largest number of tasks or slots hopmap accepts (ids are 32-bit).
inline constexpr int64_t kMaxTasks = std::numeric_limits<int32_t>::max() - 1;

// The balanced problem's limits (many objects per slot, with loads and state).
// The largest load one object may have: keeps sums of a million loads exact
// enough in doubles and far from overflow.
inline constexpr double kMaxObjectLoad = 1e15;
// The most state bytes all objects together may have (2^62): migrated bytes, and
// the limits compared with them, then never overflow.
inline constexpr Bytes kMaxTotalStateBytes = Bytes{1} << 62;

}  // namespace hopmap

#endif  // HOPMAP_CORE_TYPES_H_
