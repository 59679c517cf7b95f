// A 2-D Jacobi stencil of chares for HopmapLB's tests and bench: `jacobi2d BX BY
// BLOCK ITERATIONS LB_EVERY OUT [PIN_EVERY]`. BX x BY chares (periodic), each a BLOCK x BLOCK
// block of doubles, exchange BLOCK-double halos with their four neighbours every
// iteration. A hot spot drifts across the grid (from x = BX/4 to 3BX/4): a chare
// repeats its sweep 1 + 3 exp(-d^2 / 2s^2) times (rounded), d its distance to the
// hot spot, s = BX/6 (the load imbalance the balancers fight). Every LB_EVERY
// iterations the chares call AtSync. Main prints one line per balancing step
// ("lb step K: M migrated, S s", then "lb step K moves: FROM->TO:COUNT ..." by PE)
// and the mean iteration time, and writes OUT: one
// line per chare "ID PE LOAD" (ID = x + BX y; LOAD its mean work factor over the
// iterations before the last balancing step: the load that step saw), so `hopmap
// eval --balance` can measure the final placement. With PIN_EVERY = k > 0, every
// k-th chare (by ID) is not migratable (setMigratable(false)): it must stay put.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "jacobi2d.decl.h"

/* readonly */ CProxy_Main mainProxy;
/* readonly */ CProxy_Block blockProxy;
/* readonly */ int blocksX;
/* readonly */ int blocksY;
/* readonly */ int blockSize;
/* readonly */ int iterations;
/* readonly */ int lbEvery;
/* readonly */ int pinEvery;

namespace {

// The work factor of chare (x, y) at an iteration.
int WorkFactor(int x, int y, int iteration) {
  const double cx = blocksX * (0.25 + 0.5 * iteration / std::max(1, iterations - 1));
  const double cy = blocksY / 2.0;
  const double s = std::max(1.0, blocksX / 6.0);
  double dx = std::fabs(x + 0.5 - cx);
  double dy = std::fabs(y + 0.5 - cy);
  dx = std::min(dx, blocksX - dx);
  dy = std::min(dy, blocksY - dy);
  return static_cast<int>(std::lround(1 + 3 * std::exp(-(dx * dx + dy * dy) / (2 * s * s))));
}

struct Placed {
  double id;
  double pe;
  double load;
};

}  // namespace

class Main : public CBase_Main {
 public:
  explicit Main(CkArgMsg* m) {
    if (m->argc != 7 && m->argc != 8) {
      CkPrintf("usage: jacobi2d BX BY BLOCK ITERATIONS LB_EVERY OUT [PIN_EVERY]\n");
      CkExit(2);
    }
    blocksX = atoi(m->argv[1]);
    blocksY = atoi(m->argv[2]);
    blockSize = atoi(m->argv[3]);
    iterations = atoi(m->argv[4]);
    lbEvery = atoi(m->argv[5]);
    out_ = m->argv[6];
    pinEvery = m->argc == 8 ? atoi(m->argv[7]) : 0;
    delete m;
    if (blocksX < 3 || blocksY < 3 || blockSize < 1 || iterations < 1 || lbEvery < 1 ||
        pinEvery < 0) {
      CkPrintf("jacobi2d: BX and BY must be >= 3, PIN_EVERY >= 0, the others >= 1\n");
      CkExit(2);
    }
    mainProxy = thisProxy;
    blockProxy = CProxy_Block::ckNew(blocksX, blocksY);
    start_ = CkWallTimer();
    blockProxy.doStep();
  }

  void afterBalance(CkReductionMsg* message) {
    const auto* sums = static_cast<const double*>(message->getData());
    const int pes = CkNumPes();
    ++lb_steps_;
    CkPrintf("lb step %d: %.0f migrated, %.3f s\n", lb_steps_, sums[0],
             sums[1] / (blocksX * blocksY));
    std::string moves;
    for (int from = 0; from < pes; ++from) {
      for (int to = 0; to < pes; ++to) {
        const long count = std::lround(sums[2 + from * pes + to]);
        if (count > 0) {
          moves +=
              " " + std::to_string(from) + "->" + std::to_string(to) + ":" + std::to_string(count);
        }
      }
    }
    CkPrintf("lb step %d moves:%s\n", lb_steps_, moves.c_str());
    delete message;
    blockProxy.doStep();
  }

  void finished(CkReductionMsg* message) {
    const double elapsed = CkWallTimer() - start_;
    const auto* placed = static_cast<const Placed*>(message->getData());
    const int n = message->getSize() / sizeof(Placed);
    std::vector<Placed> by_id(n);
    for (int i = 0; i < n; ++i) by_id[static_cast<int>(placed[i].id)] = placed[i];
    delete message;
    FILE* f = std::fopen(out_.c_str(), "w");
    if (f == nullptr) {
      CkPrintf("jacobi2d: cannot write %s\n", out_.c_str());
      CkExit(1);
    }
    std::fprintf(f, "# chare pe load (jacobi2d %d x %d, %d iterations)\n", blocksX, blocksY,
                 iterations);
    for (const Placed& p : by_id) std::fprintf(f, "%.0f %.0f %.4f\n", p.id, p.pe, p.load);
    std::fclose(f);
    CkPrintf("done: %d iterations, %.4f s per iteration, %d balancing steps\n", iterations,
             elapsed / iterations, lb_steps_);
    CkExit();
  }

 private:
  std::string out_;
  double start_ = 0;
  int lb_steps_ = 0;
};

class Block : public CBase_Block {
  Block_SDAG_CODE

      public : Block()
      : values_((blockSize + 2) * (blockSize + 2), 0.0), next_(values_) {
    usesAtSync = true;
    if (pinEvery > 0 && (thisIndex.x + blocksX * thisIndex.y) % pinEvery == 0) {
      setMigratable(false);
    }
    for (int i = 0; i < blockSize; ++i) values_[At(i + 1, 1)] = 1.0;  // a warm edge
  }
  explicit Block(CkMigrateMessage*) {}

  void pup(PUP::er& p) override {
    p | iteration;
    p | received;
    p | values_;
    p | next_;
    p | pe_before_;
    p | lb_start_;
    p | phase_work_;
    p | phase_iterations_;
    p | seen_load_;
  }

  void sendGhosts() {
    const int x = thisIndex.x, y = thisIndex.y;
    std::vector<double> edge(blockSize);
    // side: 0 left, 1 right, 2 down, 3 up (the side of the receiver it lands on)
    for (int j = 0; j < blockSize; ++j) edge[j] = values_[At(1, j + 1)];
    thisProxy((x + blocksX - 1) % blocksX, y).ghost(iteration, 1, blockSize, edge.data());
    for (int j = 0; j < blockSize; ++j) edge[j] = values_[At(blockSize, j + 1)];
    thisProxy((x + 1) % blocksX, y).ghost(iteration, 0, blockSize, edge.data());
    for (int i = 0; i < blockSize; ++i) edge[i] = values_[At(i + 1, 1)];
    thisProxy(x, (y + blocksY - 1) % blocksY).ghost(iteration, 3, blockSize, edge.data());
    for (int i = 0; i < blockSize; ++i) edge[i] = values_[At(i + 1, blockSize)];
    thisProxy(x, (y + 1) % blocksY).ghost(iteration, 2, blockSize, edge.data());
  }

  void takeGhost(int side, int n, const double* v) {
    for (int k = 0; k < n; ++k) {
      switch (side) {
        case 0:
          values_[At(0, k + 1)] = v[k];
          break;
        case 1:
          values_[At(blockSize + 1, k + 1)] = v[k];
          break;
        case 2:
          values_[At(k + 1, 0)] = v[k];
          break;
        default:
          values_[At(k + 1, blockSize + 1)] = v[k];
          break;
      }
    }
  }

  void computeAndContinue() {
    const int work = WorkFactor(thisIndex.x, thisIndex.y, iteration);
    phase_work_ += work;
    ++phase_iterations_;
    for (int w = 0; w < work; ++w) {
      for (int j = 1; j <= blockSize; ++j) {
        for (int i = 1; i <= blockSize; ++i) {
          next_[At(i, j)] =
              0.2 * (values_[At(i, j)] + values_[At(i - 1, j)] + values_[At(i + 1, j)] +
                     values_[At(i, j - 1)] + values_[At(i, j + 1)]);
        }
      }
    }
    values_.swap(next_);
    ++iteration;
    if (iteration == iterations) {
      const Placed mine{static_cast<double>(thisIndex.x + blocksX * thisIndex.y),
                        static_cast<double>(CkMyPe()),
                        seen_load_ >= 0 ? seen_load_ : phase_work_ / phase_iterations_};
      contribute(sizeof(mine), &mine, CkReduction::concat,
                 CkCallback(CkIndex_Main::finished(nullptr), mainProxy));
    } else if (iteration % lbEvery == 0) {
      pe_before_ = CkMyPe();
      lb_start_ = CkWallTimer();
      seen_load_ = phase_work_ / phase_iterations_;
      phase_work_ = 0;
      phase_iterations_ = 0;
      AtSync();
    } else {
      contribute(CkCallback(CkReductionTarget(Block, doStep), thisProxy));
    }
  }

  void ResumeFromSync() override {
    // Objects moved, seconds in the step, and this chare's move as a PE x PE matrix
    // (from, to), summed over the chares: Main prints what moved where.
    const int pes = CkNumPes();
    std::vector<double> result(2 + pes * pes, 0.0);
    result[0] = CkMyPe() != pe_before_ ? 1.0 : 0.0;
    result[1] = CkWallTimer() - lb_start_;
    if (CkMyPe() != pe_before_) result[2 + pe_before_ * pes + CkMyPe()] = 1.0;
    contribute(result, CkReduction::sum_double,
               CkCallback(CkIndex_Main::afterBalance(nullptr), mainProxy));
  }

 private:
  int At(int i, int j) const { return i + j * (blockSize + 2); }

  int iteration = 0;
  int received = 0;
  std::vector<double> values_;
  std::vector<double> next_;
  int pe_before_ = -1;
  double lb_start_ = 0;
  // The work since the last balancing step, and at that step: the load the balancer
  // measured for this chare (what its final placement is judged on).
  double phase_work_ = 0;
  int phase_iterations_ = 0;
  double seen_load_ = -1;
};

#include "jacobi2d.def.h"
