/* One pair of ranks, rank 0 streaming to rank 1 (an osu_mbw_mr-style window):
 * `mpi_rate BYTES WINDOW ITERATIONS [BLOCKS]`. Each iteration rank 0 posts WINDOW
 * MPI_Isend of BYTES bytes and rank 1 WINDOW MPI_Irecv; both wait, then rank 1
 * acknowledges with a zero-byte MPI_Send. After ITERATIONS / 10 warm-up iterations,
 * BLOCKS (default 10) timed blocks of ITERATIONS each; rank 0 prints the best block
 * as "messages_per_second M bytes_per_second B" (the best of several is what the
 * code can do; a block that another process interrupted is not). With a fifth
 * argument `pcontrol`, the blocks alternate MPI_Pcontrol(1) and MPI_Pcontrol(0)
 * (libhopmap_mpi: recording on, paused) and the line gives the best of each:
 * "on_messages_per_second M off_messages_per_second N". bench/mpi_overhead.sh runs
 * it with and without libhopmap_mpi's recording. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run(int rank, char* buffer, int bytes, int window, int iterations,
                MPI_Request* requests) {
  for (int it = 0; it < iterations; ++it) {
    if (rank == 0) {
      for (int w = 0; w < window; ++w) {
        MPI_Isend(buffer + (size_t)w * bytes, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &requests[w]);
      }
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int w = 0; w < window; ++w) {
        MPI_Irecv(buffer + (size_t)w * bytes, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &requests[w]);
      }
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4 || argc > 6 || size != 2) {
    if (rank == 0) {
      fprintf(stderr, "usage: mpirun -np 2 mpi_rate BYTES WINDOW ITERATIONS [BLOCKS [pcontrol]]\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int bytes = atoi(argv[1]), window = atoi(argv[2]), iterations = atoi(argv[3]);
  const int blocks = argc >= 5 ? atoi(argv[4]) : 10;
  const int alternate = argc == 6 && strcmp(argv[5], "pcontrol") == 0;
  char* buffer = calloc((size_t)bytes * window + 1, 1);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * window);
  run(rank, buffer, bytes, window, iterations / 10 + 1, requests);
  double seconds = 0, best[2] = {0, 0};
  for (int b = 0; b < blocks; ++b) {
    if (alternate) MPI_Pcontrol(b % 2 == 0 ? 1 : 0);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    run(rank, buffer, bytes, window, iterations, requests);
    const double took = MPI_Wtime() - start;
    if (b == 0 || took < seconds) seconds = took;
    if (b < 2 || took < best[b % 2]) best[b % 2] = took;
  }
  const double messages = (double)window * iterations;
  if (rank == 0 && alternate) {
    printf("on_messages_per_second %.1f off_messages_per_second %.1f\n", messages / best[0],
           messages / best[1]);
  } else if (rank == 0) {
    printf("messages_per_second %.1f bytes_per_second %.1f\n", messages / seconds,
           messages * bytes / seconds);
  }
  free(buffer);
  free(requests);
  MPI_Finalize();
  return 0;
}
