// The built-in machine catalog: named machines the CLI and the daemon know with no
// configuration.
#ifndef HOPMAP_CORE_TOPOLOGY_CATALOG_H_
#define HOPMAP_CORE_TOPOLOGY_CATALOG_H_

#include <string>
#include <vector>

namespace hopmap {

struct CatalogEntry {
  std::string name;         // what --machine accepts
  std::string spec;         // the machine spec string it stands for
  std::string description;  // one line for `hopmap machines`
};

const std::vector<CatalogEntry>& BuiltinCatalog();
// The entry named `name`, or nullptr.
const CatalogEntry* FindCatalogEntry(const std::string& name);

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_CATALOG_H_
