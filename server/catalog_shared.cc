// MachineCatalog's side of a shared store (several replicas, one catalog): the
// changes a watcher of the store reports, ordered by the store's revisions.
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "proto/convert/convert.h"
#include "server/catalog.h"

namespace hopmap::server {

void MachineCatalog::UseSharedStore(SharedStore* store) { shared_store_ = store; }

void MachineCatalog::PublishShared(std::shared_ptr<CatalogEntry> entry) {
  const std::string name = entry->machine.name();
  absl::MutexLock lock(&mu_);
  if (auto removed = removed_at_.find(name);
      removed != removed_at_.end() && removed->second >= entry->shared_revision) {
    return;  // removed after this Put
  }
  if (auto it = entries_.find(name); it != entries_.end()) {
    const CatalogEntry& now = *it->second;
    if (now.origin != MachineOrigin::kStored) return;           // never shadow built-in/config
    if (now.shared_revision >= entry->shared_revision) return;  // older news
    // The same machine again (a replica's own Put coming back through the watch):
    // keep the entry, so the allocation cache keeps its version.
    if (google::protobuf::util::MessageDifferencer::Equals(now.machine, entry->machine)) {
      auto same = std::make_shared<CatalogEntry>(now);
      same->shared_revision = entry->shared_revision;
      it->second = std::move(same);
      return;
    }
  }
  entry->version = next_version_++;
  entries_[name] = std::move(entry);
  rejected_.erase(name);
  removed_at_.erase(name);
}

absl::Status MachineCatalog::ApplySharedPut(const std::string& name, const std::string& json,
                                            int64_t revision) {
  const std::string source = absl::StrCat("shared catalog entry '", name, "'");
  absl::Status problem;
  absl::StatusOr<v1::Machine> machine = MachineFromJson(json, source);
  std::shared_ptr<const Machine> model;
  if (!machine.ok()) {
    problem = machine.status();
  } else if (machine->name() != name) {
    problem = absl::InvalidArgumentError(
        absl::StrCat(source, ": holds machine '", machine->name(), "', not '", name, "'"));
  } else if (absl::Status s = ValidateMachineName(name); !s.ok()) {
    problem = absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
  } else if (absl::Status s = CheckMutable(name); !s.ok() && !absl::IsNotFound(s)) {
    problem = absl::FailedPreconditionError(absl::StrCat(source, ": ", s.message()));
  } else {
    absl::StatusOr<std::shared_ptr<const Machine>> built = MachineFromProto(*machine);
    if (!built.ok()) {
      problem = absl::InvalidArgumentError(absl::StrCat(source, ": ", built.status().message()));
    } else {
      model = *std::move(built);
    }
  }
  if (!problem.ok()) {
    // Not served; an older version of the name would be stale, so it goes too.
    if (!absl::IsFailedPrecondition(problem)) ApplySharedDelete(name, revision);
    return problem;
  }
  auto entry = std::make_shared<CatalogEntry>();
  entry->model = std::move(model);
  entry->origin = MachineOrigin::kStored;
  entry->machine = *std::move(machine);
  entry->shared_revision = revision;
  PublishShared(std::move(entry));
  return absl::OkStatus();
}

void MachineCatalog::ApplySharedDelete(const std::string& name, int64_t revision) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(name);
  if (it != entries_.end()) {
    if (it->second->origin != MachineOrigin::kStored) return;
    if (it->second->shared_revision > revision) return;  // put again since
    entries_.erase(it);
    ++removals_;
  }
  int64_t& at = removed_at_[name];
  at = std::max(at, revision);
}

void MachineCatalog::RetainShared(const std::vector<std::string>& names, int64_t revision) {
  const absl::flat_hash_set<std::string> keep(names.begin(), names.end());
  std::vector<std::string> gone;
  {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& [name, entry] : entries_) {
      if (entry->origin == MachineOrigin::kStored && !keep.contains(name)) gone.push_back(name);
    }
  }
  for (const std::string& name : gone) ApplySharedDelete(name, revision);
}

}  // namespace hopmap::server
