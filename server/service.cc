#include "server/service.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/balance/balancers.h"
#include "core/io/escape.h"
#include "core/solve/solve.h"
#include "nlohmann/json.hpp"
#include "proto/convert/convert.h"
#include "server/status_util.h"
#include "sim/runner.h"

namespace hopmap::server {
namespace {

// How often the watcher asks gRPC whether a call was cancelled.
constexpr absl::Duration kWatchInterval = absl::Milliseconds(20);
// The most mappings one Simulate call may hold (each is a simulation run).
constexpr int kMaxSimulatedMappings = 64;
// The most busiest links an Evaluate may ask for.
constexpr int kMaxBusiestLinks = 100'000;
// Longest value of a request field echoed into a log line.
constexpr size_t kMaxLogField = 80;

absl::Status FieldError(absl::string_view field, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", message));
}

// A request the core refused, named by the proto field it concerns.
absl::Status RequestFieldError(const RequestError& error) {
  const absl::string_view field =
      error.field == "initial" ? absl::string_view("initial_slot_of_task") : error.field;
  // A bad field is a bad argument, whatever the core's code (NotFound for a name).
  if (field.empty() || field == "options") {
    return absl::InvalidArgumentError(error.status.message());
  }
  return FieldError(field, error.status.message());
}

// The status of a call whose client went away during `work` ("solve",
// "simulation"): its deadline passed, or it was cancelled.
absl::Status CallEndedDuring(absl::Time deadline, absl::string_view work) {
  return absl::Now() >= deadline
             ? absl::DeadlineExceededError(
                   absl::StrCat("the call's deadline passed during the ", work))
             : absl::CancelledError(absl::StrCat("the call was cancelled during the ", work));
}

absl::Status OverLimit(absl::string_view what, int64_t value, int64_t limit,
                       absl::string_view flag) {
  return absl::ResourceExhaustedError(absl::StrCat(what, " ", value,
                                                   " is more than this server's limit of ", limit,
                                                   " (raise it with hopmapd ", flag, ")"));
}

// Equal strings, in time that depends only on their lengths (tokens).
bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

// FNV-1a, 64 bits: with absl::Hash a 128-bit fingerprint of an inline machine.
uint64_t Fnv1a(absl::string_view data) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string Shorten(absl::string_view s) {
  if (s.size() <= kMaxLogField) return std::string(s);
  return absl::StrCat(s.substr(0, kMaxLogField), "...");
}

// Log values have no spaces, so a line splits on them.
std::string LogValue(absl::string_view s) {
  if (s.empty()) return "-";
  std::string out = Shorten(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '_';
  }
  return out;
}

bool ValidClientRequestId(absl::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
          c == ':')) {
      return false;
    }
  }
  return true;
}

absl::Time DeadlineOf(const grpc::ServerContext& context) {
  const std::chrono::system_clock::time_point deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) return absl::InfiniteFuture();
  return absl::FromChrono(deadline);
}

struct GraphSize {
  int64_t tasks = 0;
  int64_t edges = 0;
};

// The size a graph message describes, from its array lengths alone.
GraphSize SizeOf(const v1::TaskGraph& g) {
  GraphSize size;
  const bool csr = !g.xadj().empty() || !g.adjncy().empty() || !g.adjwgt().empty();
  if (csr) {
    size.tasks = std::max<int64_t>(g.xadj_size() - 1, 0);
    size.edges = (std::max(g.adjncy_size(), g.adjwgt_size()) + int64_t{1}) / 2;
  } else {
    size.tasks = g.num_tasks();
    size.edges = std::max({g.edge_u_size(), g.edge_v_size(), g.edge_bytes_size()});
  }
  return size;
}

}  // namespace

void LogToStderr(const std::string& line) {
  // One line whatever a request, a stored file or etcd put in it.
  std::string out = EscapeControlCharacters(line);
  out.push_back('\n');
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
}

// One request being served. The watcher sets `cancelled` (and `client_gone`) when
// the client cancels or the deadline passes; CancelAll sets `cancelled`.
struct MapperService::Call {
  grpc::ServerContext* context = nullptr;
  std::string id;
  const char* method = "";
  absl::Time start;
  absl::Time deadline = absl::InfiniteFuture();
  std::atomic<bool> cancelled{false};    // stops the solve and the admission wait
  std::atomic<bool> client_gone{false};  // cancelled by the client or its deadline
  // For the log line.
  std::string machine;
  int64_t tasks = -1;
  std::string algorithm;
  std::optional<int64_t> hop_bytes;
  std::optional<double> improvement;  // over in-order, 0.25 = 25% fewer hop-bytes
  std::optional<bool> cache_hit;
  bool rejected = false;  // by admission control
};

// One background thread that polls the calls in flight every kWatchInterval and
// raises the cancellation flag of those gRPC says are cancelled or expired.
class MapperService::CallWatcher {
 public:
  CallWatcher() : thread_([this] { Loop(); }) {}
  ~CallWatcher() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
    }
    thread_.join();
  }

  void Add(Call* call) {
    absl::MutexLock lock(&mu_);
    calls_.insert(call);
    if (cancel_all_) call->cancelled.store(true);
  }
  // After Remove returns, the watcher no longer touches the call.
  void Remove(Call* call) {
    absl::MutexLock lock(&mu_);
    calls_.erase(call);
  }
  void CancelAll() {
    absl::MutexLock lock(&mu_);
    cancel_all_ = true;
    for (Call* call : calls_) call->cancelled.store(true);
  }
  int64_t size() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int64_t>(calls_.size());
  }

 private:
  void Loop() {
    absl::MutexLock lock(&mu_);
    auto has_work = [this]()
                        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || !calls_.empty(); };
    while (true) {
      mu_.Await(absl::Condition(&has_work));
      if (stop_) return;
      const absl::Time now = absl::Now();
      for (Call* call : calls_) {
        if (call->client_gone.load()) continue;
        // The lock keeps the call (and its context) alive while we ask.
        if (now >= call->deadline || call->context->IsCancelled()) {
          call->client_gone.store(true);
          call->cancelled.store(true);
        }
      }
      mu_.AwaitWithTimeout(absl::Condition(&stop_), kWatchInterval);
    }
  }

  mutable absl::Mutex mu_;
  absl::flat_hash_set<Call*> calls_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool cancel_all_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once the members above exist
};

// Registers a call with the watcher for its lifetime; Finish logs it and gives
// the gRPC status.
class MapperService::CallScope {
 public:
  CallScope(MapperService* service, grpc::ServerContext* context, const char* method)
      : service_(service) {
    call_.context = context;
    call_.method = method;
    call_.start = absl::Now();
    call_.deadline = DeadlineOf(*context);
    call_.id = service->NextRequestId(*context);
    service_->watcher_->Add(&call_);
  }
  ~CallScope() { service_->watcher_->Remove(&call_); }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  Call& call() { return call_; }

  grpc::Status Finish(const absl::Status& status) {
    grpc::Status result = ToGrpcStatus(status);
    const double seconds = absl::ToDoubleSeconds(absl::Now() - call_.start);
    // The message of `result` has its control characters escaped already.
    std::string message = result.error_message();
    if (message.size() > 300) message = absl::StrCat(message.substr(0, 300), "...");
    std::string line;
    if (service_->options_.log_json) {
      line = JsonLogLine(result, seconds, message);
    } else {
      line = absl::StrFormat(
          "hopmapd: request=%s method=%s peer=%s machine=%s tasks=%s algorithm=%s hop_bytes=%s "
          "seconds=%.3f status=%s",
          call_.id, call_.method, LogValue(call_.context->peer()), LogValue(call_.machine),
          call_.tasks >= 0 ? absl::StrCat(call_.tasks) : "-", LogValue(call_.algorithm),
          call_.hop_bytes ? absl::StrCat(*call_.hop_bytes) : "-", seconds,
          GrpcCodeName(result.error_code()));
      if (!status.ok()) absl::StrAppend(&line, " error=\"", message, "\"");
    }
    service_->log_(line);
    if (service_->observer_ != nullptr) {
      service_->observer_->OnCallFinished({.method = call_.method,
                                           .code = result.error_code(),
                                           .seconds = seconds,
                                           .tasks = call_.tasks,
                                           .improvement = call_.improvement,
                                           .cache_hit = call_.cache_hit,
                                           .rejected = call_.rejected});
    }
    return result;
  }

 private:
  // One object per request (--log-format json); values it does not have are null.
  std::string JsonLogLine(const grpc::Status& result, double seconds,
                          const std::string& message) const {
    nlohmann::ordered_json j;
    j["time"] = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", call_.start, absl::UTCTimeZone());
    j["request"] = call_.id;
    j["method"] = call_.method;
    j["peer"] = call_.context->peer();
    j["machine"] =
        call_.machine.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(call_.machine);
    j["tasks"] = call_.tasks >= 0 ? nlohmann::ordered_json(call_.tasks) : nlohmann::ordered_json();
    j["algorithm"] = call_.algorithm.empty() ? nlohmann::ordered_json()
                                             : nlohmann::ordered_json(call_.algorithm);
    j["status"] = GrpcCodeName(result.error_code());
    j["seconds"] = seconds;
    j["hop_bytes"] = call_.hop_bytes ? nlohmann::ordered_json(*call_.hop_bytes) : nullptr;
    j["improvement"] = call_.improvement ? nlohmann::ordered_json(*call_.improvement) : nullptr;
    if (!result.ok()) j["error"] = message;
    // Names and messages come from requests: bytes that are not UTF-8 are replaced
    // rather than failing the line.
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }

  MapperService* service_;
  Call call_;
};

struct MapperService::ResolvedMachine {
  std::shared_ptr<const Machine> model;
  std::string cache_key;  // "<name>#<version>" or "inline:<fingerprint>"
  std::string label;      // for the log
};

absl::StatusOr<std::unique_ptr<MapperService>> MapperService::Create(
    std::unique_ptr<MachineCatalog> catalog, ServiceOptions options, LogSink log) {
  if (catalog == nullptr) return absl::InvalidArgumentError("MapperService: no catalog");
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  return std::unique_ptr<MapperService>(
      new MapperService(std::move(catalog), std::move(options), std::move(log)));
}

MapperService::MapperService(std::unique_ptr<MachineCatalog> catalog, ServiceOptions options,
                             LogSink log)
    : options_(std::move(options)),
      catalog_(std::move(catalog)),
      cache_(options_.cache_bytes),
      admission_(options_.max_concurrent, options_.max_queued),
      log_(log ? std::move(log) : LogSink(LogToStderr)),
      watcher_(std::make_unique<CallWatcher>()),
      id_prefix_(std::random_device{}()) {}

MapperService::~MapperService() = default;

void MapperService::CancelAll() { watcher_->CancelAll(); }

int64_t MapperService::calls_in_flight() const { return watcher_->size(); }

std::string MapperService::NextRequestId(const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  if (auto it = metadata.find("x-request-id"); it != metadata.end()) {
    absl::string_view id(it->second.data(), it->second.size());
    if (ValidClientRequestId(id)) return std::string(id);
  }
  return absl::StrFormat("%08x-%d", id_prefix_, next_id_.fetch_add(1));
}

absl::Status MapperService::Authorize(const grpc::ServerContext& context, bool admin) const {
  if (options_.token.empty() && options_.admin_token.empty()) return absl::OkStatus();
  const auto& metadata = context.client_metadata();
  std::optional<absl::string_view> bearer;
  bool malformed = false;
  if (auto it = metadata.find("authorization"); it != metadata.end()) {
    absl::string_view value(it->second.data(), it->second.size());
    constexpr absl::string_view kScheme = "bearer ";
    if (value.size() > kScheme.size() && absl::StartsWithIgnoreCase(value, kScheme)) {
      bearer = absl::StripLeadingAsciiWhitespace(value.substr(kScheme.size()));
    } else {
      malformed = true;
    }
  }
  const bool is_admin =
      bearer && !options_.admin_token.empty() && ConstantTimeEquals(*bearer, options_.admin_token);
  const bool is_user =
      bearer && !options_.token.empty() && ConstantTimeEquals(*bearer, options_.token);
  if (!options_.token.empty() && !is_user && !is_admin) {
    if (malformed) {
      return absl::UnauthenticatedError(
          "metadata 'authorization' must be 'Bearer <token>' (hopmap --token)");
    }
    if (!bearer) {
      return absl::UnauthenticatedError(
          "this server needs a token: send metadata 'authorization: Bearer <token>' (hopmap "
          "--token)");
    }
    return absl::UnauthenticatedError("wrong token in metadata 'authorization'");
  }
  if (admin && !options_.admin_token.empty() && !is_admin) {
    return absl::PermissionDeniedError("catalog changes need the admin token");
  }
  return absl::OkStatus();
}

absl::Status MapperService::CheckGraphLimits(const v1::TaskGraph& graph, Call& call) const {
  const GraphSize size = SizeOf(graph);
  call.tasks = std::max<int64_t>(size.tasks, 0);
  if (size.tasks > options_.max_tasks) {
    return OverLimit("graph: tasks", size.tasks, options_.max_tasks, "--max-tasks");
  }
  if (size.edges > options_.max_edges) {
    return OverLimit("graph: edges", size.edges, options_.max_edges, "--max-edges");
  }
  return absl::OkStatus();
}

absl::StatusOr<MapperService::ResolvedMachine> MapperService::ResolveMachine(
    bool has_inline, const v1::Machine& inline_machine, const std::string& machine_name) const {
  ResolvedMachine resolved;
  if (has_inline) {
    absl::StatusOr<std::shared_ptr<Machine>> model = MachineFromProto(inline_machine);
    if (!model.ok()) return model.status();
    resolved.model = *std::move(model);
    const std::string bytes = inline_machine.SerializeAsString();
    resolved.cache_key =
        absl::StrFormat("inline:%016x%016x:%d", Fnv1a(bytes),
                        static_cast<uint64_t>(absl::Hash<std::string>{}(bytes)), bytes.size());
    resolved.label = inline_machine.name().empty() ? resolved.model->Spec()
                                                   : absl::StrCat("inline:", inline_machine.name());
  } else if (!machine_name.empty()) {
    absl::StatusOr<std::shared_ptr<const CatalogEntry>> entry = catalog_->Get(machine_name);
    if (!entry.ok()) return entry.status();
    resolved.model = (*entry)->model;
    resolved.cache_key = absl::StrCat(machine_name, "#", (*entry)->version);
    resolved.label = machine_name;
  } else {
    return FieldError("machine_name",
                      "required: name a catalog machine (machine_name) or send one (machine)");
  }
  if (resolved.model->num_nodes() > options_.max_machine_nodes) {
    return OverLimit("machine: nodes", resolved.model->num_nodes(), options_.max_machine_nodes,
                     "--max-machine-nodes");
  }
  return resolved;
}

absl::StatusOr<AllocationCache::Lookup> MapperService::GetAllocation(
    const ResolvedMachine& machine, const v1::AllocationSpec& spec) {
  if (spec.cores_per_node() < 0) {
    return FieldError("allocation.cores_per_node",
                      absl::StrCat("must be >= 0 (0: the machine's), got ", spec.cores_per_node()));
  }
  const int32_t cores =
      spec.cores_per_node() > 0 ? spec.cores_per_node() : machine.model->cores_per_node();
  // More listed nodes than the machine has must repeat one: refuse before copying.
  const int64_t listed = std::max(spec.node_ids_size(), spec.hostnames_size());
  if (listed > machine.model->num_nodes()) {
    return FieldError(spec.node_ids_size() > 0 ? "allocation.node_ids" : "allocation.hostnames",
                      absl::StrCat(listed, " nodes listed but the machine has only ",
                                   machine.model->num_nodes()));
  }
  absl::StatusOr<std::vector<NodeId>> nodes = AllocationNodesFromProto(spec, *machine.model);
  if (!nodes.ok()) return nodes.status();
  return cache_.GetOrCreate(machine.cache_key, machine.model, *nodes, cores);
}

int MapperService::SolveThreads(int requested) const {
  const int server = options_.threads;
  if (requested <= 0) return server;
  if (server > 0) return std::min(requested, server);
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  return hardware > 0 ? std::min(requested, hardware) : requested;
}

// What Map and Evaluate both need before they run: the machine resolved, a solve
// slot held, the graph built, the allocation from the cache.
struct MapperService::Problem {
  AdmissionGate::Ticket ticket;
  TaskGraph graph;
  AllocationCache::Lookup lookup;
};

absl::StatusOr<AdmissionGate::Ticket> MapperService::Admit(Call& call) {
  absl::StatusOr<AdmissionGate::Ticket> ticket = admission_.Acquire(call.deadline, &call.cancelled);
  // Refused at once (server busy), not cancelled or out of time while waiting.
  if (!ticket.ok()) call.rejected = absl::IsResourceExhausted(ticket.status());
  return ticket;
}

template <typename Request>
absl::StatusOr<MapperService::Problem> MapperService::PrepareProblem(Call& call,
                                                                     const Request& request) {
  absl::StatusOr<ResolvedMachine> machine =
      ResolveMachine(request.has_machine(), request.machine(), request.machine_name());
  if (!machine.ok()) return machine.status();
  call.machine = machine->label;

  absl::StatusOr<AdmissionGate::Ticket> ticket = Admit(call);
  if (!ticket.ok()) return ticket.status();

  absl::StatusOr<TaskGraph> graph = TaskGraphFromProto(request.graph());
  if (!graph.ok()) return graph.status();
  call.tasks = graph->num_tasks();
  absl::StatusOr<AllocationCache::Lookup> lookup = GetAllocation(*machine, request.allocation());
  if (!lookup.ok()) return lookup.status();
  call.cache_hit = lookup->hit;
  return Problem{*std::move(ticket), *std::move(graph), *std::move(lookup)};
}

absl::Status MapperService::DoMap(Call& call, const v1::MapRequest& request, v1::MapReply* reply,
                                  const std::function<void(const v1::Progress&)>& on_progress) {
  if (absl::Status s = Authorize(*call.context, false); !s.ok()) return s;

  // Everything cheap first: the options, then sizes from the array lengths.
  absl::StatusOr<SolveRequest> solve = SolveRequestFromProto(request);
  if (!solve.ok()) return solve.status();
  call.algorithm = solve->algorithm;
  if (std::optional<RequestError> bad = CheckSolveOptions(*solve)) return RequestFieldError(*bad);
  solve->options.threads = SolveThreads(solve->options.threads);
  double time_limit = solve->options.time_limit_seconds;
  if (time_limit == 0) time_limit = options_.default_time_limit_seconds;
  if (absl::Status s = CheckGraphLimits(request.graph(), call); !s.ok()) return s;
  absl::StatusOr<Problem> problem = PrepareProblem(call, request);
  if (!problem.ok()) return problem.status();
  const AllocationCache::Lookup* lookup = &problem->lookup;
  solve->graph = &problem->graph;
  solve->allocation = lookup->allocation.get();
  // The options were checked above: the rest of the request's rules, once.
  if (std::optional<RequestError> bad = CheckSolveInputs(*solve)) return RequestFieldError(*bad);
  if (time_limit == 0) time_limit = DefaultSolveTimeLimitSeconds(*solve);
  time_limit = std::min(time_limit, options_.max_time_limit_seconds);

  // The budget ends early enough for the reply to arrive before the deadline.
  if (call.deadline != absl::InfiniteFuture()) {
    const absl::Duration remaining = call.deadline - absl::Now();
    const absl::Duration margin = std::max(absl::Milliseconds(50), remaining / 20);
    const double budget = absl::ToDoubleSeconds(remaining - margin);
    if (budget < 0.001) {
      return absl::DeadlineExceededError(
          absl::StrFormat("the call's deadline leaves no time to solve (%.3f s left)",
                          absl::ToDoubleSeconds(remaining)));
    }
    time_limit = std::min(time_limit, budget);
  }
  solve->options.time_limit_seconds = time_limit;

  SolveControl control;
  control.cancelled = &call.cancelled;
  if (on_progress) {
    control.on_progress = [&on_progress](const Progress& p) {
      v1::Progress message;
      ProgressToProto(p, &message);
      on_progress(message);
    };
  }
  absl::StatusOr<MappingReport> report = SolveCheckedRequest(*solve, control);
  if (call.client_gone.load()) return CallEndedDuring(call.deadline, "solve");
  if (!report.ok()) return report.status();
  call.hop_bytes = report->hop_bytes;
  call.improvement = report->improvement;
  ReportToProto(*report, reply);
  reply->set_cache_hit(lookup->hit);
  reply->set_request_id(call.id);
  return absl::OkStatus();
}

absl::Status MapperService::DoEvaluate(Call& call, const v1::EvaluateRequest& request,
                                       v1::MapReply* reply) {
  if (absl::Status s = Authorize(*call.context, false); !s.ok()) return s;
  call.algorithm = "given";
  absl::StatusOr<EvaluateRequest> evaluate = EvaluateRequestFromProto(request);
  if (!evaluate.ok()) return evaluate.status();
  if (request.busiest_links() < 0 || request.busiest_links() > kMaxBusiestLinks) {
    return FieldError("busiest_links", absl::StrCat("must be in [0, ", kMaxBusiestLinks, "], got ",
                                                    request.busiest_links()));
  }
  if (absl::Status s = CheckGraphLimits(request.graph(), call); !s.ok()) return s;
  if (request.slot_of_task_size() > options_.max_tasks) {
    return OverLimit("slot_of_task: entries", request.slot_of_task_size(), options_.max_tasks,
                     "--max-tasks");
  }
  absl::StatusOr<Problem> problem = PrepareProblem(call, request);
  if (!problem.ok()) return problem.status();
  const AllocationCache::Lookup* lookup = &problem->lookup;
  evaluate->graph = &problem->graph;
  evaluate->allocation = lookup->allocation.get();
  evaluate->threads = SolveThreads(0);
  if (std::optional<RequestError> bad = CheckEvaluateRequest(*evaluate)) {
    return RequestFieldError(*bad);
  }
  absl::StatusOr<MappingReport> report = hopmap::Evaluate(*evaluate);
  if (!report.ok()) return report.status();
  call.hop_bytes = report->hop_bytes;
  call.improvement = report->improvement;
  ReportToProto(*report, reply);
  reply->set_cache_hit(lookup->hit);
  reply->set_request_id(call.id);
  return absl::OkStatus();
}

absl::Status MapperService::DoSimulate(Call& call, const v1::SimulateRequest& request,
                                       v1::SimulateReply* reply) {
  if (absl::Status s = Authorize(*call.context, false); !s.ok()) return s;
  call.algorithm = "simulate";
  absl::StatusOr<SimulateRequest> simulate = SimulateRequestFromProto(request);
  if (!simulate.ok()) return simulate.status();
  if (request.mappings_size() > kMaxSimulatedMappings) {
    return FieldError("mappings",
                      absl::StrCat("at most ", kMaxSimulatedMappings, " mappings in one call, got ",
                                   request.mappings_size()));
  }
  if (absl::Status s = CheckGraphLimits(request.graph(), call); !s.ok()) return s;
  for (const v1::SimulatedMapping& m : request.mappings()) {
    if (m.slot_of_task_size() > options_.max_tasks) {
      return OverLimit("mappings.slot_of_task: entries", m.slot_of_task_size(), options_.max_tasks,
                       "--max-tasks");
    }
  }
  absl::StatusOr<Problem> problem = PrepareProblem(call, request);
  if (!problem.ok()) return problem.status();
  simulate->graph = &problem->graph;
  simulate->allocation = problem->lookup.allocation.get();
  simulate->threads = SolveThreads(0);
  if (std::optional<RequestError> bad = CheckSimulateRequest(*simulate)) {
    return RequestFieldError(*bad);
  }
  // The worker is looked up per call: an installation may add it while the daemon runs.
  absl::StatusOr<std::string> worker = sim::FindSimGridWorker();
  if (!worker.ok()) return absl::FailedPreconditionError(worker.status().message());
  absl::StatusOr<SimulationReport> report =
      hopmap::Simulate(*simulate, sim::SimGridSimulator(*worker, &call.cancelled));
  if (call.client_gone.load()) return CallEndedDuring(call.deadline, "simulation");
  if (!report.ok()) return report.status();
  SimulationReportToProto(*report, reply);
  reply->set_request_id(call.id);
  return absl::OkStatus();
}

absl::Status MapperService::DoAnalyze(Call& call, const v1::AnalyzeRequest& request,
                                      v1::AnalyzeReply* reply) {
  if (absl::Status s = Authorize(*call.context, false); !s.ok()) return s;
  if (absl::Status s = CheckGraphLimits(request.graph(), call); !s.ok()) return s;
  absl::StatusOr<AdmissionGate::Ticket> ticket = Admit(call);
  if (!ticket.ok()) return ticket.status();
  absl::StatusOr<TaskGraph> graph = TaskGraphFromProto(request.graph());
  if (!graph.ok()) return graph.status();
  call.tasks = graph->num_tasks();
  // As for Map: a graph without a task is no job (the CLI's readers refuse it too).
  if (std::optional<RequestError> bad = CheckGraphHasTasks(*graph)) return RequestFieldError(*bad);
  const AnalyzerOptions options = AnalyzerOptionsFromProto(request);
  if (absl::Status s = options.Validate(); !s.ok())
    return FieldError("weight_threshold", s.message());
  absl::StatusOr<PatternReport> pattern = AnalyzePattern(*graph, options);
  if (!pattern.ok()) return pattern.status();
  AnalysisToProto(ComputeGraphStatistics(*graph), *pattern, reply);
  return absl::OkStatus();
}

absl::Status MapperService::DoPutMachine(Call& call, const v1::PutMachineRequest& request,
                                         v1::Machine* reply) {
  if (absl::Status s = Authorize(*call.context, true); !s.ok()) return s;
  if (!request.has_machine()) return FieldError("machine", "required");
  const v1::Machine& machine = request.machine();
  call.machine = Shorten(machine.name());
  if (absl::Status s = ValidateMachineName(machine.name()); !s.ok()) return s;
  // Built once here to bound its size before the catalog keeps it.
  absl::StatusOr<std::shared_ptr<Machine>> model = MachineFromProto(machine);
  if (!model.ok()) return model.status();
  if ((*model)->num_nodes() > options_.max_machine_nodes) {
    return OverLimit("machine: nodes", (*model)->num_nodes(), options_.max_machine_nodes,
                     "--max-machine-nodes");
  }
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> entry = catalog_->Put(machine);
  if (!entry.ok()) return entry.status();
  // Allocations of the replaced version must never serve again.
  cache_.EraseMachine(machine.name());
  *reply = (*entry)->machine;
  return absl::OkStatus();
}

absl::Status MapperService::DoDeleteMachine(Call& call, const v1::DeleteMachineRequest& request) {
  if (absl::Status s = Authorize(*call.context, true); !s.ok()) return s;
  if (request.name().empty()) return FieldError("name", "required");
  call.machine = Shorten(request.name());
  if (absl::Status s = catalog_->Delete(request.name()); !s.ok()) return s;
  cache_.EraseMachine(request.name());
  return absl::OkStatus();
}

grpc::Status MapperService::Map(grpc::ServerContext* context, const v1::MapRequest* request,
                                v1::MapReply* reply) {
  CallScope scope(this, context, "Map");
  return scope.Finish(DoMap(scope.call(), *request, reply, nullptr));
}

grpc::Status MapperService::MapStream(grpc::ServerContext* context, const v1::MapRequest* request,
                                      grpc::ServerWriter<v1::MapProgress>* writer) {
  CallScope scope(this, context, "MapStream");
  Call& call = scope.call();
  // Progress comes from a solver thread, the result from this one: one writer at
  // a time, and nothing after a failed write.
  absl::Mutex write_mu;
  bool write_failed = false;
  auto write = [&](const v1::MapProgress& message) {
    absl::MutexLock lock(&write_mu);
    if (write_failed) return false;
    if (!writer->Write(message)) {
      write_failed = true;
      call.client_gone.store(true);
      call.cancelled.store(true);
      return false;
    }
    return true;
  };
  auto on_progress = [&](const v1::Progress& progress) {
    v1::MapProgress message;
    *message.mutable_progress() = progress;
    write(message);
  };
  v1::MapProgress result;
  absl::Status status = DoMap(call, *request, result.mutable_result(), on_progress);
  if (status.ok() && !write(result)) {
    status = absl::CancelledError("the client stopped reading the stream");
  }
  return scope.Finish(status);
}

grpc::Status MapperService::Evaluate(grpc::ServerContext* context,
                                     const v1::EvaluateRequest* request, v1::MapReply* reply) {
  CallScope scope(this, context, "Evaluate");
  return scope.Finish(DoEvaluate(scope.call(), *request, reply));
}

grpc::Status MapperService::Simulate(grpc::ServerContext* context,
                                     const v1::SimulateRequest* request, v1::SimulateReply* reply) {
  CallScope scope(this, context, "Simulate");
  return scope.Finish(DoSimulate(scope.call(), *request, reply));
}

grpc::Status MapperService::Analyze(grpc::ServerContext* context, const v1::AnalyzeRequest* request,
                                    v1::AnalyzeReply* reply) {
  CallScope scope(this, context, "Analyze");
  return scope.Finish(DoAnalyze(scope.call(), *request, reply));
}

grpc::Status MapperService::ListMachines(grpc::ServerContext* context,
                                         const v1::ListMachinesRequest* /*request*/,
                                         v1::ListMachinesReply* reply) {
  CallScope scope(this, context, "ListMachines");
  if (absl::Status s = Authorize(*context, false); !s.ok()) return scope.Finish(s);
  for (const std::shared_ptr<const CatalogEntry>& entry : catalog_->List()) {
    *reply->add_machines() =
        MachineSummaryToProto(entry->machine.name(), entry->machine.description(),
                              MachineOriginName(entry->origin), *entry->model);
  }
  return scope.Finish(absl::OkStatus());
}

grpc::Status MapperService::ListAlgorithms(grpc::ServerContext* context,
                                           const v1::ListAlgorithmsRequest* /*request*/,
                                           v1::ListAlgorithmsReply* reply) {
  CallScope scope(this, context, "ListAlgorithms");
  if (absl::Status s = Authorize(*context, false); !s.ok()) return scope.Finish(s);
  *reply = BuiltinAlgorithms();
  return scope.Finish(absl::OkStatus());
}

grpc::Status MapperService::GetMachine(grpc::ServerContext* context,
                                       const v1::GetMachineRequest* request, v1::Machine* reply) {
  CallScope scope(this, context, "GetMachine");
  scope.call().machine = Shorten(request->name());
  if (absl::Status s = Authorize(*context, false); !s.ok()) return scope.Finish(s);
  if (request->name().empty()) return scope.Finish(FieldError("name", "required"));
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> entry = catalog_->Get(request->name());
  if (!entry.ok()) return scope.Finish(entry.status());
  *reply = (*entry)->machine;
  return scope.Finish(absl::OkStatus());
}

grpc::Status MapperService::PutMachine(grpc::ServerContext* context,
                                       const v1::PutMachineRequest* request, v1::Machine* reply) {
  CallScope scope(this, context, "PutMachine");
  return scope.Finish(DoPutMachine(scope.call(), *request, reply));
}

grpc::Status MapperService::DeleteMachine(grpc::ServerContext* context,
                                          const v1::DeleteMachineRequest* request,
                                          v1::DeleteMachineReply* /*reply*/) {
  CallScope scope(this, context, "DeleteMachine");
  return scope.Finish(DoDeleteMachine(scope.call(), *request));
}

}  // namespace hopmap::server
