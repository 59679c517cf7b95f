#include "server/service_options.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/types.h"

namespace hopmap::server {
namespace {

absl::Status FlagError(const char* flag, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(flag, " ", what));
}

absl::Status CheckRange(const char* flag, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    return FlagError(flag, absl::StrCat("must be in [", lo, ", ", hi, "], got ", value));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ServiceOptions::Validate() const {
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  if (absl::Status s = CheckRange("--max-tasks", max_tasks, 1, kMaxTasks); !s.ok()) return s;
  if (absl::Status s = CheckRange("--max-edges", max_edges, 0, int64_t{1} << 40); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRange("--max-machine-nodes", max_machine_nodes, 1, kMaxTasks);
      !s.ok()) {
    return s;
  }
  // gRPC takes the message limit as an int.
  if (absl::Status s = CheckRange("--max-message-bytes", max_message_bytes, 1024, kIntMax);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRange("--max-concurrent", max_concurrent, 1, 1 << 16); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRange("--max-queued", max_queued, 0, 1 << 20); !s.ok()) return s;
  if (absl::Status s = CheckRange("--threads", threads, 0, 1 << 16); !s.ok()) return s;
  if (absl::Status s = CheckRange("--cache-bytes", cache_bytes, 0, int64_t{1} << 50); !s.ok()) {
    return s;
  }
  if (!std::isfinite(max_time_limit_seconds) || max_time_limit_seconds <= 0) {
    return FlagError("--max-time-limit", absl::StrCat("must be a positive number of seconds, got ",
                                                      max_time_limit_seconds));
  }
  if (!std::isfinite(default_time_limit_seconds) || default_time_limit_seconds < 0) {
    return FlagError("--default-time-limit",
                     absl::StrCat("must be a number of seconds >= 0 (0: sized to the job), got ",
                                  default_time_limit_seconds));
  }
  if (default_time_limit_seconds > max_time_limit_seconds) {
    return FlagError("--default-time-limit",
                     absl::StrCat(default_time_limit_seconds, " s is above --max-time-limit (",
                                  max_time_limit_seconds, " s)"));
  }
  for (const std::string* t : {&token, &admin_token}) {
    for (char c : *t) {
      if (static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7e) {
        return FlagError(t == &token ? "--token" : "--admin-token",
                         "must be printable ASCII without spaces");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace hopmap::server
