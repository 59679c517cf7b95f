// Reading a mapping back: the JSON report of `hopmap map` or the perm format.
#ifndef HOPMAP_CORE_IO_MAPPING_FILES_H_
#define HOPMAP_CORE_IO_MAPPING_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/allocation.h"

namespace hopmap {

// Reads a mapping: the JSON report (its slot_of_task) or the perm format (line i:
// the slot of task i; '#' comments and blank lines skipped). Errors name the file
// and line. With `allocation`, a JSON report made for another shape (its "nodes"
// and "cores_per_node") is refused: its slot numbers would mean other cores.
absl::StatusOr<std::vector<SlotId>> ReadMappingFile(const std::string& path,
                                                    const Allocation* allocation = nullptr);
absl::StatusOr<std::vector<SlotId>> ParseMapping(const std::string& text,
                                                 const std::string& source_name,
                                                 const Allocation* allocation = nullptr);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_MAPPING_FILES_H_
