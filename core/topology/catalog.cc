#include "core/topology/catalog.h"

namespace hopmap {

// Link bandwidths (bytes/s per direction) and latencies (seconds per link) are the
// real machines' published figures; docs/simulate.md (docs/gpu.md for the GPU clusters)
// lists each with its source.
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
      // GPU clusters: the figures per GPU and direction, sources in docs/gpu.md.
      {"dgx-h100-superpod",
       "gpu:128:gpus=8:leaf=32:nvlink-bandwidth=450e9:rail-bandwidth=50e9:prefix=dgx:width=3",
       "DGX H100 SuperPOD: 4 scalable units of 32 hosts (128), 8 H100 each (NVLink 4, "
       "8 x 400 Gb/s rails), non-blocking spine"},
      {"gb200-nvl72-pod",
       "gpu:144:gpus=4:domain=18:leaf=144:nvlink-bandwidth=900e9:rail-bandwidth=50e9:prefix=tray:"
       "width=3",
       "GB200 NVL72: 8 racks of 18 trays of 4 GPUs (576), a 72-GPU NVLink 5 domain per rack, "
       "one 400 Gb/s NIC per GPU, one leaf group"},
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
