#include "core/topology/catalog.h"

namespace hopmap {

// Link bandwidths (bytes/s per direction) and latencies (seconds per link) are the
// real machines' published figures; docs/simulate.md lists each with its source.
const std::vector<CatalogEntry>& BuiltinCatalog() {
  static const std::vector<CatalogEntry>* catalog = new std::vector<CatalogEntry>{
      {"bgp-8x8x8", "torus:8x8x8:cores=4:link-bandwidth=425e6:link-latency=100e-9",
       "Blue Gene/P 512-node partition, 8x8x8 torus, 4 cores per node (as in LLNL boxfish's "
       "bgpc data)"},
      {"kraken", "torus:25x16x24:cores=12:link-bandwidth=4.8e9:link-latency=100e-9",
       "Cray XT5 Kraken-like 25x16x24 SeaStar torus, 12 cores per node (9600 nodes)"},
      {"tianhe3-proto", "chipmesh:4x4:nodes=96:link-bandwidth=1.75e9:link-latency=100e-9",
       "Tianhe-3 prototype (seed 004): 4x4 chips of 96 nodes in two halves, hop table "
       "1..6, one process per node"},
      {"fattree-64x64", "fattree:64x64:cores=16:link-bandwidth=12.5e9:link-latency=90e-9",
       "two-level fat tree: 64 leaf switches of 64 nodes (4096 nodes), 16 cores per node"},
      {"dragonfly-xc", "dragonfly:15,96,4:cores=24:link-bandwidth=5.25e9:link-latency=100e-9",
       "Cray XC-like dragonfly: 15 groups of 96 routers with 4 nodes each (5760 nodes), 24 "
       "cores per node"},
  };
  return *catalog;
}

const CatalogEntry* FindCatalogEntry(const std::string& name) {
  for (const CatalogEntry& entry : BuiltinCatalog()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

}  // namespace hopmap
