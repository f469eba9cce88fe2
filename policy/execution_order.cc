#include "policy/execution_order.h"

#include <limits>
#include <map>

#include "policy/volume_choice.h"

namespace tierfs::policy {
namespace {

// Free space of each volume as moves run, and pending moves out of each.
class Simulation {
 public:
  explicit Simulation(const std::vector<VolumeState>& volumes) {
    for (const VolumeState& v : volumes) volumes_.emplace(v.id, v);
  }

  void AddPendingOut(const PlannedMove& m) { ++pending_out_[m.from_volume]; }
  int PendingOut(uint32_t volume) const {
    auto it = pending_out_.find(volume);
    return it == pending_out_.end() ? 0 : it->second;
  }

  bool Fits(const PlannedMove& m) const {
    auto it = volumes_.find(m.to_volume);
    return it != volumes_.end() && HasRoom(it->second, m.bytes);
  }

  // free - reserve, signed; the lowest is the scarcest volume.
  int64_t Headroom(uint32_t volume) const {
    auto it = volumes_.find(volume);
    if (it == volumes_.end()) return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(it->second.free_bytes) -
           static_cast<int64_t>(it->second.reserve_bytes);
  }

  void Run(const PlannedMove& m) {
    if (m.action == FileVerdict::kRelocate) {
      --pending_out_[m.from_volume];
      auto to = volumes_.find(m.to_volume);
      if (to != volumes_.end()) {
        to->second.free_bytes -= std::min(to->second.free_bytes, m.bytes);
      }
    }
    auto from = volumes_.find(m.from_volume);
    if (from != volumes_.end()) from->second.free_bytes += m.bytes;
  }

 private:
  std::map<uint32_t, VolumeState> volumes_;
  std::map<uint32_t, int> pending_out_;
};

}  // namespace

std::vector<PlannedMove> OrderForExecution(std::vector<PlannedMove> planned,
                                           const std::vector<VolumeState>& volumes) {
  Simulation sim(volumes);
  std::vector<PlannedMove> out;
  out.reserve(planned.size());
  std::vector<PlannedMove*> pending;
  for (PlannedMove& m : planned) {
    if (m.action == FileVerdict::kDelete) {
      sim.Run(m);
      out.push_back(std::move(m));
    } else {
      sim.AddPendingOut(m);
      pending.push_back(&m);
    }
  }
  auto run = [&](PlannedMove* m) {
    sim.Run(*m);
    out.push_back(std::move(*m));
  };

  while (!pending.empty()) {
    // A pass: every move whose destination has nothing left to send away.
    std::vector<PlannedMove*> waiting;
    for (PlannedMove* m : pending) {
      if (sim.PendingOut(m->to_volume) == 0 && sim.Fits(*m)) {
        run(m);
      } else {
        waiting.push_back(m);
      }
    }
    bool progress = waiting.size() < pending.size();
    pending.swap(waiting);
    if (pending.empty() || progress) continue;

    // Stuck: drain the scarcest destination that still has moves out of it.
    uint32_t drain = 0;
    int64_t least = std::numeric_limits<int64_t>::max();
    for (PlannedMove* m : pending) {
      if (sim.PendingOut(m->to_volume) == 0) continue;
      int64_t h = sim.Headroom(m->to_volume);
      if (h < least || (h == least && m->to_volume < drain)) {
        least = h;
        drain = m->to_volume;
      }
    }
    waiting.clear();
    for (PlannedMove* m : pending) {
      if (m->from_volume == drain && sim.Fits(*m)) {
        run(m);
      } else {
        waiting.push_back(m);
      }
    }
    progress = waiting.size() < pending.size();
    pending.swap(waiting);
    if (progress) continue;

    // Still stuck: the first move that fits, else the rest in plan order.
    waiting.clear();
    bool ran = false;
    for (PlannedMove* m : pending) {
      if (!ran && sim.Fits(*m)) {
        run(m);
        ran = true;
      } else {
        waiting.push_back(m);
      }
    }
    pending.swap(waiting);
    if (!ran) {
      for (PlannedMove* m : pending) run(m);
      pending.clear();
    }
  }
  return out;
}

}  // namespace tierfs::policy
