// <mpi.h> without the deprecated C++ bindings (the library is C++ but wraps the C
// interface), and the small queries and gathers both halves of the library make.
#ifndef HOPMAP_CLIENT_MPI_MPI_HEADER_H_
#define HOPMAP_CLIENT_MPI_MPI_HEADER_H_

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hopmap::mpi {

// This process's rank in `comm`, and `comm`'s size (PMPI: never recorded).
inline int CommRank(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}
inline int CommSize(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

// Gathers every process's `mine` (of MPI type `type`) at rank 0 of comm (PMPI: never
// recorded): their concatenation in rank order, and in *counts how many each gave.
// Other ranks get nothing back.
template <typename T>
std::vector<T> GatherAtRoot(MPI_Comm comm, const std::vector<T>& mine, MPI_Datatype type,
                            std::vector<int>* counts) {
  const int size = CommSize(comm);
  const bool root = CommRank(comm) == 0;
  const int count = static_cast<int>(mine.size());
  counts->assign(root ? size : 0, 0);
  PMPI_Gather(&count, 1, MPI_INT, counts->data(), 1, MPI_INT, 0, comm);
  std::vector<int> displacements(counts->size(), 0);
  int64_t total = 0;
  for (size_t i = 0; i < counts->size(); ++i) {
    displacements[i] = static_cast<int>(total);
    total += (*counts)[i];
  }
  std::vector<T> all(static_cast<size_t>(total) + 1);  // + 1: never a null buffer
  PMPI_Gatherv(mine.data(), count, type, all.data(), counts->data(), displacements.data(), type, 0,
               comm);
  all.resize(static_cast<size_t>(total));
  return all;
}

// Every process's string at rank 0, in rank order (empty elsewhere).
inline std::vector<std::string> GatherStrings(MPI_Comm comm, const std::string& mine) {
  std::vector<int> lengths;
  const std::vector<char> all =
      GatherAtRoot(comm, std::vector<char>(mine.begin(), mine.end()), MPI_CHAR, &lengths);
  std::vector<std::string> strings;
  size_t at = 0;
  for (int length : lengths) {
    strings.emplace_back(all.data() + at, static_cast<size_t>(length));
    at += static_cast<size_t>(length);
  }
  return strings;
}

}  // namespace hopmap::mpi

#endif  // HOPMAP_CLIENT_MPI_MPI_HEADER_H_
