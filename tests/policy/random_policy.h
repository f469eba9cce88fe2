// Random placement policies and file tables for the property test.
//
// The generator keeps its own description of each policy (RPolicy), renders
// it to XML for the loader, and draws files with hourly I/O buckets, so the
// reference in property_test.cc never reads the library's model.
#pragma once

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "policy/file_record.h"

namespace tierfs::policy::testing {

inline constexpr int64_t kNow = 1'800'000'000 / 3600 * 3600;
inline constexpr int kHistoryHours = 40;

// ---- The generator's description of a policy ---------------------------------------

struct RSelect {
  std::vector<std::pair<std::string, bool>> dirs;      // path, recursive
  std::vector<std::pair<std::string, bool>> patterns;  // glob, recursive
  std::vector<std::string> users;
  std::vector<uint32_t> uids;
  std::vector<std::string> tags;
};
struct RCrit {
  std::string kind;  // SIZE ACCAGE MODAGE IOTEMP ACCESSTEMP
  std::string type;  // Type attribute for temperatures
  std::string units;
  double unit = 1;   // bytes or hours per unit
  int min_flag = -1; // -1 none, 0 gt, 1 gteq, 2 eq
  double min = 0;
  int max_flag = -1; // -1 none, 0 lt, 1 lteq
  double max = 0;
  int period_hours = 0;
  int prefer = 0;    // 0 none, 1 high, 2 low
  bool average = false;
};
struct RStmt {
  bool is_delete = false;
  std::vector<std::string> from, to;
  std::vector<RCrit> crits;
};
struct RRule {
  bool ckpt = false;
  std::vector<RSelect> selects;
  std::vector<RStmt> stmts;
};
struct RPolicy {
  int average_hours = 24;
  std::vector<RRule> rules;
};

template <typename T>
const T& Pick(std::mt19937& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}
inline int Int(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}
inline bool Coin(std::mt19937& rng, double p = 0.5) {
  return std::bernoulli_distribution(p)(rng);
}

inline const std::vector<std::string> kClasses{"ssd", "hdd", "mix"};
inline const std::vector<std::string> kDirs{"", "a", "a/b", "c"};
inline const std::vector<std::string> kGlobs{"*", "*.log", "f?", "x*", "b", "a", "*.dat"};
inline const std::vector<std::string> kUsers{"alice", "bob"};
inline const std::vector<std::string> kTags{"hot", "cold"};

inline RCrit RandomCrit(std::mt19937& rng) {
  RCrit c;
  c.kind = Pick(rng, std::vector<std::string>{"SIZE", "ACCAGE", "MODAGE", "IOTEMP", "ACCESSTEMP"});
  const std::vector<double> values{0, 0.5, 1, 1.5, 2, 4};
  if (c.kind == "SIZE") {
    c.units = Pick(rng, std::vector<std::string>{"bytes", "KB"});
    c.unit = c.units == "KB" ? 1024 : 1;
  } else if (c.kind == "ACCAGE" || c.kind == "MODAGE") {
    c.units = Pick(rng, std::vector<std::string>{"hours", "days"});
    c.unit = c.units == "days" ? 24 : 1;
  } else {
    c.type = c.kind == "IOTEMP"
                 ? Pick(rng, std::vector<std::string>{"nrbytes", "nwbytes", "nrwbytes"})
                 : Pick(rng, std::vector<std::string>{"nreads", "nwrites", "nrws"});
    c.period_hours = Int(rng, 1, 4);
    c.prefer = Int(rng, 0, 2);
    c.average = Coin(rng, 0.4);
  }
  bool temp = !c.type.empty();
  do {
    if (Coin(rng, 0.6)) {
      c.min_flag = Int(rng, 0, 2);
      c.min = Pick(rng, values);
    }
    if (Coin(rng, 0.5)) {
      c.max_flag = Int(rng, 0, 1);
      c.max = Pick(rng, values) + (c.min_flag >= 0 ? c.min : 0);
    }
  } while (!temp && c.min_flag < 0 && c.max_flag < 0);
  return c;
}

inline RPolicy RandomPolicy(std::mt19937& rng) {
  RPolicy p;
  p.average_hours = Pick(rng, std::vector<int>{24, 12, 30});
  std::map<std::string, bool> dir_flags;  // one Flags per directory (a VxFS rule)
  for (const std::string& d : kDirs) dir_flags[d] = Coin(rng);
  int rules = Int(rng, 1, 4);
  for (int r = 0; r < rules; ++r) {
    RRule rule;
    rule.ckpt = Coin(rng, 0.1);
    int selects = Int(rng, 1, 2);
    for (int s = 0; s < selects; ++s) {
      RSelect sel;
      for (int i = Int(rng, 0, 2); i > 0; --i) {
        std::string d = Pick(rng, kDirs);
        sel.dirs.push_back({d, dir_flags[d]});
      }
      for (int i = Int(rng, 0, 2); i > 0; --i) {
        sel.patterns.push_back({Pick(rng, kGlobs), Coin(rng, 0.3)});
      }
      if (Coin(rng, 0.2)) sel.users.push_back(Pick(rng, kUsers));
      if (Coin(rng, 0.1)) sel.uids.push_back(Pick(rng, std::vector<uint32_t>{0, 1000}));
      if (Coin(rng, 0.15)) sel.tags.push_back(Pick(rng, kTags));
      rule.selects.push_back(sel);
    }
    for (int s = Int(rng, 0, 4); s > 0; --s) {
      RStmt st;
      st.is_delete = Coin(rng, 0.2);
      if (Coin(rng, 0.5)) {
        for (int i = Int(rng, 1, 2); i > 0; --i) st.from.push_back(Pick(rng, kClasses));
      }
      if (!st.is_delete) {
        for (int i = Int(rng, 1, 2); i > 0; --i) st.to.push_back(Pick(rng, kClasses));
      }
      for (int i = Int(rng, 0, 3); i > 0; --i) st.crits.push_back(RandomCrit(rng));
      rule.stmts.push_back(st);
    }
    p.rules.push_back(rule);
  }
  return p;
}

inline std::string Num(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

inline std::string Render(const RPolicy& p) {
  std::string x = "<PLACEMENT_POLICY Name=\"rand\" Version=\"5.1\" AveragePeriod=\"" +
                  std::to_string(p.average_hours) + "\">\n";
  for (size_t r = 0; r < p.rules.size(); ++r) {
    const RRule& rule = p.rules[r];
    x += "<RULE Flags=\"" + std::string(rule.ckpt ? "ckpt" : "data") + "\" Name=\"r" +
         std::to_string(r) + "\">\n";
    for (const RSelect& s : rule.selects) {
      x += "<SELECT>";
      for (auto& [d, rec] : s.dirs) {
        x += "<DIRECTORY Flags=\"" + std::string(rec ? "recursive" : "nonrecursive") + "\">/" + d +
             "</DIRECTORY>";
      }
      for (auto& [g, rec] : s.patterns) {
        x += std::string("<PATTERN") + (rec ? " Flags=\"recursive\"" : "") + "> " + g +
             " </PATTERN>";
      }
      for (auto& u : s.users) x += "<USER>" + u + "</USER>";
      for (auto& u : s.uids) x += "<UID>" + std::to_string(u) + "</UID>";
      for (auto& t : s.tags) x += "<TAG>" + t + "</TAG>";
      x += "</SELECT>\n";
    }
    for (const RStmt& st : rule.stmts) {
      x += st.is_delete ? "<DELETE>" : "<RELOCATE>";
      if (!st.from.empty()) {
        x += "<FROM>";
        for (auto& c : st.from) x += "<SOURCE><CLASS>" + c + "</CLASS></SOURCE>";
        x += "</FROM>";
      }
      if (!st.is_delete) {
        x += "<TO>";
        for (auto& c : st.to) x += "<DESTINATION><CLASS>" + c + "</CLASS></DESTINATION>";
        x += "</TO>";
      }
      x += "<WHEN>";
      for (const RCrit& c : st.crits) {
        x += "<" + c.kind;
        if (!c.units.empty()) x += " Units=\"" + c.units + "\"";
        if (!c.type.empty()) x += " Type=\"" + c.type + "\"";
        if (c.prefer) x += std::string(" Prefer=\"") + (c.prefer == 1 ? "high" : "low") + "\"";
        if (c.average) x += " Average=\"*\"";
        x += ">";
        const char* minf[] = {"gt", "gteq", "eq"};
        const char* maxf[] = {"lt", "lteq"};
        if (c.min_flag >= 0) {
          x += std::string("<MIN Flags=\"") + minf[c.min_flag] + "\">" + Num(c.min) + "</MIN>";
        }
        if (c.max_flag >= 0) {
          x += std::string("<MAX Flags=\"") + maxf[c.max_flag] + "\">" + Num(c.max) + "</MAX>";
        }
        if (!c.type.empty()) {
          x += "<PERIOD Units=\"hours\">" + std::to_string(c.period_hours) + "</PERIOD>";
        }
        x += "</" + c.kind + ">";
      }
      x += "</WHEN>";
      x += st.is_delete ? "</DELETE>\n" : "</RELOCATE>\n";
    }
    x += "</RULE>\n";
  }
  return x + "</PLACEMENT_POLICY>\n";
}

// ---- Random files with hourly I/O ---------------------------------------------------

struct RFile {
  FileRecord rec;
  std::vector<IoCounters> hourly;  // hourly[h]: I/O in [now - (h + 1) hours, now - h hours)
};

inline RFile RandomFile(std::mt19937& rng, uint64_t ino, bool quiet) {
  RFile f;
  FileRecord& r = f.rec;
  r.ino = ino;
  const std::vector<std::string> comps{"a", "b", "c", "x1", "f1"};
  const std::vector<std::string> names{"f1", "g.log", "x.dat", "b", "fz", "a"};
  for (int d = Int(rng, 0, 3); d > 0; --d) r.path += "/" + Pick(rng, comps);
  r.path += "/" + Pick(rng, names);
  r.uid = Pick(rng, std::vector<uint32_t>{0, 1000, 1001});
  r.user = Pick(rng, std::vector<std::string>{"alice", "bob", ""});
  r.size = Pick(rng, std::vector<uint64_t>{0, 100, 1024, 4096, 5000, 1 << 20});
  r.atime_s = kNow - Pick(rng, std::vector<int64_t>{0, 1800, 3600, 5400, 7200, 86400, 172800});
  r.mtime_s = kNow - Pick(rng, std::vector<int64_t>{0, 3600, 7200, 43200, 86400});
  r.volume_id = static_cast<uint32_t>(Int(rng, 1, 4));  // 4 is unknown
  if (Coin(rng, 0.3)) r.tags.push_back(Pick(rng, kTags));
  f.hourly.resize(kHistoryHours);
  if (!quiet && Coin(rng, 0.7)) {
    for (IoCounters& h : f.hourly) {
      if (!Coin(rng, 0.4)) continue;
      h.rbytes = Pick(rng, std::vector<double>{0, 1024, 4096, 1 << 20});
      h.wbytes = Pick(rng, std::vector<double>{0, 512, 4096});
      h.rops = Int(rng, 0, 5);
      h.wops = Int(rng, 0, 3);
    }
  }
  return f;
}

}  // namespace tierfs::policy::testing
