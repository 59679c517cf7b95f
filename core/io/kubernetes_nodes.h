// A GPU cluster (GpuClusterSpec, core/topology/gpu_cluster.h) from a Kubernetes node
// list (`kubectl get nodes -o json`) and the node labels that place each node, as
// Kueue's Topology Aware Scheduling reads them (levels such as
// cloud.google.com/gce-topology-block, cloud.google.com/gce-topology-subblock,
// kubernetes.io/hostname). docs/gpu.md, "Reading the cluster from Slurm or
// Kubernetes"; docs/formats.md, "Kubernetes node list".
#ifndef HOPMAP_CORE_IO_KUBERNETES_NODES_H_
#define HOPMAP_CORE_IO_KUBERNETES_NODES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/topology/gpu_cluster.h"

namespace hopmap {

// The extended resource the NVIDIA device plugin announces in status.capacity.
inline constexpr char kKubernetesGpuResource[] = "nvidia.com/gpu";

struct KubernetesNodesOptions {
  // The label whose value is the node's leaf group (`block-label=`).
  std::string block_label = "cloud.google.com/gce-topology-block";
  // The label whose value (within the node's block) is its NVLink domain
  // (`sub-block-label=`); empty: every host is its own domain.
  std::string sub_block_label;
  // The label whose value is the host's name (`host-label=`); a node without it, or
  // an empty key, takes metadata.name.
  std::string host_label = "kubernetes.io/hostname";
  // GPUs per host (`gpus=`); 0: each node's status.capacity["nvidia.com/gpu"], which
  // must then be the same on every node.
  int32_t gpus_per_host = 0;

  // block_label non-empty, gpus_per_host >= 0.
  [[nodiscard]] absl::Status Validate() const;
};

// The spec of the node list `json_text` (a List or NodeList with items[], or one
// Node). Hosts are the items in their order; leaf groups (named by the block
// label's value) and domains in the order of their first host. Label values are
// unique only within the level above (Kueue's convention), so a domain is a (block,
// sub-block) pair, named by the sub-block's value ("BLOCK/SUB" when that value is
// used in two blocks). A node without the block label (or the sub-block label, when
// given) is an error, not skipped: select the nodes to read with
// `kubectl get nodes -l LABEL -o json`. Errors: "SOURCE: items[3].metadata.labels:
// ..." (the JSON path), for bad JSON "SOURCE:LINE: ...". `fabric` is left at its
// defaults; `source` is "gpu-k8s:SOURCE" with the options that differ from the
// defaults.
absl::StatusOr<GpuClusterSpec> GpuClusterFromKubernetesNodes(const std::string& json_text,
                                                             const std::string& source,
                                                             const KubernetesNodesOptions& options);

// What the machine kind gpu-k8s:FILE[:block-label=K][:sub-block-label=K]
// [:host-label=K][:gpus=G] calls: the options checked, the file read, the spec built.
absl::StatusOr<GpuClusterSpec> ParseGpuK8sSpec(const std::string& path,
                                               const KubernetesNodesOptions& options);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_KUBERNETES_NODES_H_
