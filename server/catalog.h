// MachineCatalog: the machines hopmapd serves by name. Built-in entries, the
// --config file's machines, and the ones PutMachine stored (in the state directory,
// one JSON file each, written atomically so a crash never leaves a torn file).
#ifndef HOPMAP_SERVER_CATALOG_H_
#define HOPMAP_SERVER_CATALOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/topology/machine.h"
#include "hopmap/v1/machine.pb.h"

namespace hopmap::server {

enum class MachineOrigin { kBuiltin, kConfig, kStored };
std::string MachineOriginName(MachineOrigin origin);  // "builtin", "config", "stored"

// One catalog entry, immutable once published (callers keep a shared_ptr while
// they use it, so Put/Delete never pull a machine from under a running solve).
struct CatalogEntry {
  v1::Machine machine;                   // as given (name set)
  std::shared_ptr<const Machine> model;  // built from it
  MachineOrigin origin = MachineOrigin::kBuiltin;
  // Distinct for every Put of a name: cache keys use it, so a replaced machine
  // never serves a stale allocation.
  uint64_t version = 0;
  // With a shared store: the store's revision of this entry (orders the changes
  // every replica sees); 0 otherwise.
  int64_t shared_revision = 0;
};

// Where stored machines live when several replicas share them (etcd, server/etcd):
// Put and Delete write there instead of the state directory, and every replica's
// watcher of the store calls ApplySharedPut / ApplySharedDelete.
class SharedStore {
 public:
  virtual ~SharedStore() = default;
  // Stores a machine's JSON under its name; returns the store's revision of the write.
  virtual absl::StatusOr<int64_t> Write(const std::string& name, const std::string& json) = 0;
  // Removes it; returns the store's revision of the removal.
  virtual absl::StatusOr<int64_t> Remove(const std::string& name) = 0;
};

class MachineCatalog {
 public:
  // Loads the built-in catalog (core/topology/catalog.h), then `config_path` (a
  // CatalogConfig in JSON; empty: none), then every "*.json" machine in
  // `state_dir`/machines (empty: nothing is persisted). Config machines may not
  // reuse a built-in name (an error naming the file). Creates the state directory
  // if missing. Errors name the file.
  //
  // A stored file that cannot be served (unreadable, not a Machine, named after
  // another machine, a built-in or config name, a bad model) does not stop the
  // daemon: it is renamed to NAME.json.rejected (.1, .2, ... if taken), so it is
  // kept for the operator but not loaded again, and its name is recorded in
  // rejected() - Get() of that name then says why it is missing.
  static absl::StatusOr<std::unique_ptr<MachineCatalog>> Open(const std::string& config_path,
                                                              const std::string& state_dir);

  // NotFound naming the known machines.
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> Get(const std::string& name) const;
  // Sorted by name.
  std::vector<std::shared_ptr<const CatalogEntry>> List() const;

  // The stored files Open set aside, one line each naming the file, the reason
  // and where it went; in file-name order. Empty when every file loaded.
  std::vector<std::string> rejected() const;

  // Adds or replaces a stored machine. Validates the name (ValidateMachineName)
  // and the model (MachineFromProto). A built-in or config name: FailedPrecondition.
  // With a state directory, writes <state>/machines/<name>.json (temp file, fsync,
  // rename, fsync of the directory) before publishing; a write failure leaves the
  // catalog unchanged and returns the error.
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> Put(v1::Machine machine);

  // Removes a stored machine (and its file). Built-in/config: FailedPrecondition;
  // unknown: NotFound.
  absl::Status Delete(const std::string& name);

  [[nodiscard]] const std::string& state_dir() const { return state_dir_; }
  // How many times the catalog changed since it was opened (every machine loaded,
  // put, replaced or removed counts one): a change shows as a new value.
  [[nodiscard]] uint64_t version() const;

  // Makes Put and Delete write `store` (not owned; it must outlive every Put and
  // Delete) instead of the state directory, which must then be empty. Call before
  // serving.
  void UseSharedStore(SharedStore* store);
  // What a watcher of the shared store saw at `revision`: a machine stored or
  // replaced by any replica (its JSON), or removed. Changes older than what the
  // catalog has of that name are ignored, so the order in which a replica's own
  // Put and the watch deliver a change does not matter. An entry that cannot be
  // served (bad JSON or model, a name other than the key's, a built-in or config
  // name) is not published, and an older entry of that name is removed; the error
  // says why (the caller logs it).
  absl::Status ApplySharedPut(const std::string& name, const std::string& json, int64_t revision);
  void ApplySharedDelete(const std::string& name, int64_t revision);
  // After reading the whole store again at `revision` (a reconnect): stored
  // entries whose names are not in `names` were removed meanwhile.
  void RetainShared(const std::vector<std::string>& names, int64_t revision);

 private:
  MachineCatalog() = default;
  // Adds a built-in, config or stored machine while opening; `source` starts errors.
  absl::Status Insert(v1::Machine machine, MachineOrigin origin, const std::string& source)
      ABSL_LOCKS_EXCLUDED(mu_);
  // OK for a stored machine, NotFound for an unknown name, FailedPrecondition for a
  // built-in or config one.
  absl::Status CheckMutable(const std::string& name) const ABSL_LOCKS_EXCLUDED(mu_);
  // Opening a state directory: loads one stored file (named `stem`.json), or sets
  // it aside with the reason.
  absl::Status LoadStored(const std::string& path, const std::string& stem)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Reject(const std::string& path, const std::string& stem, const absl::Status& why)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Publishes a stored entry unless the catalog has a newer change of its name
  // (shared_revision, or a removal at a later revision). Takes mu_.
  void PublishShared(std::shared_ptr<CatalogEntry> entry) ABSL_LOCKS_EXCLUDED(mu_);

  std::string config_path_;
  std::string state_dir_;
  SharedStore* shared_store_ = nullptr;
  // Name -> the shared store's revision of its latest removal (so that a late
  // publish of an older Put does not bring a removed machine back).
  absl::flat_hash_map<std::string, int64_t> removed_at_ ABSL_GUARDED_BY(mu_);
  // Serialises Put/Delete (file write + publish) without holding readers up;
  // taken before mu_.
  absl::Mutex write_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const CatalogEntry>> entries_
      ABSL_GUARDED_BY(mu_);
  uint64_t next_version_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t removals_ ABSL_GUARDED_BY(mu_) = 0;  // for version()
  // Machine name (the file's stem) -> why its stored file was set aside at Open.
  // A later Put of the name clears it.
  absl::flat_hash_map<std::string, std::string> rejected_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_CATALOG_H_
