#include "server/catalog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/io/machine_files.h"
#include "core/topology/catalog.h"
#include "google/protobuf/util/json_util.h"
#include "proto/convert/convert.h"

namespace hopmap::server {
namespace {

namespace fs = std::filesystem;

constexpr absl::string_view kJsonSuffix = ".json";
constexpr absl::string_view kTmpSuffix = ".tmp";
constexpr absl::string_view kRejectedSuffix = ".rejected";

// Builds the model of a Machine message. MachineFromProto covers every kind but the
// two file-text kinds (switch_graph_file, distance_matrix_file), which are parsed
// here with the same text parsers the CLI's graph:/matrix: specs use. Torus dims
// are checked here first so the error names the element ("machine.torus.dims[1]")
// rather than the spec string MachineFromProto builds from them.
// TODO: move both into MachineFromProto (proto/convert), so inline machines in
// requests get the same; this helper then reduces to that call.
absl::StatusOr<std::shared_ptr<const Machine>> BuildModel(const v1::Machine& m) {
  absl::StatusOr<std::shared_ptr<Machine>> model = MachineFromProto(m);
  if (!model.ok()) return absl::InvalidArgumentError(model.status().message());
  return std::shared_ptr<const Machine>(*std::move(model));
}

// Keeps an echoed user string short in error messages.
std::string Shorten(const std::string& s) {
  constexpr size_t kMax = 80;
  if (s.size() <= kMax) return s;
  return absl::StrCat(s.substr(0, kMax), "...");
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot open"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot read"));
  return text.str();
}

// A failed write or sync of the state directory. Not ErrnoToStatus: its EACCES ->
// PermissionDenied and ENOENT -> NotFound would read, at the RPC edge, as a problem
// with the caller's token or machine name rather than with the daemon's disk.
absl::Status WriteError(int error_number, const std::string& what) {
  const std::string message = absl::StrCat(what, ": ", std::strerror(error_number));
  if (error_number == ENOSPC || error_number == EDQUOT) {
    return absl::ResourceExhaustedError(message);
  }
  return absl::InternalError(message);
}

absl::Status FsyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return WriteError(errno, absl::StrCat(dir, ": cannot open directory"));
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) return WriteError(saved, absl::StrCat(dir, ": fsync"));
  return absl::OkStatus();
}

// Writes `contents` to `dir`/`file_name` so that a crash at any moment leaves
// either the old file or the new one, never a torn one: write FILE.tmp, fsync it,
// rename it over FILE, fsync the directory (so the rename itself is durable).
absl::Status WriteFileAtomically(const std::string& dir, const std::string& file_name,
                                 const std::string& contents) {
  const std::string path = (fs::path(dir) / file_name).string();
  const std::string tmp = absl::StrCat(path, kTmpSuffix);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return WriteError(errno, absl::StrCat(tmp, ": cannot create"));
  auto fail = [&](const char* what) {
    const int saved = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return WriteError(saved, absl::StrCat(tmp, ": ", what));
  };
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write");
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("fsync");
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    return WriteError(saved, absl::StrCat(tmp, ": close"));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    return WriteError(saved, absl::StrCat("renaming ", tmp, " to ", path));
  }
  return FsyncDirectory(dir);
}

std::string MachinesDir(const std::string& state_dir) {
  return (fs::path(state_dir) / "machines").string();
}

}  // namespace

std::string MachineOriginName(MachineOrigin origin) {
  switch (origin) {
    case MachineOrigin::kBuiltin:
      return "builtin";
    case MachineOrigin::kConfig:
      return "config";
    case MachineOrigin::kStored:
      return "stored";
  }
  return "unknown";
}

absl::Status MachineCatalog::Insert(v1::Machine machine, MachineOrigin origin,
                                    const std::string& source) {
  if (absl::Status s = ValidateMachineName(machine.name()); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
  }
  absl::StatusOr<std::shared_ptr<const Machine>> model = BuildModel(machine);
  if (!model.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": machine '", machine.name(), "': ", model.status().message()));
  }
  auto entry = std::make_shared<CatalogEntry>();
  entry->model = *std::move(model);
  entry->origin = origin;
  entry->machine = std::move(machine);
  absl::MutexLock lock(&mu_);
  if (auto it = entries_.find(entry->machine.name()); it != entries_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": machine '", entry->machine.name(), "' is already defined (",
        MachineOriginName(it->second->origin),
        it->second->origin == MachineOrigin::kConfig ? absl::StrCat(" file ", config_path_) : "",
        "); choose another name"));
  }
  entry->version = next_version_++;
  const std::string name = entry->machine.name();
  entries_.emplace(name, std::move(entry));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<MachineCatalog>> MachineCatalog::Open(const std::string& config_path,
                                                                     const std::string& state_dir) {
  std::unique_ptr<MachineCatalog> catalog(new MachineCatalog());
  catalog->config_path_ = config_path;
  catalog->state_dir_ = state_dir;

  for (const hopmap::CatalogEntry& builtin : BuiltinCatalog()) {
    v1::Machine machine;
    machine.set_name(builtin.name);
    machine.set_description(builtin.description);
    machine.set_spec(builtin.spec);
    absl::StatusOr<std::shared_ptr<const Machine>> model = BuildModel(machine);
    if (!model.ok()) {
      return absl::InternalError(
          absl::StrCat("built-in machine '", builtin.name, "': ", model.status().message()));
    }
    machine.set_cores_per_node((*model)->cores_per_node());
    if (absl::Status s =
            catalog->Insert(std::move(machine), MachineOrigin::kBuiltin, "built-in catalog");
        !s.ok()) {
      return absl::InternalError(s.message());
    }
  }

  if (!config_path.empty()) {
    absl::StatusOr<std::string> text = ReadWholeFile(config_path);
    if (!text.ok()) return text.status();
    v1::CatalogConfig config;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;
    const auto parsed = google::protobuf::util::JsonStringToMessage(*text, &config, options);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          config_path, ": not a hopmap.v1.CatalogConfig in JSON: ", parsed.message().as_string()));
    }
    for (int i = 0; i < config.machines_size(); ++i) {
      if (absl::Status s =
              catalog->Insert(std::move(*config.mutable_machines(i)), MachineOrigin::kConfig,
                              absl::StrCat(config_path, ": machines[", i, "]"));
          !s.ok()) {
        return s;
      }
    }
  }

  if (!state_dir.empty()) {
    const std::string dir = MachinesDir(state_dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      return absl::FailedPreconditionError(
          absl::StrCat(dir, ": cannot create the state directory: ", ec.message()));
    }
    std::vector<std::string> json_files;
    bool removed_tmp = false;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string file_name = it->path().filename().string();
      if (absl::EndsWith(file_name, kTmpSuffix)) {
        // A write that crashed before its rename: the previous <name>.json (if any)
        // is still the committed version, so the leftover is dropped.
        std::error_code rm_ec;
        fs::remove(it->path(), rm_ec);
        removed_tmp = true;
        continue;
      }
      if (!absl::EndsWith(file_name, kJsonSuffix)) continue;
      std::error_code type_ec;
      if (!it->is_regular_file(type_ec)) continue;
      json_files.push_back(file_name);
    }
    if (ec) {
      return absl::FailedPreconditionError(absl::StrCat(dir, ": cannot list: ", ec.message()));
    }
    if (removed_tmp) (void)FsyncDirectory(dir);
    std::sort(json_files.begin(), json_files.end());
    for (const std::string& file_name : json_files) {
      const std::string path = (fs::path(dir) / file_name).string();
      const std::string stem = file_name.substr(0, file_name.size() - kJsonSuffix.size());
      if (absl::Status s = catalog->LoadStored(path, stem); !s.ok()) {
        catalog->Reject(path, stem, s);
      }
    }
  }
  return catalog;
}

absl::Status MachineCatalog::LoadStored(const std::string& path, const std::string& stem) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<v1::Machine> machine = MachineFromJson(*text, path);
  if (!machine.ok()) return machine.status();
  if (machine->name() != stem) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": holds machine '", Shorten(machine->name()),
                     "' but a stored machine's file must be named <name>.json"));
  }
  return Insert(*std::move(machine), MachineOrigin::kStored, path);
}

void MachineCatalog::Reject(const std::string& path, const std::string& stem,
                            const absl::Status& why) {
  // Never over an earlier rejected file: each one is the only copy of what a
  // client once stored.
  std::string aside = absl::StrCat(path, kRejectedSuffix);
  std::error_code ec;
  for (int i = 1; fs::exists(aside, ec) && i < 1000; ++i) {
    aside = absl::StrCat(path, kRejectedSuffix, ".", i);
  }
  std::string where;
  if (::rename(path.c_str(), aside.c_str()) == 0) {
    (void)FsyncDirectory(fs::path(path).parent_path().string());
    where = absl::StrCat("moved to ", aside);
  } else {
    where = absl::StrCat("left in place (cannot rename it: ", std::strerror(errno), ")");
  }
  std::string message = std::string(why.message());
  if (!absl::StrContains(message, path)) message = absl::StrCat(path, ": ", message);
  // One log line each: protobuf's JSON errors end with a newline and a caret.
  message = absl::StrReplaceAll(absl::StripAsciiWhitespace(message), {{"\n", " "}});
  absl::MutexLock lock(&mu_);
  rejected_[stem] = absl::StrCat(message, "; ", where);
}

std::vector<std::string> MachineCatalog::rejected() const {
  std::vector<std::string> lines;
  absl::ReaderMutexLock lock(&mu_);
  for (const auto& [name, why] : rejected_) lines.push_back(why);
  std::sort(lines.begin(), lines.end());
  return lines;
}

absl::StatusOr<std::shared_ptr<const CatalogEntry>> MachineCatalog::Get(
    const std::string& name) const {
  absl::ReaderMutexLock lock(&mu_);
  if (auto it = entries_.find(name); it != entries_.end()) return it->second;
  if (auto it = rejected_.find(name); it != rejected_.end()) {
    return absl::NotFoundError(absl::StrCat("machine '", name,
                                            "' is not served: its stored file was set aside "
                                            "when hopmapd started: ",
                                            it->second));
  }
  std::vector<std::string> names;
  names.reserve(entries_.size());
  for (const auto& [known, entry] : entries_) names.push_back(known);
  std::sort(names.begin(), names.end());
  return absl::NotFoundError(
      absl::StrCat("machine '", Shorten(name),
                   "' is not in the catalog (known machines: ", absl::StrJoin(names, ", "), ")"));
}

uint64_t MachineCatalog::version() const {
  absl::MutexLock lock(&mu_);
  return next_version_ - 1 + removals_;
}

std::vector<std::shared_ptr<const CatalogEntry>> MachineCatalog::List() const {
  std::vector<std::shared_ptr<const CatalogEntry>> list;
  {
    absl::ReaderMutexLock lock(&mu_);
    list.reserve(entries_.size());
    for (const auto& [name, entry] : entries_) list.push_back(entry);
  }
  std::sort(list.begin(), list.end(),
            [](const auto& a, const auto& b) { return a->machine.name() < b->machine.name(); });
  return list;
}

absl::Status MachineCatalog::CheckMutable(const std::string& name) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) return absl::NotFoundError(absl::StrCat("machine '", name, "'"));
  switch (it->second->origin) {
    case MachineOrigin::kBuiltin:
      return absl::FailedPreconditionError(absl::StrCat(
          "machine '", name, "' is built in and cannot be replaced or deleted; use another name"));
    case MachineOrigin::kConfig:
      return absl::FailedPreconditionError(
          absl::StrCat("machine '", name, "' comes from the config file ", config_path_,
                       " and cannot be replaced or deleted here; edit that file"));
    case MachineOrigin::kStored:
      break;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const CatalogEntry>> MachineCatalog::Put(v1::Machine machine) {
  if (absl::Status s = ValidateMachineName(machine.name()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<const Machine>> model = BuildModel(machine);
  if (!model.ok()) return model.status();

  // One writer at a time, so the file on disk and the published entry always agree
  // (two Puts of one name cannot interleave their write and publish). Readers only
  // take mu_, briefly, and are never held up by the fsyncs.
  absl::MutexLock write_lock(&write_mu_);
  if (absl::Status s = CheckMutable(machine.name()); !s.ok() && !absl::IsNotFound(s)) return s;
  auto entry = std::make_shared<CatalogEntry>();
  entry->model = *std::move(model);
  entry->origin = MachineOrigin::kStored;
  entry->machine = std::move(machine);
  const std::string name = entry->machine.name();
  if (shared_store_ != nullptr) {
    absl::StatusOr<int64_t> revision = shared_store_->Write(name, MachineToJson(entry->machine));
    if (!revision.ok()) return revision.status();
    entry->shared_revision = *revision;
    PublishShared(std::move(entry));
    // What the catalog serves now: this Put, or a newer change another replica made.
    absl::StatusOr<std::shared_ptr<const CatalogEntry>> now = Get(name);
    if (!now.ok()) {
      return absl::AbortedError(
          absl::StrCat("machine '", name, "' was removed by another replica meanwhile"));
    }
    return now;
  }
  if (!state_dir_.empty()) {
    if (absl::Status s =
            WriteFileAtomically(MachinesDir(state_dir_), absl::StrCat(name, kJsonSuffix),
                                MachineToJson(entry->machine));
        !s.ok()) {
      return s;
    }
  }
  absl::MutexLock lock(&mu_);
  entry->version = next_version_++;
  std::shared_ptr<const CatalogEntry> published = entry;
  entries_[name] = published;
  rejected_.erase(name);
  return published;
}

absl::Status MachineCatalog::Delete(const std::string& name) {
  absl::MutexLock write_lock(&write_mu_);
  if (absl::Status s = CheckMutable(name); !s.ok()) {
    if (absl::IsNotFound(s)) return Get(name).status();  // the message lists the names
    return s;
  }
  if (shared_store_ != nullptr) {
    absl::StatusOr<int64_t> revision = shared_store_->Remove(name);
    if (!revision.ok()) return revision.status();
    ApplySharedDelete(name, *revision);
    return absl::OkStatus();
  }
  if (!state_dir_.empty()) {
    const std::string dir = MachinesDir(state_dir_);
    const std::string path = (fs::path(dir) / absl::StrCat(name, kJsonSuffix)).string();
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return WriteError(errno, absl::StrCat(path, ": cannot remove"));
    }
    if (absl::Status s = FsyncDirectory(dir); !s.ok()) return s;
  }
  absl::MutexLock lock(&mu_);
  entries_.erase(name);
  ++removals_;
  return absl::OkStatus();
}

}  // namespace hopmap::server
