// Property test: random policies (rendered to XML and loaded) and random
// file tables; EvaluateFile must agree with a straightforward reference
// written here from docs/policies.md "Rules", "WHEN criteria" and "Temperatures",
// which works on the generator's own description of the policy and sums hourly
// buckets directly instead of using the library's model, windows or matchers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "policy/evaluator.h"
#include "policy/loader.h"
#include "tests/policy/random_policy.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy::testing {
namespace {

// ---- The reference ------------------------------------------------------------------

bool RefGlob(const char* g, const char* s) {  // '*' and '?' only
  if (*g == '\0') return *s == '\0';
  if (*g == '*') return RefGlob(g + 1, s) || (*s != '\0' && RefGlob(g, s + 1));
  if (*s == '\0') return false;
  return (*g == '?' || *g == *s) && RefGlob(g + 1, s + 1);
}

std::vector<std::string> SplitPath(const std::string& p) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : p + "/") {
    if (c == '/') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

bool RefSelect(const RSelect& s, const FileRecord& f) {
  auto in = [](const auto& list, const auto& v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  if (!s.users.empty() && (f.user.empty() || !in(s.users, f.user))) return false;
  if (!s.uids.empty() && !in(s.uids, f.uid)) return false;
  if (!s.tags.empty()) {
    bool any = false;
    for (auto& t : f.tags) any = any || in(s.tags, t);
    if (!any) return false;
  }
  std::vector<std::string> parts = SplitPath(f.path);
  std::string name = parts.back();
  parts.pop_back();
  std::vector<std::pair<std::string, bool>> dirs = s.dirs;
  if (dirs.empty()) dirs.push_back({"", true});
  for (auto& [d, rec] : dirs) {
    std::vector<std::string> dp = SplitPath(d);
    bool under = dp.size() <= parts.size() && std::equal(dp.begin(), dp.end(), parts.begin()) &&
                 (rec || dp.size() == parts.size());
    if (!under) continue;
    if (s.patterns.empty()) return true;
    for (auto& [g, prec] : s.patterns) {
      if (RefGlob(g.c_str(), name.c_str())) return true;
      for (size_t i = dp.size(); prec && i < parts.size(); ++i) {
        if (RefGlob(g.c_str(), parts[i].c_str())) return true;
      }
    }
  }
  return false;
}

IoCounters SumHours(const RFile& f, int hours) {
  IoCounters s;
  for (int h = 0; h < hours && h < kHistoryHours; ++h) s += f.hourly[h];
  return s;
}

double Count(const std::string& type, const IoCounters& c) {
  if (type == "nrbytes") return c.rbytes;
  if (type == "nwbytes") return c.wbytes;
  if (type == "nrwbytes") return c.rbytes + c.wbytes;
  if (type == "nreads") return c.rops;
  if (type == "nwrites") return c.wops;
  return c.rops + c.wops;
}

struct RefContext {
  const RPolicy* policy;
  const std::vector<RFile>* all;
  std::map<uint32_t, std::vector<std::string>> classes;
};

double RefAverage(const RefContext& ctx, const std::string& type) {
  const int a = ctx.policy->average_hours;
  double count = 0, sizes = 0, active = 0;
  for (const RFile& f : *ctx.all) {
    IoCounters s = SumHours(f, a);
    if (s.rbytes + s.wbytes + s.rops + s.wops == 0) continue;
    count += Count(type, s);
    sizes += std::max<double>(static_cast<double>(f.rec.size), 4096);
    active += 1;
  }
  if (active == 0) return 0;
  bool bytes = type.find("bytes") != std::string::npos;
  return bytes ? count / (a * sizes) : count / (a * active);
}

double RefValue(const RefContext& ctx, const RCrit& c, const RFile& f) {
  if (c.kind == "SIZE") return static_cast<double>(f.rec.size);
  if (c.kind == "ACCAGE") return (kNow - f.rec.atime_s) / 3600.0;
  if (c.kind == "MODAGE") return (kNow - f.rec.mtime_s) / 3600.0;
  double n = Count(c.type, SumHours(f, c.period_hours));
  if (c.kind == "IOTEMP") return n / (c.period_hours * std::max<double>(f.rec.size, 4096));
  return n / c.period_hours;
}

bool Eq(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

bool RefHolds(const RefContext& ctx, const RCrit& c, const RFile& f) {
  double v = RefValue(ctx, c, f);
  double scale = c.average ? RefAverage(ctx, c.type) : c.unit;
  if (c.average && scale == 0) return c.min_flag < 0;
  double lo = c.min * scale, hi = c.max * scale;
  if (c.min_flag == 0 && !(v > lo && !Eq(v, lo))) return false;
  if (c.min_flag == 1 && !(v > lo || Eq(v, lo))) return false;
  if (c.min_flag == 2 && !Eq(v, lo)) return false;
  if (c.max_flag == 0 && !(v < hi && !Eq(v, hi))) return false;
  if (c.max_flag == 1 && !(v < hi || Eq(v, hi))) return false;
  return true;
}

struct RefVerdict {
  int rule = -1, stmt = -1;
  FileVerdict::Action action = FileVerdict::kNone;
  double temperature = 0;
};

RefVerdict Reference(const RefContext& ctx, const RFile& f) {
  RefVerdict v;
  for (size_t r = 0; r < ctx.policy->rules.size() && v.rule < 0; ++r) {
    const RRule& rule = ctx.policy->rules[r];
    if (rule.ckpt) continue;
    for (const RSelect& s : rule.selects) {
      if (RefSelect(s, f.rec)) v.rule = static_cast<int>(r);
    }
  }
  if (v.rule < 0) return v;
  auto it = ctx.classes.find(f.rec.volume_id);
  std::vector<std::string> mine = it == ctx.classes.end() ? std::vector<std::string>{} : it->second;
  auto on = [&](const std::vector<std::string>& cls) {
    for (auto& c : cls) {
      if (std::find(mine.begin(), mine.end(), c) != mine.end()) return true;
    }
    return false;
  };
  const RRule& rule = ctx.policy->rules[v.rule];
  for (size_t s = 0; s < rule.stmts.size(); ++s) {
    const RStmt& st = rule.stmts[s];
    if (!st.from.empty() && !on(st.from)) continue;
    bool all = true;
    for (const RCrit& c : st.crits) all = all && RefHolds(ctx, c, f);
    if (!all) continue;
    v.stmt = static_cast<int>(s);
    v.action = st.is_delete ? FileVerdict::kDelete
                            : (on(st.to) ? FileVerdict::kStay : FileVerdict::kRelocate);
    const RCrit* shown = nullptr;
    for (const RCrit& c : st.crits) {
      if (!shown && !c.type.empty() && c.prefer) shown = &c;
    }
    for (const RCrit& c : st.crits) {
      if (!shown && !c.type.empty()) shown = &c;
    }
    if (shown) v.temperature = RefValue(ctx, *shown, f);
    return v;
  }
  return v;
}

TEST(PropertyTest, EvaluateFileAgreesWithTheReference) {
  std::mt19937 rng(20240611);
  const std::vector<VolumeState> volumes{VolumeState{1, "v1", {"ssd"}, 100, 50, 0},
                                         VolumeState{2, "v2", {"hdd"}, 100, 50, 0},
                                         VolumeState{3, "v3", {"mix", "hdd"}, 100, 50, 0}};
  int decided = 0, stays = 0, deletes = 0, averaged = 0;
  for (int iter = 0; iter < 400; ++iter) {
    RPolicy rp = RandomPolicy(rng);
    std::string xml = Render(rp);
    LoadResult loaded = LoadPolicy(xml);
    ASSERT_TRUE(loaded.ok()) << xml << Dump(loaded);
    const PlacementPolicy& policy = *loaded.policy;
    // One table in ten has no I/O at all: every Average="*" average is 0.
    const bool quiet = iter % 10 == 0;
    std::vector<RFile> files;
    for (int i = 0; i < 40; ++i) {
      files.push_back(RandomFile(rng, static_cast<uint64_t>(i + 1), quiet));
    }

    // Library inputs: windows from the hourly buckets, totals over AveragePeriod.
    const std::vector<double> hours = policy.WindowHours();
    ActivityTotals totals;
    for (RFile& f : files) {
      for (int h = 0; h < kHistoryHours; ++h) {
        AccumulateBucket(hours, kNow, kNow - (h + 1) * 3600, 3600, f.hourly[h], &f.rec.windows);
      }
      if (!SumHours(f, kHistoryHours).Any() && Coin(rng, 0.5)) {
        f.rec.windows.clear();  // "no I/O recorded" is also allowed
      }
      AddActivity(SumHours(f, rp.average_hours), f.rec.size, &totals);
    }
    RefContext ctx{&rp, &files, {{1, {"ssd"}}, {2, {"hdd"}}, {3, {"mix", "hdd"}}}};
    for (const RFile& f : files) {
      FileVerdict got = EvaluateFile(policy, f.rec, volumes, totals, kNow);
      RefVerdict want = Reference(ctx, f);
      SCOPED_TRACE(xml + "file " + f.rec.path + " vol " + std::to_string(f.rec.volume_id));
      ASSERT_EQ(got.rule_index, want.rule);
      ASSERT_EQ(got.statement_index, want.stmt);
      ASSERT_EQ(got.action, want.action);
      ASSERT_NEAR(got.temperature, want.temperature, 1e-9 * std::max(1.0, want.temperature));
      decided += want.stmt >= 0;
      stays += want.action == FileVerdict::kStay;
      deletes += want.action == FileVerdict::kDelete;
      averaged += got.temperature_kind.find("avg") != std::string::npos;
    }
  }
  // The generator reaches every outcome often enough to mean something.
  EXPECT_GT(decided, 1000);
  EXPECT_GT(stays, 100);
  EXPECT_GT(deletes, 100);
  EXPECT_GT(averaged, 100);
}

}  // namespace
}  // namespace tierfs::policy::testing
