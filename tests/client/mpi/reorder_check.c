/* Checks a reordered topology communicator, for the reorder tests:
 * `reorder_check cart|dist|graph NX NY`. Builds a periodic NX x NY grid of all the
 * ranks with reorder=1 (cart: MPI_Cart_create; dist: MPI_Dist_graph_create_adjacent
 * with weight 10 between vertical neighbours (v +- NX) and 1 between horizontal
 * ones; graph: MPI_Graph_create), then checks on the new communicator that the
 * neighbours are the grid's (MPI_Cart_shift, MPI_Dist_graph_neighbors with their
 * weights and order, MPI_Graph_neighbors) and that messages reach them
 * (MPI_Neighbor_alltoall of the ranks). Prints "vertex V node N ok" (or "BAD: why")
 * per process, N being HOPMAP_NODE, and exits 1 if any process found a problem. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nx, ny;
/* The grid neighbours of v in the order the creation gives them: left, right,
 * down, up (Cartesian: dimension 0 is y, 1 is x; MPI_Cart_shift order). */
static void neighbours(int v, int out[4]) {
  const int x = v % nx, y = v / nx;
  out[0] = (x + nx - 1) % nx + y * nx;
  out[1] = (x + 1) % nx + y * nx;
  out[2] = x + ((y + ny - 1) % ny) * nx;
  out[3] = x + ((y + 1) % ny) * nx;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4) {
    fprintf(stderr, "usage: reorder_check cart|dist|graph NX NY\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* kind = argv[1];
  nx = atoi(argv[2]);
  ny = atoi(argv[3]);
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm topo = MPI_COMM_NULL;
  int expected[4], weights[4];
  neighbours(world_rank, expected);
  for (int i = 0; i < 4; ++i) weights[i] = i < 2 ? 1 : 10;
  if (strcmp(kind, "cart") == 0) {
    int dims[2] = {ny, nx}, periods[2] = {1, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &topo);
  } else if (strcmp(kind, "dist") == 0) {
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, expected, weights, 4, expected, weights,
                                   MPI_INFO_NULL, 1, &topo);
  } else {
    const int n = nx * ny;
    int* index = malloc(sizeof(int) * n);
    int* edges = malloc(sizeof(int) * 4 * n);
    for (int v = 0; v < n; ++v) {
      index[v] = 4 * (v + 1);
      neighbours(v, edges + 4 * v);
    }
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &topo);
    free(index);
    free(edges);
  }
  char why[256] = "";
  int vertex = -1;
  if (topo == MPI_COMM_NULL) {
    snprintf(why, sizeof why, "no communicator");
  } else {
    MPI_Comm_rank(topo, &vertex);
    int want[4], got[4] = {-1, -1, -1, -1};
    neighbours(vertex, want);
    if (strcmp(kind, "cart") == 0) {
      int dims[2], periods[2], coords[2];
      MPI_Cart_get(topo, 2, dims, periods, coords);
      if (dims[0] != ny || dims[1] != nx || !periods[0] || !periods[1]) {
        snprintf(why, sizeof why, "MPI_Cart_get: dims %dx%d", dims[0], dims[1]);
      } else if (coords[0] != vertex / nx || coords[1] != vertex % nx) {
        snprintf(why, sizeof why, "coords (%d,%d)", coords[0], coords[1]);
      }
      MPI_Cart_shift(topo, 1, 1, &got[0], &got[1]);
      MPI_Cart_shift(topo, 0, 1, &got[2], &got[3]);
    } else if (strcmp(kind, "dist") == 0) {
      int in = 0, out = 0, weighted = 0, sources[4], sw[4], dw[4];
      MPI_Dist_graph_neighbors_count(topo, &in, &out, &weighted);
      if (in != 4 || out != 4 || !weighted) {
        snprintf(why, sizeof why, "%d in, %d out, weighted %d", in, out, weighted);
      } else {
        MPI_Dist_graph_neighbors(topo, 4, sources, sw, 4, got, dw);
        for (int i = 0; i < 4; ++i) {
          if (sources[i] != want[i] || sw[i] != weights[i] || dw[i] != weights[i]) {
            snprintf(why, sizeof why, "source %d is %d weight %d", i, sources[i], sw[i]);
          }
        }
      }
    } else {
      int count = 0;
      MPI_Graph_neighbors_count(topo, vertex, &count);
      if (count != 4)
        snprintf(why, sizeof why, "%d neighbours", count);
      else
        MPI_Graph_neighbors(topo, vertex, 4, got);
    }
    for (int i = 0; i < 4 && why[0] == '\0'; ++i) {
      if (got[i] != want[i])
        snprintf(why, sizeof why, "neighbour %d is %d, not %d", i, got[i], want[i]);
    }
    /* Messages reach them: each sends its rank; each hears its neighbours'. The
     * Cartesian order is dimension 0 (down, up) then 1 (left, right). */
    int send[4], heard[4];
    for (int i = 0; i < 4; ++i) send[i] = vertex;
    MPI_Neighbor_alltoall(send, 1, MPI_INT, heard, 1, MPI_INT, topo);
    const int cart = strcmp(kind, "cart") == 0;
    for (int i = 0; i < 4 && why[0] == '\0'; ++i) {
      const int from = cart ? want[(i + 2) % 4] : want[i];
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
