/* Checks a reordered topology communicator, for the reorder tests and
 * bench/mpi_reorder_compare.sh: `reorder_check cart|dist|distg|graph NX NY [NZ]`.
 * Builds a periodic NX x NY (x NZ) grid of all the ranks with reorder=1 (cart:
 * MPI_Cart_create; dist: MPI_Dist_graph_create_adjacent with weight 1 between
 * neighbours along x (v +- 1), 10 along y (v +- NX) and 100 along z (v +- NX*NY);
 * distg: the same edges through MPI_Dist_graph_create, each process giving its own;
 * graph: MPI_Graph_create), then checks on the new communicator that the neighbours
 * are the grid's (MPI_Cart_get and MPI_Cart_shift, MPI_Dist_graph_neighbors with their
 * weights, in order for dist and as a set for distg, whose order MPI does not fix,
 * MPI_Graph_neighbors) and that messages reach them (MPI_Neighbor_alltoall of the
 * ranks; skipped with REORDER_CHECK_NO_EXCHANGE=1, for a peer whose neighbour lists
 * are wrong and would hang the exchange). Prints "vertex V node N ok" (or "BAD: why") per process,
 * N being HOPMAP_NODE, and exits 1 if any process found a problem; rank 0 also prints
 * "create_seconds S", the slowest process's time in the constructor (from a barrier),
 * for bench/mpi_reorder_overhead.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxDegree = 6 };
static int ndims, size[3]; /* size[0] = NX, size[1] = NY, size[2] = NZ */
static const int kWeight[3] = {1, 10, 100};

/* The grid neighbours of v in the order the creation gives them: along x (left,
 * right), then y (down, up), then z (back, front). */
static void neighbours(int v, int out[kMaxDegree]) {
  int stride = 1;
  for (int k = 0; k < ndims; ++k) {
    const int c = (v / stride) % size[k];
    out[2 * k] = v + (((c + size[k] - 1) % size[k]) - c) * stride;
    out[2 * k + 1] = v + (((c + 1) % size[k]) - c) * stride;
    stride *= size[k];
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: reorder_check cart|dist|graph NX NY [NZ]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* kind = argv[1];
  ndims = argc - 2;
  int n = 1;
  for (int k = 0; k < ndims; ++k) {
    size[k] = atoi(argv[2 + k]);
    n *= size[k];
  }
  const int degree = 2 * ndims;
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm topo = MPI_COMM_NULL;
  int expected[kMaxDegree], weights[kMaxDegree];
  neighbours(world_rank, expected);
  for (int i = 0; i < degree; ++i) weights[i] = kWeight[i / 2];
  /* MPI's dimension 0 is the slowest: z (3-D) or y (2-D). */
  int dims[3], periods[3] = {1, 1, 1};
  for (int d = 0; d < ndims; ++d) dims[d] = size[ndims - 1 - d];
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (strcmp(kind, "cart") == 0) {
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &topo);
  } else if (strcmp(kind, "dist") == 0) {
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, expected, weights, degree, expected,
                                   weights, MPI_INFO_NULL, 1, &topo);
  } else if (strcmp(kind, "distg") == 0) {
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &world_rank, &degree, expected, weights, MPI_INFO_NULL,
                          1, &topo);
  } else {
    int* index = malloc(sizeof(int) * n);
    int* edges = malloc(sizeof(int) * degree * n);
    for (int v = 0; v < n; ++v) {
      index[v] = degree * (v + 1);
      neighbours(v, edges + degree * v);
    }
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &topo);
    free(index);
    free(edges);
  }
  const double mine = MPI_Wtime() - start;
  double slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (world_rank == 0) printf("create_seconds %.6f\n", slowest);
  char why[256] = "";
  int vertex = -1;
  if (topo == MPI_COMM_NULL) {
    snprintf(why, sizeof why, "no communicator");
  } else {
    MPI_Comm_rank(topo, &vertex);
    int want[kMaxDegree], got[kMaxDegree];
    for (int i = 0; i < kMaxDegree; ++i) got[i] = -1;
    neighbours(vertex, want);
    if (strcmp(kind, "cart") == 0) {
      int cart_dims[3], cart_periods[3], coords[3];
      MPI_Cart_get(topo, ndims, cart_dims, cart_periods, coords);
      int stride = 1;
      for (int k = 0; k < ndims && why[0] == '\0'; ++k) {
        const int d = ndims - 1 - k;
        if (cart_dims[d] != size[k] || !cart_periods[d]) {
          snprintf(why, sizeof why, "MPI_Cart_get: dimension %d is %d", d, cart_dims[d]);
        } else if (coords[d] != (vertex / stride) % size[k]) {
          snprintf(why, sizeof why, "coordinate %d is %d", d, coords[d]);
        }
        stride *= size[k];
      }
      for (int k = 0; k < ndims; ++k) {
        MPI_Cart_shift(topo, ndims - 1 - k, 1, &got[2 * k], &got[2 * k + 1]);
      }
    } else if (strcmp(kind, "distg") == 0) {
      /* MPI orders these neighbours as it likes: compare (neighbour, weight) sets. */
      int in = 0, out = 0, weighted = 0, sources[kMaxDegree], sw[kMaxDegree], dw[kMaxDegree];
      MPI_Dist_graph_neighbors_count(topo, &in, &out, &weighted);
      if (in != degree || out != degree || !weighted) {
        snprintf(why, sizeof why, "%d in, %d out, weighted %d", in, out, weighted);
      } else {
        MPI_Dist_graph_neighbors(topo, degree, sources, sw, degree, got, dw);
        long want_key = 0, in_key = 0, out_key = 0;
        for (int i = 0; i < degree; ++i) {
          want_key += (long)(want[i] + 1) * 1000003L + weights[i];
          in_key += (long)(sources[i] + 1) * 1000003L + sw[i];
          out_key += (long)(got[i] + 1) * 1000003L + dw[i];
        }
        if (in_key != want_key || out_key != want_key) {
          snprintf(why, sizeof why, "neighbours of vertex %d are not its grid neighbours", vertex);
        }
        for (int i = 0; i < degree; ++i) got[i] = want[i]; /* checked as a set above */
      }
    } else if (strcmp(kind, "dist") == 0) {
      int in = 0, out = 0, weighted = 0, sources[kMaxDegree], sw[kMaxDegree], dw[kMaxDegree];
      MPI_Dist_graph_neighbors_count(topo, &in, &out, &weighted);
      if (in != degree || out != degree || !weighted) {
        snprintf(why, sizeof why, "%d in, %d out, weighted %d", in, out, weighted);
      } else {
        MPI_Dist_graph_neighbors(topo, degree, sources, sw, degree, got, dw);
        for (int i = 0; i < degree; ++i) {
          if (sources[i] != want[i] || sw[i] != weights[i] || dw[i] != weights[i]) {
            snprintf(why, sizeof why, "source %d is %d weight %d", i, sources[i], sw[i]);
          }
        }
      }
    } else {
      int count = 0;
      MPI_Graph_neighbors_count(topo, vertex, &count);
      if (count != degree)
        snprintf(why, sizeof why, "%d neighbours", count);
      else
        MPI_Graph_neighbors(topo, vertex, degree, got);
    }
    for (int i = 0; i < degree && why[0] == '\0'; ++i) {
      if (got[i] != want[i])
        snprintf(why, sizeof why, "neighbour %d is %d, not %d", i, got[i], want[i]);
    }
    /* Messages reach them: each sends its rank; each hears its neighbours'. The
     * Cartesian order is MPI's dimension 0 first (the slowest: z, or y in 2-D). */
    int send[kMaxDegree], heard[kMaxDegree];
    const char* no_exchange = getenv("REORDER_CHECK_NO_EXCHANGE");
    const int exchange = no_exchange == NULL || strcmp(no_exchange, "1") != 0;
    for (int i = 0; i < degree; ++i) send[i] = heard[i] = vertex;
    if (exchange) MPI_Neighbor_alltoall(send, 1, MPI_INT, heard, 1, MPI_INT, topo);
    const int cart = strcmp(kind, "cart") == 0;
    /* distg: MPI's in-neighbour order, whatever it is. */
    int order[kMaxDegree];
    if (strcmp(kind, "distg") == 0 && why[0] == '\0') {
      int sw[kMaxDegree], dw[kMaxDegree], out[kMaxDegree];
      MPI_Dist_graph_neighbors(topo, degree, order, sw, degree, out, dw);
    } else {
      for (int i = 0; i < degree; ++i) order[i] = want[i];
    }
    for (int i = 0; i < degree && why[0] == '\0' && exchange; ++i) {
      const int from = cart ? want[2 * (ndims - 1 - i / 2) + i % 2] : order[i];
      if (heard[i] != from)
        snprintf(why, sizeof why, "heard %d from neighbour %d, not %d", heard[i], i, from);
    }
  }
  const char* node = getenv("HOPMAP_NODE");
  printf("vertex %d node %s %s%s\n", vertex, node ? node : "?", why[0] ? "BAD: " : "ok", why);
  fflush(stdout);
  int bad = why[0] != '\0', any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (topo != MPI_COMM_NULL) MPI_Comm_free(&topo);
  MPI_Finalize();
  return any ? 1 : 0;
}
