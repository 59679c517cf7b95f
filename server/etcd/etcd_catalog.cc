#include "server/etcd/etcd_catalog.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"

namespace hopmap::server {
namespace {

constexpr absl::string_view kScheme = "etcd://";
constexpr absl::string_view kMachines = "/machines/";
// Starts the errors of Write and Remove: clients tell them from a daemon they
// cannot reach by it (both are UNAVAILABLE).
constexpr absl::string_view kStoreError = "the shared catalog (";

std::chrono::system_clock::time_point DeadlineAfter(double seconds) {
  return std::chrono::system_clock::now() +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::chrono::duration<double>(seconds));
}

// The end of etcd's range of every key with `prefix`: the prefix with its last
// byte plus one.
std::string PrefixEnd(std::string prefix) {
  prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

bool PrefixSegmentChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
         c == '/';
}

}  // namespace

absl::StatusOr<EtcdUrl> ParseEtcdUrl(const std::string& url) {
  auto bad = [&url](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("--catalog '", url, "': ", why,
                                                   " (expected etcd://HOST:PORT/PREFIX, e.g. "
                                                   "etcd://127.0.0.1:2379/hopmap)"));
  };
  if (!absl::StartsWith(url, kScheme)) return bad("not an etcd:// URL");
  const std::string rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  if (slash == 0) return bad("no HOST:PORT");
  if (slash == std::string::npos) return bad("no PREFIX");
  EtcdUrl out;
  out.address = rest.substr(0, slash);
  if (out.address.find(':') == std::string::npos) return bad("no port");
  std::string prefix = rest.substr(slash);
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  if (prefix.size() <= 1) return bad("no PREFIX");
  for (char c : prefix) {
    if (!PrefixSegmentChar(c)) return bad("PREFIX has a character other than A-Z a-z 0-9 - _ . /");
  }
  out.prefix = prefix;
  return out;
}

EtcdCatalog::EtcdCatalog(EtcdUrl url, MachineCatalog* catalog, Log log, Options options)
    : url_(std::move(url)),
      key_prefix_(absl::StrCat(url_.prefix, kMachines)),
      key_range_end_(PrefixEnd(key_prefix_)),
      catalog_(catalog),
      log_(std::move(log)),
      options_(options) {
  grpc::ChannelArguments args;
  // Reconnect quickly after etcd restarts (gRPC's default backoff grows to 120 s).
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
              static_cast<int>(options_.max_backoff_seconds * 1000));
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  channel_ = grpc::CreateCustomChannel(url_.address, grpc::InsecureChannelCredentials(), args);
  kv_ = etcdserverpb::KV::NewStub(channel_);
  watch_ = etcdserverpb::Watch::NewStub(channel_);
}

EtcdCatalog::~EtcdCatalog() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (watch_context_ != nullptr) watch_context_->TryCancel();
    if (read_context_ != nullptr) read_context_->TryCancel();
  }
  if (watcher_.joinable()) watcher_.join();
}

std::string EtcdCatalog::Describe() const {
  return absl::StrCat("etcd ", url_.address, url_.prefix);
}

std::string EtcdCatalog::KeyOf(const std::string& name) const {
  return absl::StrCat(key_prefix_, name);
}

absl::Status EtcdCatalog::Start() {
  absl::StatusOr<int64_t> revision = ReadAll(options_.initial_timeout_seconds);
  if (!revision.ok()) return revision.status();
  catalog_->UseSharedStore(this);
  watcher_ = std::thread([this, r = *revision] { Run(r); });
  return absl::OkStatus();
}

absl::StatusOr<int64_t> EtcdCatalog::ReadAll(double timeout_seconds) {
  etcdserverpb::RangeRequest request;
  request.set_key(key_prefix_);
  request.set_range_end(key_range_end_);
  etcdserverpb::RangeResponse response;
  grpc::ClientContext context;
  context.set_deadline(DeadlineAfter(timeout_seconds));
  context.set_wait_for_ready(true);  // ride out a restarting etcd within the deadline
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::CancelledError("stopping");
    read_context_ = &context;  // the destructor cancels a read waiting for etcd
  }
  const grpc::Status s = kv_->Range(&context, request, &response);
  {
    absl::MutexLock lock(&mu_);
    read_context_ = nullptr;
  }
  if (!s.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot read the shared catalog from ", Describe(), ": ", s.error_message()));
  }
  const int64_t revision = response.header().revision();
  std::vector<std::string> names;
  for (const etcdserverpb::KeyValue& kv : response.kvs()) {
    names.push_back(kv.key().substr(key_prefix_.size()));
    Apply(kv, /*deleted=*/false, kv.mod_revision());
  }
  catalog_->RetainShared(names, revision);
  return revision;
}

void EtcdCatalog::Apply(const etcdserverpb::KeyValue& kv, bool deleted, int64_t revision) {
  if (!absl::StartsWith(kv.key(), key_prefix_)) return;
  const std::string name = kv.key().substr(key_prefix_.size());
  if (deleted) {
    catalog_->ApplySharedDelete(name, revision);
    return;
  }
  if (absl::Status s = catalog_->ApplySharedPut(name, kv.value(), revision); !s.ok()) {
    log_(absl::StrCat(Describe(), ": not served: ", s.message()));
  }
}

int64_t EtcdCatalog::WatchFrom(int64_t revision) {
  grpc::ClientContext context;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return revision;
    watch_context_ = &context;
  }
  std::unique_ptr<grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>>
      stream = watch_->Watch(&context);
  etcdserverpb::WatchRequest request;
  etcdserverpb::WatchCreateRequest* create = request.mutable_create_request();
  create->set_key(key_prefix_);
  create->set_range_end(key_range_end_);
  create->set_start_revision(revision + 1);
  create->set_progress_notify(true);
  etcdserverpb::WatchResponse response;
  if (stream->Write(request)) {
    while (stream->Read(&response)) {
      if (response.created() && !response.canceled()) watch_live_.store(true);
      if (response.canceled()) {
        // Compacted past our revision (or refused): read everything again.
        if (!stopping_) {
          log_(absl::StrCat(
              Describe(), ": watch canceled (",
              response.cancel_reason().empty() ? "compacted" : response.cancel_reason(),
              "); reading the catalog again"));
        }
        break;
      }
      for (const etcdserverpb::Event& event : response.events()) {
        const bool deleted = event.type() == etcdserverpb::Event::DELETE;
        Apply(event.kv(), deleted, event.kv().mod_revision());
        revision = std::max(revision, event.kv().mod_revision());
      }
      // Progress notifications carry the store's revision with no events.
      if (response.events_size() == 0 && !response.created()) {
        revision = std::max(revision, response.header().revision());
      }
    }
  }
  watch_live_.store(false);
  context.TryCancel();
  (void)stream->Finish();
  absl::MutexLock lock(&mu_);
  watch_context_ = nullptr;
  return revision;
}

void EtcdCatalog::Run(int64_t revision) {
  double backoff = 0.1;
  bool reported = false;
  while (!stopping_) {
    const absl::Time started = absl::Now();
    revision = WatchFrom(revision);
    if (stopping_) break;
    if (!reported) {
      log_(absl::StrCat(Describe(),
                        ": the watch ended; serving the catalog as it was, reconnecting"));
      reported = true;
    }
    if (absl::Now() - started > absl::Seconds(5)) backoff = 0.1;  // it had been up a while
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(
                               +[](std::atomic<bool>* stop) { return stop->load(); }, &stopping_),
                           absl::Seconds(backoff));
    }
    backoff = std::min(backoff * 2, options_.max_backoff_seconds);
    if (stopping_) break;
    // Catch up: what changed while the watch was down (or was compacted away).
    absl::StatusOr<int64_t> read = ReadAll(options_.call_timeout_seconds);
    if (read.ok()) {
      revision = *read;
      log_(absl::StrFormat("%s: caught up at revision %d", Describe(), revision));
      reported = false;
      backoff = 0.1;
    }
  }
}

absl::StatusOr<int64_t> EtcdCatalog::Write(const std::string& name, const std::string& json) {
  etcdserverpb::PutRequest request;
  request.set_key(KeyOf(name));
  request.set_value(json);
  etcdserverpb::PutResponse response;
  grpc::ClientContext context;
  context.set_deadline(DeadlineAfter(options_.call_timeout_seconds));
  const grpc::Status s = kv_->Put(&context, request, &response);
  if (!s.ok()) {
    return absl::UnavailableError(absl::StrCat(kStoreError, Describe(), ") cannot store machine '",
                                               name, "': ", s.error_message()));
  }
  return response.header().revision();
}

absl::StatusOr<int64_t> EtcdCatalog::Remove(const std::string& name) {
  etcdserverpb::DeleteRangeRequest request;
  request.set_key(KeyOf(name));
  etcdserverpb::DeleteRangeResponse response;
  grpc::ClientContext context;
  context.set_deadline(DeadlineAfter(options_.call_timeout_seconds));
  const grpc::Status s = kv_->DeleteRange(&context, request, &response);
  if (!s.ok()) {
    return absl::UnavailableError(absl::StrCat(kStoreError, Describe(), ") cannot remove machine '",
                                               name, "': ", s.error_message()));
  }
  return response.header().revision();
}

}  // namespace hopmap::server
