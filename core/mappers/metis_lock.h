// One process-wide lock around METIS calls.
#ifndef HOPMAP_CORE_MAPPERS_METIS_LOCK_H_
#define HOPMAP_CORE_MAPPERS_METIS_LOCK_H_

#include <mutex>

namespace hopmap {

// METIS 5 seeds one global random generator (GKlib's) from METIS_OPTION_SEED at the
// start of every call, and draws from it throughout; two calls at once (two solves in
// the daemon) interleave their draws and neither is reproducible any more. Every
// METIS call in hopmap holds this lock (tests/core/mappers/determinism_test.cc).
inline std::mutex& MetisMutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_METIS_LOCK_H_
