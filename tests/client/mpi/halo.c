/* A periodic halo exchange on a 2-D or 3-D Cartesian grid of all the ranks, for the
 * recording tests: `halo NX NY [NZ] ITERATIONS DOUBLES`. Every iteration, each rank
 * sends DOUBLES doubles to each of its 2 x ndims neighbours (dimension 0 with
 * MPI_Sendrecv, 1 with MPI_Isend, 2 with persistent requests), one int to each with
 * MPI_Neighbor_alltoall, and joins one MPI_Allreduce of one double. Once, after the
 * exchange: an MPI_Gather of one int to rank 0 (in place there), an MPI_Alltoall
 * of one int to each rank and an MPI_Ireduce_scatter_block of one int each. The grid
 * lives on a duplicate of MPI_COMM_WORLD, so the recorder must translate ranks. The
 * test (mpi_run_test.cc) knows these counts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: halo NX NY [NZ] ITERATIONS DOUBLES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int ndims = argc - 3;
  int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
  for (int d = 0; d < ndims; ++d) dims[d] = atoi(argv[1 + d]);
  const int iterations = atoi(argv[argc - 2]);
  const int doubles = atoi(argv[argc - 1]);
  MPI_Comm dup, grid;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Cart_create(dup, ndims, dims, periods, 0, &grid);
  int lower[3], upper[3];
  for (int d = 0; d < ndims; ++d) MPI_Cart_shift(grid, d, 1, &lower[d], &upper[d]);
  double* out = calloc((size_t)doubles * 2, sizeof(double));
  double* in = calloc((size_t)doubles * 2, sizeof(double));
  MPI_Request persistent[4];
  if (ndims == 3) {
    MPI_Send_init(out, doubles, MPI_DOUBLE, upper[2], 2, grid, &persistent[0]);
    MPI_Send_init(out + doubles, doubles, MPI_DOUBLE, lower[2], 3, grid, &persistent[1]);
    MPI_Recv_init(in, doubles, MPI_DOUBLE, lower[2], 2, grid, &persistent[2]);
    MPI_Recv_init(in + doubles, doubles, MPI_DOUBLE, upper[2], 3, grid, &persistent[3]);
  }
  int one[6] = {1, 1, 1, 1, 1, 1}, got[6];
  for (int it = 0; it < iterations; ++it) {
    MPI_Sendrecv(out, doubles, MPI_DOUBLE, upper[0], 0, in, doubles, MPI_DOUBLE, lower[0], 0, grid,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(out, doubles, MPI_DOUBLE, lower[0], 1, in, doubles, MPI_DOUBLE, upper[0], 1, grid,
                 MPI_STATUS_IGNORE);
    MPI_Request r[4];
    MPI_Irecv(in, doubles, MPI_DOUBLE, lower[1], 4, grid, &r[0]);
    MPI_Irecv(in + doubles, doubles, MPI_DOUBLE, upper[1], 5, grid, &r[1]);
    MPI_Isend(out, doubles, MPI_DOUBLE, upper[1], 4, grid, &r[2]);
    MPI_Isend(out + doubles, doubles, MPI_DOUBLE, lower[1], 5, grid, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    if (ndims == 3) {
      MPI_Startall(4, persistent);
      MPI_Waitall(4, persistent, MPI_STATUSES_IGNORE);
    }
    MPI_Neighbor_alltoall(one, 1, MPI_INT, got, 1, MPI_INT, grid);
    double x = 1, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
  }
  if (ndims == 3) {
    for (int i = 0; i < 4; ++i) MPI_Request_free(&persistent[i]);
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(grid, &rank);
  MPI_Comm_size(grid, &size);
  int mine = 1;
  int* gathered = calloc((size_t)size, sizeof(int));
  MPI_Gather(rank == 0 ? MPI_IN_PLACE : &mine, 1, MPI_INT, gathered, 1, MPI_INT, 0, grid);
  int* ones = calloc((size_t)size, sizeof(int));
  int* heard = calloc((size_t)size, sizeof(int));
  for (int i = 0; i < size; ++i) ones[i] = 1;
  MPI_Alltoall(ones, 1, MPI_INT, heard, 1, MPI_INT, grid);
  MPI_Request request;
  int reduced = 0;
  MPI_Ireduce_scatter_block(ones, &reduced, 1, MPI_INT, MPI_SUM, grid, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  free(gathered);
  free(ones);
  free(heard);
  free(out);
  free(in);
  MPI_Comm_free(&grid);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
