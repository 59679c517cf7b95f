// HopmapLB: a central Charm++ load balancer that asks hopmapd (through the C API,
// libhopmap.so) where every object should run: loads within an imbalance, the
// communication's hop-bytes on the machine model as low as it can, migrations
// limited or charged. Built outside Charm++'s tree (client/charm/build.sh) and
// picked with `+balancer HopmapLB`; options in docs/charm.md.
#ifndef HOPMAP_CLIENT_CHARM_HOPMAPLB_H_
#define HOPMAP_CLIENT_CHARM_HOPMAPLB_H_

#include "CentralLB.h"
#include "HopmapLB.decl.h"

class HopmapLB : public CBase_HopmapLB {
 public:
  explicit HopmapLB(const CkLBOptions& options);
  explicit HopmapLB(CkMigrateMessage* message) : CBase_HopmapLB(message) { lbname = "HopmapLB"; }

 private:
  bool QueryBalanceNow(int) override { return true; }
  void work(LDStats* stats) override;
};

#endif  // HOPMAP_CLIENT_CHARM_HOPMAPLB_H_
