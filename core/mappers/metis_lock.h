// MetisCall: what every METIS call in hopmap holds.
#ifndef HOPMAP_CORE_MAPPERS_METIS_LOCK_H_
#define HOPMAP_CORE_MAPPERS_METIS_LOCK_H_

#include <mutex>

namespace hopmap {

// Debian's METIS 5 draws its random numbers from the C library's rand(), seeded with
// srand(METIS_OPTION_SEED) at the start of each call. That state is global to the
// process, and gRPC calls rand() too (timer jitter): in the daemon, a solve's METIS
// cuts changed with whatever else the process did, and so did its mapping. While a
// MetisCall is alive on a thread, rand() and srand() on that thread use a private
// generator instead (metis_lock.cc interposes them; every other caller gets the C
// library's), and one process-wide lock keeps METIS calls one at a time (GKlib has
// other process-wide state). tests/core/mappers/determinism_test.cc checks it.
class MetisCall {
 public:
  MetisCall();
  ~MetisCall();
  MetisCall(const MetisCall&) = delete;
  MetisCall& operator=(const MetisCall&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_METIS_LOCK_H_
