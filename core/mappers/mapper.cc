#include "core/mappers/mapper.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {

absl::string_view MapperInputName(MapperInput input) {
  switch (input) {
    case MapperInput::kAnyGraph:
      return "any-graph";
    case MapperInput::kGrid:
      return "grid";
    case MapperInput::kGrid2dOnMesh:
      return "grid2d-on-mesh";
    case MapperInput::kSmallGraph:
      return "small-graph";
  }
  return "any-graph";
}

absl::Status MapperRegistry::Register(MapperInfo info) {
  if (info.name.empty()) return absl::InvalidArgumentError("mapper registered without a name");
  if (Find(info.name) != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat("mapper '", info.name, "' registered twice"));
  }
  mappers_.push_back(std::move(info));
  return absl::OkStatus();
}

const MapperInfo* MapperRegistry::Find(absl::string_view name) const {
  for (const MapperInfo& info : mappers_) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<Mapper>> MapperRegistry::Create(absl::string_view name) const {
  const MapperInfo* info = Find(name);
  if (info == nullptr) {
    std::vector<std::string> names;
    for (const MapperInfo& m : mappers_) names.push_back(m.name);
    return absl::NotFoundError(
        absl::StrCat("unknown algorithm '", name, "' (known: ", absl::StrJoin(names, ", "), ")"));
  }
  return info->create();
}

}  // namespace hopmap
