// ServiceOptions: the limits and security settings of hopmapd's Mapper service
// (each field is one hopmapd flag, named in the comment).
#ifndef HOPMAP_SERVER_SERVICE_OPTIONS_H_
#define HOPMAP_SERVER_SERVICE_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace hopmap::server {

struct ServiceOptions {
  // --max-tasks: tasks in one request's graph (and entries of Evaluate's mapping).
  int64_t max_tasks = 2'000'000;
  // --max-edges: edges of one request's graph (CSR: adjncy entries / 2; edge list:
  // records).
  int64_t max_edges = 50'000'000;
  // --max-machine-nodes: nodes of an inline or stored machine (an allocation needs
  // memory proportional to its machine's node count).
  int64_t max_machine_nodes = int64_t{1} << 22;
  // --max-message-bytes: the largest request or reply (gRPC's receive/send limit).
  int64_t max_message_bytes = int64_t{256} << 20;
  // --max-concurrent: solves running at once (Map, MapStream, Evaluate, Analyze).
  int max_concurrent = 2;
  // --max-queued: requests waiting for a solve slot; more are refused with
  // RESOURCE_EXHAUSTED.
  int max_queued = 64;
  // --default-time-limit: a request's budget when it gives none.
  // 0: sized to the job (DefaultTimeLimitSeconds: 1 s per 8192 tasks, 1..45 s).
  double default_time_limit_seconds = 0;
  // --max-time-limit: the largest budget a request may ask for (larger is capped).
  double max_time_limit_seconds = 300.0;
  // --threads: threads of one solve (0: every hardware thread); a request may ask
  // for fewer.
  int threads = 0;
  // --token: every call needs "authorization: Bearer <token>" (empty: open).
  std::string token;
  // --admin-token: PutMachine/DeleteMachine need it (empty: as any call); it also
  // works wherever the token does.
  std::string admin_token;
  // --cache-bytes: memory budget of the allocation cache.
  int64_t cache_bytes = int64_t{1} << 30;
  // --log-format json: each request's log line is one JSON object (for log shippers)
  // instead of the human key=value line.
  bool log_json = false;

  // Every field in range; errors name the flag: "--max-concurrent must be >= 1, got 0".
  absl::Status Validate() const;
};

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_SERVICE_OPTIONS_H_
