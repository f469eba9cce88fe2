#include "fs/tiering/online_promoter.h"

#include <sys/stat.h>

#include <algorithm>

#include "common/log.h"
#include "common/owner_names.h"
#include "fs/tiering/scan_service.h"
#include "policy/evaluator.h"

namespace tierfs {
namespace {

using SteadyClock = std::chrono::steady_clock;

// A file's path and row are read again after this long: a rename changes
// what a SELECT by DIRECTORY or PATTERN sees.
constexpr auto kKnownFresh = std::chrono::seconds(30);
// The pause before a busy move is tried again, times its attempt number.
constexpr auto kBusyPause = std::chrono::seconds(1);

double SteadySeconds() {
  return std::chrono::duration<double>(SteadyClock::now().time_since_epoch()).count();
}

SteadyClock::time_point After(double seconds) {
  return SteadyClock::now() +
         std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
}

// Path-name order, component by component, as the scan feeds the planner
// (fs/tiering/scan_records.cc): '/' sorts before every other byte.
bool PathBefore(const std::string& a, const std::string& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    auto key = [](char c) { return c == '/' ? -1 : static_cast<unsigned char>(c); };
    return key(x) < key(y);
  });
}

bool UsesTags(const policy::PlacementPolicy& pol) {
  for (const policy::Rule& rule : pol.rules) {
    for (const policy::Select& select : rule.selects) {
      if (!select.tags.empty()) return true;
    }
  }
  return false;
}

// How far back the history must reach: the longest window, the
// AveragePeriod included, in seconds.
int64_t SpanSeconds(const policy::PlacementPolicy& pol) {
  double hours = 0;
  for (double h : pol.WindowHours()) hours = std::max(hours, h);
  return std::max<int64_t>(1, static_cast<int64_t>(hours * kSecondsPerHour) + 1);
}

}  // namespace

OnlinePromoter::OnlinePromoter(FileSystem& fs, Relocator& relocator,
                               std::chrono::milliseconds tick)
    : fs_(fs), relocator_(relocator), tick_(tick.count() > 0 ? tick : std::chrono::seconds(1)) {}

void OnlinePromoter::Start() {
  {
    MutexLock lock(mu_);
    if (started_) return;
    started_ = true;
    stop_ = false;
  }
  fs_.SetIoDrainedHook([this](const std::vector<meta::IoDelta>& deltas) {
    MutexLock lock(mu_);
    if (policy_) heat_.AddDrained(deltas);
  });
  // The kernel's passthrough counts reach IoAccounting once a second, and a
  // scan may flush them at once: judged as they arrive, the files they name
  // are not missed, and wait no extra tick.
  fs_.SetKernelHeatArrivedHook([this] {
    MutexLock lock(mu_);
    heat_arrived_ = true;
    wake_.NotifyAll();
  });
  evaluator_ = std::thread([this] {
    MutexLock lock(mu_);
    while (!stop_) {
      const auto due = SteadyClock::now() + tick_;
      while (!stop_ && !heat_arrived_ && SteadyClock::now() < due) wake_.WaitUntil(mu_, due);
      if (stop_) break;
      heat_arrived_ = false;
      lock.Unlock();
      Evaluate();
      lock.Lock();
    }
  });
  worker_ = std::thread([this] { Work(); });
}

void OnlinePromoter::Stop() {
  {
    MutexLock lock(mu_);
    if (!started_ || stop_) return;
    stop_ = true;
  }
  fs_.SetIoDrainedHook(nullptr);
  fs_.SetKernelHeatArrivedHook(nullptr);
  wake_.NotifyAll();
  if (evaluator_.joinable()) evaluator_.join();
  if (worker_.joinable()) worker_.join();
}

std::shared_ptr<const policy::PlacementPolicy> OnlinePromoter::CurrentPolicy() {
  std::shared_ptr<const policy::PlacementPolicy> pol = fs_.policy();
  const int64_t bucket = fs_.heat_bucket_seconds();
  const bool online = pol && pol->HasOnlineStatements();
  {
    MutexLock lock(mu_);
    if (pol == seen_policy_ && (!online || bucket == heat_.bucket_seconds())) {
      return online ? pol : nullptr;
    }
    seen_policy_ = pol;
    // A new policy (or none), or a new heat bucket: the history starts over.
    queue_.clear();
    known_.clear();
    held_.clear();
    policy_ = online ? pol : nullptr;
    heat_.Reset(bucket, online ? SpanSeconds(*pol) : 1);
    fs_.metrics().online().queue_length = 0;
    fs_.metrics().online().budget_bytes_per_s =
        online ? static_cast<uint64_t>(pol->online_budget_bytes_per_s) : 0;
  }
  if (!online) return nullptr;
  // The history the database has (flushed since the mount or before it); the
  // drained hook adds what is flushed from now on.
  std::vector<meta::IoBucket> seed;
  const int64_t since = fs_.clock().NowSeconds() - SpanSeconds(*pol) - bucket;
  Status st = fs_.metadata().ForEachIoBucket(
      since, [&](const meta::IoBucket& b) { seed.push_back(b); });
  if (!st.ok()) LogWarning("online promotion: reading the I/O history: {}", st.ToString());
  MutexLock lock(mu_);
  for (const meta::IoBucket& b : seed) {
    heat_.AddFlushed(b.ino, b.bucket_start_s,
                     policy::IoCounters{static_cast<double>(b.rbytes), static_cast<double>(b.wbytes),
                                        static_cast<double>(b.rops), static_cast<double>(b.wops)});
  }
  // A new policy judges every file with heat once, as enforce would: its
  // counts may all have been flushed already (a scan flushes them at once),
  // so that no peek would ever show them changed.
  heat_.MarkAllChanged();
  LogInfo("online promotion: policy {} has online RELOCATE statements; budget {:.1f} MiB/s, "
          "history of {} files",
          pol->name, pol->online_budget_bytes_per_s / (1024 * 1024), heat_.files());
  return pol;
}

std::optional<policy::FileRecord> OnlinePromoter::RecordOf(uint64_t ino,
                                                           const policy::PlacementPolicy& pol,
                                                           int64_t now_s,
                                                           const std::string* path) {
  auto attr = fs_.CurrentAttr(ino);
  if (!attr.ok() || !S_ISREG(attr->mode) || attr->nlink == 0) return std::nullopt;
  std::string where;
  if (path != nullptr) {
    where = *path;
  } else {
    {
      MutexLock lock(mu_);
      auto it = known_.find(ino);
      if (it != known_.end() && SteadyClock::now() - it->second.read_at < kKnownFresh) {
        where = it->second.path;
      }
    }
    if (where.empty()) {
      auto p = fs_.metadata().PathOf(ino);
      if (!p.ok()) return std::nullopt;  // unlinked since
      where = *p;
    }
  }
  policy::FileRecord r;
  r.ino = ino;
  r.path = where;
  r.uid = attr->uid;
  r.gid = attr->gid;
  if (pol.SelectsByOwnerName()) {
    OwnerNames names;
    r.user = names.User(attr->uid);
    r.group = names.Group(attr->gid);
  }
  r.size = attr->size;
  r.atime_s = attr->atime_ns / kNanosPerSecond;
  r.mtime_s = attr->mtime_ns / kNanosPerSecond;
  r.volume_id = attr->volume_id;
  if (UsesTags(pol)) {
    if (auto tags = fs_.metadata().GetXattr(ino, policy::kFileTagsXattr); tags.ok()) {
      r.tags = policy::ParseFileTags(*tags);
    }
  }
  MutexLock lock(mu_);
  r.windows = heat_.Windows(ino, pol.WindowHours(), now_s + 1);
  if (path == nullptr) known_[ino] = Known{where, *attr, SteadyClock::now()};
  return r;
}

const policy::Statement* OnlinePromoter::OnlineStatement(const policy::PlacementPolicy& pol,
                                                         const std::string& rule,
                                                         const std::string& label) {
  for (const policy::Rule& r : pol.rules) {
    if (r.name != rule || r.flags != policy::RuleFlags::kData) continue;
    for (const policy::Statement& st : r.statements) {
      if (st.Label() == label) return st.online && st.kind == policy::Statement::kRelocate ? &st : nullptr;
    }
  }
  return nullptr;
}

void OnlinePromoter::Evaluate() {
  std::shared_ptr<const policy::PlacementPolicy> pol = CurrentPolicy();
  if (!pol) return;
  // The counts not flushed yet; a drain between the generation read and the
  // peek would make them count twice, so such a peek waits for the next tick.
  uint64_t generation;
  {
    MutexLock lock(mu_);
    generation = heat_.generation();
  }
  std::vector<meta::IoDelta> peek = fs_.io_accounting().Peek();
  const int64_t now_s = fs_.clock().NowSeconds();
  std::vector<uint64_t> changed, unknown;
  {
    MutexLock lock(mu_);
    if (generation != heat_.generation()) return;
    changed = heat_.SetPending(peek);
    heat_.Prune(now_s);
    // Files gone from the history (no I/O in the longest window) are
    // forgotten, so memory follows the active files only.
    for (auto it = known_.begin(); it != known_.end();) {
      it = heat_.Contains(it->first) ? std::next(it) : known_.erase(it);
    }
    const auto now = SteadyClock::now();
    for (auto it = held_.begin(); it != held_.end();) {
      it = it->second <= now ? held_.erase(it) : std::next(it);
    }
    if (pol->UsesAverage()) {
      for (uint64_t ino : heat_.Inodes()) {
        if (!known_.contains(ino)) unknown.push_back(ino);
      }
    }
  }
  if (changed.empty()) return;
  // The average needs every active file's size: a file seen for the first
  // time is read once (the database only here, off the data path).
  for (uint64_t ino : unknown) (void)RecordOf(ino, *pol, now_s, nullptr);
  if (pol->UsesAverage()) {
    MutexLock lock(mu_);
    totals_ = heat_.Totals(pol->average_period_hours, now_s + 1,
                           [&](uint64_t ino) -> std::optional<uint64_t> {
                             mu_.AssertHeld();  // called within Totals, under the lock above
                             auto it = known_.find(ino);
                             if (it == known_.end()) return std::nullopt;
                             return it->second.attr.size;
                           });
  }
  policy::ActivityTotals totals;
  {
    MutexLock lock(mu_);
    totals = totals_;
  }
  const std::vector<policy::VolumeState> volumes = fs_.volumes().Space(/*fresh=*/false);
  const policy::Evaluator evaluator(*pol, volumes, totals, now_s);
  for (uint64_t ino : changed) {
    {
      MutexLock lock(mu_);
      if (queue_.contains(ino) || in_flight_ == ino) continue;
    }
    std::optional<policy::FileRecord> r = RecordOf(ino, *pol, now_s, nullptr);
    if (!r) continue;
    const policy::FileVerdict v = evaluator.Evaluate(*r);
    if (v.action != policy::FileVerdict::kRelocate) continue;
    if (OnlineStatement(*pol, v.rule, v.statement) == nullptr) continue;
    MutexLock lock(mu_);
    EnqueueLocked(ino, v.temperature, 0, SteadyClock::now());
  }
  wake_.NotifyAll();
}

void OnlinePromoter::EnqueueLocked(uint64_t ino, double temperature, int attempts,
                                   SteadyClock::time_point ready) {
  auto it = queue_.find(ino);
  if (it != queue_.end()) {
    it->second.temperature = std::max(it->second.temperature, temperature);
    return;
  }
  if (queue_.size() >= kQueueLimit) {
    fs_.metrics().online().dropped++;
    return;
  }
  queue_.emplace(ino, Queued{temperature, attempts, ready});
  fs_.metrics().online().queue_length = queue_.size();
}

void OnlinePromoter::Work() {
  MutexLock lock(mu_);
  while (!stop_) {
    // The hottest file that is ready; else sleep until the first is.
    const auto now = SteadyClock::now();
    auto best = queue_.end();
    auto next_ready = now + std::chrono::seconds(1);
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (it->second.ready > now) {
        next_ready = std::min(next_ready, it->second.ready);
      } else if (best == queue_.end() || it->second.temperature > best->second.temperature) {
        best = it;
      }
    }
    if (best == queue_.end()) {
      wake_.WaitUntil(mu_, next_ready);
      continue;
    }
    const uint64_t ino = best->first;
    const Queued entry = best->second;
    queue_.erase(best);
    fs_.metrics().online().queue_length = queue_.size();
    in_flight_ = ino;
    lock.Unlock();
    Process(ino, entry);
    lock.Lock();
    in_flight_ = 0;
  }
}

bool OnlinePromoter::WaitForBudget(uint64_t bytes) {
  const double wait = budget_.Reserve(bytes, SteadySeconds());
  if (wait <= 0) return true;
  const auto deadline = After(wait);
  MutexLock lock(mu_);
  while (!stop_ && SteadyClock::now() < deadline) wake_.WaitUntil(mu_, deadline);
  return !stop_;
}

std::string OnlinePromoter::Move(const policy::PlannedMove& m, bool swap_out) {
  if (!WaitForBudget(m.bytes)) return "stopped";
  // An enforce may have moved the file while the budget held it back.
  if (auto attr = fs_.CurrentAttr(m.ino); !attr.ok() || attr->volume_id != m.from_volume) {
    return "gone";
  }
  // From the volume the plan saw it on only: an enforce that moved it after
  // the look above leaves it "gone" too.
  Result<RelocationOutcome> result =
      relocator_.Relocate(m.ino, m.to_volume, Relocator::Mode::kBackground, m.from_volume);
  const std::string outcome = EnforceOutcome(result);
  OnlineCounters& c = fs_.metrics().online();
  if (outcome == "moved") {
    const uint64_t bytes = result.ok() ? result->bytes : m.bytes;
    c.bytes_moved += bytes;
    (swap_out ? c.demotions : c.promotions)++;
    MutexLock lock(mu_);
    const int64_t second = static_cast<int64_t>(SteadySeconds());
    recent_bytes_[second] += bytes;
    recent_bytes_.erase(recent_bytes_.begin(), recent_bytes_.lower_bound(second - 10));
  } else if (outcome == "busy") {
    c.busy++;
  }
  return outcome;
}

void OnlinePromoter::Process(uint64_t ino, Queued entry) {
  std::shared_ptr<const policy::PlacementPolicy> pol;
  policy::ActivityTotals totals;
  {
    MutexLock lock(mu_);
    pol = policy_;
    totals = totals_;
  }
  if (!pol) return;
  budget_.SetRate(pol->online_budget_bytes_per_s);
  OnlineCounters& counters = fs_.metrics().online();
  const int64_t now_s = fs_.clock().NowSeconds();
  auto fresh_path = fs_.metadata().PathOf(ino);
  if (!fresh_path.ok()) return;  // unlinked since it was queued
  std::optional<policy::FileRecord> candidate = RecordOf(ino, *pol, now_s, &*fresh_path);
  if (!candidate) return;
  std::vector<policy::VolumeState> volumes = fs_.volumes().Space(/*fresh=*/true);
  // Gone cold since it was queued (or moved by enforce meanwhile): skipped.
  const policy::FileVerdict verdict =
      policy::Evaluator(*pol, volumes, totals, now_s).Evaluate(*candidate);
  const policy::Statement* st =
      verdict.action == policy::FileVerdict::kRelocate
          ? OnlineStatement(*pol, verdict.rule, verdict.statement)
          : nullptr;
  if (st == nullptr) {
    counters.skipped_cold++;
    return;
  }
  auto find_move = [&](const policy::ScanPlan& plan) -> const policy::PlannedMove* {
    for (const policy::PlannedMove& m : plan.moves) {
      if (m.ino == ino && m.action == policy::FileVerdict::kRelocate) return &m;
    }
    return nullptr;
  };
  policy::ScanPlan plan = policy::PlanScan(*pol, {*candidate}, volumes, totals, now_s);
  if (find_move(plan) == nullptr && st->OrderingPrefer() == policy::Prefer::kHigh) {
    // The TO classes are full: the planner may swap their residents out,
    // coldest first, as enforce does; files under their hold are not offered.
    std::vector<uint32_t> ids;
    for (const policy::VolumeState& v : volumes) {
      for (const policy::Destination& d : st->to_classes) {
        if (v.HasClass(d.class_name)) {
          ids.push_back(v.id);
          break;
        }
      }
    }
    std::vector<policy::FileRecord> files = {*candidate};
    auto residents = fs_.metadata().FilesOnVolumes(ids);
    if (!residents.ok()) {
      LogWarning("online promotion: listing the files of the target class: {}",
                 residents.status().ToString());
      return;
    }
    for (const meta::Inode& r : *residents) {
      if (r.ino == ino || !S_ISREG(r.mode) || r.nlink == 0) continue;
      {
        MutexLock lock(mu_);
        auto h = held_.find(r.ino);
        if (h != held_.end() && h->second > SteadyClock::now()) continue;
      }
      std::optional<policy::FileRecord> rec = RecordOf(r.ino, *pol, now_s, nullptr);
      if (rec) files.push_back(std::move(*rec));
    }
    std::sort(files.begin(), files.end(),
              [](const policy::FileRecord& a, const policy::FileRecord& b) {
                return PathBefore(a.path, b.path);
              });
    plan = policy::PlanScan(*pol, files, volumes, totals, now_s);
  }
  const policy::PlannedMove* move = find_move(plan);
  if (move == nullptr) {
    counters.no_room++;
    return;
  }
  auto retry = [&] {
    if (entry.attempts + 1 >= kMaxAttempts) return;
    MutexLock lock(mu_);
    if (!stop_) {
      EnqueueLocked(ino, verdict.temperature, entry.attempts + 1,
                    SteadyClock::now() + kBusyPause * (entry.attempts + 1));
    }
  };
  // Swap-outs first, in the planner's execution order, then the file.
  for (const policy::PlannedMove& m : plan.moves) {
    if (m.swap != policy::PlannedMove::kSwapOut) continue;
    const std::string outcome = Move(m, /*swap_out=*/true);
    if (outcome == "stopped") return;
    if (outcome != "moved" && outcome != "gone") {
      retry();  // the room is not there yet
      return;
    }
  }
  const std::string outcome = Move(*move, /*swap_out=*/false);
  if (outcome == "moved") {
    MutexLock lock(mu_);
    held_[ino] = After(st->OnlineHoldHours() * kSecondsPerHour);
  } else if (outcome == "busy") {
    retry();
  } else if (outcome != "stopped" && outcome != "gone") {
    LogInfo("online promotion of {}: {}", candidate->path, outcome);
  }
}

nlohmann::json OnlinePromoter::StatusJson() {
  const OnlineCounters& c = fs_.metrics().online();
  nlohmann::json queued = nlohmann::json::array();
  std::vector<std::pair<uint64_t, Queued>> entries;
  bool online;
  uint64_t recent = 0;
  size_t held = 0;
  {
    MutexLock lock(mu_);
    online = policy_ != nullptr;
    for (const auto& [ino, q] : queue_) entries.emplace_back(ino, q);
    const int64_t second = static_cast<int64_t>(SteadySeconds());
    for (const auto& [s, bytes] : recent_bytes_) {
      if (s >= second - 10 && s < second) recent += bytes;
    }
    held = held_.size();
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.second.temperature > b.second.temperature; });
  for (const auto& [ino, q] : entries) {
    auto path = fs_.metadata().PathOf(ino);
    queued.push_back({{"ino", ino}, {"path", path.ok() ? *path : ""},
                      {"temperature", q.temperature}, {"attempts", q.attempts}});
  }
  return nlohmann::json{
      {"online", online},
      {"budget_bytes_per_s", c.budget_bytes_per_s.load()},
      {"bytes_per_s", static_cast<double>(recent) / 10.0},
      {"promotions", c.promotions.load()},
      {"demotions", c.demotions.load()},
      {"bytes_moved", c.bytes_moved.load()},
      {"skipped",
       {{"cold", c.skipped_cold.load()}, {"busy", c.busy.load()}, {"noroom", c.no_room.load()},
        {"queuefull", c.dropped.load()}}},
      {"held", held},
      {"queued", queued}};
}

}  // namespace tierfs
