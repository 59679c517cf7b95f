/* A 2D halo exchange (WRF-like), the MPI program the simulate --mpi tests run
 * under SMPI: ranks form a periodic PX x PY grid (rank = x + PX * y), and each
 * iteration every rank sends BYTES to each of its four neighbours and receives
 * theirs. Usage: halo2d PX PY BYTES ITERATIONS [WORK]. The graph of the same
 * exchange is `hopmap gen stencil2d-5 --dims PXxPY --wrap --bytes BYTES`. With WORK,
 * rank r first computes WORK x (1 + r % 4) multiply-adds per iteration (an uneven
 * load, for the tests of hopmap's compute profile). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5 && argc != 6) {
    if (rank == 0) fprintf(stderr, "usage: halo2d PX PY BYTES ITERATIONS [WORK]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int px = atoi(argv[1]), py = atoi(argv[2]);
  const int bytes = atoi(argv[3]), iterations = atoi(argv[4]);
  const long work = argc == 6 ? atol(argv[5]) * (1 + rank % 4) : 0;
  volatile double sink = 0;
  if (px < 1 || py < 1 || px * py != size || bytes < 1 || iterations < 1) {
    if (rank == 0)
      fprintf(stderr, "halo2d: PX x PY must be the %d ranks, BYTES and ITERATIONS > 0\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int x = rank % px, y = rank / px;
  const int neighbours[4] = {(x + 1) % px + px * y, (x + px - 1) % px + px * y,
                             x + px * ((y + 1) % py), x + px * ((y + py - 1) % py)};
  char* send = calloc((size_t)bytes, 1);
  char* receive = calloc((size_t)bytes * 4, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    double sum = 0;
    for (long k = 0; k < work; ++k) sum = sum * 0.999999 + (double)k;
    sink = sum;
    (void)sink;
    MPI_Request requests[8];
    for (int n = 0; n < 4; ++n) {
      MPI_Irecv(receive + (size_t)n * bytes, bytes, MPI_BYTE, neighbours[n], n ^ 1, MPI_COMM_WORLD,
                &requests[n]);
    }
    /* Tag n names the direction sent; the receiver expects it from the opposite side. */
    for (int n = 0; n < 4; ++n) {
      MPI_Isend(send, bytes, MPI_BYTE, neighbours[n], n, MPI_COMM_WORLD, &requests[4 + n]);
    }
    MPI_Waitall(8, requests, MPI_STATUSES_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("halo2d: %d ranks, %d iterations, %.9g s\n", size, iterations, elapsed);
  free(send);
  free(receive);
  MPI_Finalize();
  return 0;
}
