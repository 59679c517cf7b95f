// The C API (hopmap.h) over the C++ client: every entry point catches everything,
// so no exception crosses into C, and hands back malloc'd memory only.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "client/c/hopmap.h"
#include "client/lib/hopmap_client.h"
#include "core/solve/report.h"
#include "core/solve/solve.h"
#include "proto/convert/convert.h"

struct hopmap_client {
  std::unique_ptr<hopmap::client::HopmapClient> client;
};

namespace {

char* CopyString(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out != nullptr) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

hopmap_status Fail(hopmap_status status, const std::string& message, char** error_message) {
  if (error_message != nullptr) *error_message = CopyString(message);
  return status;
}

hopmap_status FromAbsl(const absl::Status& status, char** error_message) {
  const int code = static_cast<int>(status.code());
  const hopmap_status mapped =
      code >= 0 && code <= 16 ? static_cast<hopmap_status>(code) : HOPMAP_UNKNOWN;
  return Fail(mapped, std::string(status.message()), error_message);
}

template <typename T>
T* CopyArray(const T* data, size_t n) {
  T* out = static_cast<T*>(std::malloc(n == 0 ? 1 : n * sizeof(T)));
  if (out != nullptr && n > 0) std::memcpy(out, data, n * sizeof(T));
  return out;
}

// The request's checks that protect this process (reading the caller's arrays);
// the daemon checks the values themselves.
std::string CheckRequest(const hopmap_map_request& r) {
  if (r.machine == nullptr || r.machine[0] == '\0') return "request.machine is required";
  if (r.num_objects < 1) return absl::StrCat("request.num_objects is ", r.num_objects, "; >= 1");
  if (r.xadj == nullptr) return "request.xadj is NULL";
  if (r.xadj[0] != 0) return absl::StrCat("request.xadj[0] is ", r.xadj[0], "; must be 0");
  for (int32_t i = 0; i < r.num_objects; ++i) {
    if (r.xadj[i + 1] < r.xadj[i]) {
      return absl::StrCat("request.xadj is not monotone at ", i + 1);
    }
  }
  if (r.xadj[r.num_objects] > INT32_MAX) {
    return absl::StrCat("request.xadj[num_objects] = ", r.xadj[r.num_objects],
                        " adjacency entries is more than hopmap takes");
  }
  if (r.xadj[r.num_objects] > 0 && r.adjncy == nullptr) return "request.adjncy is NULL";
  if (r.num_background_loads < 0) return "request.num_background_loads is negative";
  if (r.num_background_loads > 0 && r.background_load == nullptr) {
    return "request.background_load is NULL but num_background_loads is not 0";
  }
  if (std::isnan(r.imbalance)) return "request.imbalance is NaN (0..1000, or < 0 for 0.05)";
  if (r.num_nodes < 0) return "request.num_nodes is negative";
  if (r.num_nodes > 0 && r.node_ids == nullptr) return "request.node_ids is NULL";
  return "";
}

// What hopmap_map_processes refuses: a balancing field away from its default.
std::string CheckNoBalance(const hopmap_map_request& r) {
  if (r.loads != nullptr) return "request.loads is set";
  if (r.current_slot != nullptr) return "request.current_slot is set";
  if (r.state_bytes != nullptr) return "request.state_bytes is set";
  if (r.fixed != nullptr) return "request.fixed is set";
  if (r.background_load != nullptr || r.num_background_loads != 0) {
    return "request.background_load is set";
  }
  if (r.imbalance >= 0) return absl::StrCat("request.imbalance is ", r.imbalance);
  if (r.max_migrations >= 0) return absl::StrCat("request.max_migrations is ", r.max_migrations);
  if (r.max_migration_bytes >= 0) {
    return absl::StrCat("request.max_migration_bytes is ", r.max_migration_bytes);
  }
  if (r.migration_cost != 0) return absl::StrCat("request.migration_cost is ", r.migration_cost);
  return "";
}

// The request as the CLI sends it: the machine, the allocation and the graph as
// the caller gave them (the daemon checks and names their fields), the rest as
// the core's SolveRequest, both through the converters.
hopmap::v1::MapRequest BuildRequest(const hopmap_map_request& r, bool balance_objects) {
  hopmap::v1::MapRequest request;
  hopmap::MachineRefToProto(hopmap::MachineRefFromText(r.machine), &request);
  hopmap::AllocationSpecToProto(
      std::span<const int32_t>(r.node_ids, static_cast<size_t>(r.num_nodes)),
      r.nodes != nullptr ? r.nodes : "", r.cores_per_node, request.mutable_allocation());

  const int32_t n = r.num_objects;
  const auto entries = static_cast<size_t>(r.xadj[n]);
  hopmap::CsrArraysToProto(std::span<const int64_t>(r.xadj, static_cast<size_t>(n) + 1),
                           std::span<const int32_t>(r.adjncy, entries),
                           r.adjwgt != nullptr ? std::span<const int64_t>(r.adjwgt, entries)
                                               : std::span<const int64_t>(),
                           request.mutable_graph());

  hopmap::SolveRequest solve;
  if (r.algorithm != nullptr) solve.algorithm = r.algorithm;
  solve.options.time_limit_seconds = r.time_limit_seconds;
  solve.options.seed = r.seed;  // 0 travels as 0: the daemon reads it as 1
  solve.options.threads = r.threads;
  if (balance_objects) {
    hopmap::BalanceRequest& balance = solve.balance.emplace();
    if (r.loads != nullptr) balance.loads.assign(r.loads, r.loads + n);
    if (r.current_slot != nullptr) balance.current_slot.assign(r.current_slot, r.current_slot + n);
    if (r.state_bytes != nullptr) balance.state_bytes.assign(r.state_bytes, r.state_bytes + n);
    if (r.fixed != nullptr) {
      balance.set_fixed(std::span<const uint8_t>(r.fixed, static_cast<size_t>(n)));
    }
    if (r.background_load != nullptr) {
      balance.background_load.assign(r.background_load, r.background_load + r.num_background_loads);
    }
    // Negative values mean the defaults, as in BalanceOptions.
    if (r.imbalance >= 0) balance.options.imbalance = r.imbalance;
    balance.options.max_migrations = std::max<int64_t>(r.max_migrations, -1);
    balance.options.max_migration_bytes = std::max<int64_t>(r.max_migration_bytes, -1);
    balance.options.migration_cost = r.migration_cost;
  }
  hopmap::SolveRequestToProto(solve, &request);
  return request;
}

// Fills `out` from the report; false when memory ran out (out is then freed).
bool FillResult(const hopmap::MappingReport& report, hopmap_map_result* out) {
  // A process mapping has no balance section: one process per slot is balanced.
  const hopmap::LoadBalanceReport no_balance;
  const hopmap::LoadBalanceReport& b = report.balance.has_value() ? *report.balance : no_balance;
  out->num_objects = static_cast<int32_t>(report.slot_of_task.size());
  out->slot_of_object = CopyArray(report.slot_of_task.data(), report.slot_of_task.size());
  out->node_of_object = CopyArray(report.node_of_task.data(), report.node_of_task.size());
  out->num_slots = static_cast<int64_t>(b.load_of_slot.size());
  out->load_of_slot = CopyArray(b.load_of_slot.data(), b.load_of_slot.size());
  out->hop_bytes = report.hop_bytes;
  out->baseline_hop_bytes = report.baseline_hop_bytes;
  out->lower_bound = report.lower_bound.value;
  out->avg_load = b.avg_load;
  out->max_load = b.max_load;
  out->balanced = !report.balance.has_value() || b.balanced ? 1 : 0;
  out->num_moves = static_cast<int32_t>(b.moves.size());
  const size_t moves = b.moves.size();
  out->move_object = static_cast<int32_t*>(std::malloc(moves == 0 ? 1 : moves * sizeof(int32_t)));
  out->move_from = static_cast<int32_t*>(std::malloc(moves == 0 ? 1 : moves * sizeof(int32_t)));
  out->move_to = static_cast<int32_t*>(std::malloc(moves == 0 ? 1 : moves * sizeof(int32_t)));
  if (out->move_object != nullptr && out->move_from != nullptr && out->move_to != nullptr) {
    for (size_t i = 0; i < moves; ++i) {
      out->move_object[i] = b.moves[i].task;
      out->move_from[i] = b.moves[i].from;
      out->move_to[i] = b.moves[i].to;
    }
  }
  out->migrated_bytes = b.migrated_bytes;
  out->solve_seconds = report.solve_seconds;
  out->algorithm = CopyString(report.algorithm);
  out->note = CopyString(b.note);
  if (out->slot_of_object == nullptr || out->node_of_object == nullptr ||
      out->load_of_slot == nullptr || out->move_object == nullptr || out->move_from == nullptr ||
      out->move_to == nullptr || out->algorithm == nullptr || out->note == nullptr) {
    hopmap_map_result_free(out);
    return false;
  }
  return true;
}

}  // namespace

extern "C" {

const char* hopmap_status_name(hopmap_status status) {
  static const char* const kNames[] = {"OK",
                                       "CANCELLED",
                                       "UNKNOWN",
                                       "INVALID_ARGUMENT",
                                       "DEADLINE_EXCEEDED",
                                       "NOT_FOUND",
                                       "ALREADY_EXISTS",
                                       "PERMISSION_DENIED",
                                       "RESOURCE_EXHAUSTED",
                                       "FAILED_PRECONDITION",
                                       "ABORTED",
                                       "OUT_OF_RANGE",
                                       "UNIMPLEMENTED",
                                       "INTERNAL",
                                       "UNAVAILABLE",
                                       "DATA_LOSS",
                                       "UNAUTHENTICATED"};
  const int i = static_cast<int>(status);
  return i >= 0 && i <= 16 ? kNames[i] : "UNKNOWN_STATUS";
}

void hopmap_free_string(char* s) { std::free(s); }

void hopmap_connect_options_init(hopmap_connect_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->connect_timeout_seconds = 5;
}

hopmap_status hopmap_connect(const hopmap_connect_options* options, hopmap_client** client,
                             char** error_message) {
  if (error_message != nullptr) *error_message = nullptr;
  if (client != nullptr) *client = nullptr;
  if (options == nullptr || client == nullptr) {
    return Fail(HOPMAP_INVALID_ARGUMENT, "hopmap_connect: options and client must not be NULL",
                error_message);
  }
  if (options->address == nullptr || options->address[0] == '\0') {
    return Fail(HOPMAP_INVALID_ARGUMENT, "hopmap_connect: options.address is required",
                error_message);
  }
  try {
    hopmap::client::ConnectOptions connect;
    connect.address = options->address;
    if (options->token != nullptr) connect.token = options->token;
    if (options->tls_ca_file != nullptr) connect.tls_ca_file = options->tls_ca_file;
    connect.connect_timeout_seconds = options->connect_timeout_seconds;
    absl::StatusOr<std::unique_ptr<hopmap::client::HopmapClient>> connected =
        hopmap::client::HopmapClient::Connect(connect);
    if (!connected.ok()) return FromAbsl(connected.status(), error_message);
    *client = new hopmap_client{*std::move(connected)};
    return HOPMAP_OK;
  } catch (const std::exception& e) {
    return Fail(HOPMAP_INTERNAL, absl::StrCat("hopmap_connect: ", e.what()), error_message);
  } catch (...) {
    return Fail(HOPMAP_INTERNAL, "hopmap_connect: unknown error", error_message);
  }
}

void hopmap_close(hopmap_client* client) { delete client; }

void hopmap_map_request_init(hopmap_map_request* request) {
  if (request == nullptr) return;
  std::memset(request, 0, sizeof(*request));
  request->imbalance = -1;
  request->max_migrations = -1;
  request->max_migration_bytes = -1;
}

}  // extern "C"

namespace {

// hopmap_map and hopmap_map_processes: `name` prefixes the messages.
hopmap_status Map(const char* name, bool balance_objects, hopmap_client* client,
                  const hopmap_map_request* request, hopmap_map_result* result,
                  char** error_message) {
  if (error_message != nullptr) *error_message = nullptr;
  if (result != nullptr) std::memset(result, 0, sizeof(*result));
  if (client == nullptr || request == nullptr || result == nullptr) {
    return Fail(HOPMAP_INVALID_ARGUMENT,
                absl::StrCat(name, ": client, request and result must not be NULL"), error_message);
  }
  try {
    std::string bad = CheckRequest(*request);
    if (bad.empty() && !balance_objects) bad = CheckNoBalance(*request);
    if (!bad.empty()) {
      return Fail(HOPMAP_INVALID_ARGUMENT, absl::StrCat(name, ": ", bad), error_message);
    }
    absl::StatusOr<hopmap::MappingReport> report =
        client->client->Map(BuildRequest(*request, balance_objects), request->deadline_seconds);
    if (!report.ok()) return FromAbsl(report.status(), error_message);
    if (!FillResult(*report, result)) {
      return Fail(HOPMAP_RESOURCE_EXHAUSTED, absl::StrCat(name, ": out of memory for the result"),
                  error_message);
    }
    return HOPMAP_OK;
  } catch (const std::exception& e) {
    return Fail(HOPMAP_INTERNAL, absl::StrCat(name, ": ", e.what()), error_message);
  } catch (...) {
    return Fail(HOPMAP_INTERNAL, absl::StrCat(name, ": unknown error"), error_message);
  }
}

}  // namespace

extern "C" {

hopmap_status hopmap_map(hopmap_client* client, const hopmap_map_request* request,
                         hopmap_map_result* result, char** error_message) {
  return Map("hopmap_map", /*balance_objects=*/true, client, request, result, error_message);
}

hopmap_status hopmap_map_processes(hopmap_client* client, const hopmap_map_request* request,
                                   hopmap_map_result* result, char** error_message) {
  return Map("hopmap_map_processes", /*balance_objects=*/false, client, request, result,
             error_message);
}

void hopmap_map_result_free(hopmap_map_result* result) {
  if (result == nullptr) return;
  std::free(result->slot_of_object);
  std::free(result->node_of_object);
  std::free(result->load_of_slot);
  std::free(result->move_object);
  std::free(result->move_from);
  std::free(result->move_to);
  std::free(result->algorithm);
  std::free(result->note);
  std::memset(result, 0, sizeof(*result));
}

}  // extern "C"
