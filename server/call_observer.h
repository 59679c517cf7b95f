// What a monitoring layer learns of each finished call (server/metrics implements it
// for Prometheus); the service knows nothing of how it is exported.
#ifndef HOPMAP_SERVER_CALL_OBSERVER_H_
#define HOPMAP_SERVER_CALL_OBSERVER_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace hopmap::server {

struct FinishedCall {
  absl::string_view method;  // "Map", "Evaluate", ...
  grpc::StatusCode code = grpc::StatusCode::OK;
  double seconds = 0;
  int64_t tasks = -1;                 // the request's graph; -1: not reached
  std::optional<double> improvement;  // over in-order, where a mapping was measured
  std::optional<bool> cache_hit;      // the allocation cache, where it was asked
  bool rejected = false;              // refused by admission control (server busy)
};

class CallObserver {
 public:
  virtual ~CallObserver() = default;
  // Called on the call's thread once it has its status; must be thread-safe.
  virtual void OnCallFinished(const FinishedCall& call) = 0;
};

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_CALL_OBSERVER_H_
