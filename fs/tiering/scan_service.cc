#include "fs/tiering/scan_service.h"


#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "fs/tiering/scan_records.h"
#include "policy/evaluator.h"
#include "policy/loader.h"
#include "policy/planner.h"
#include "policy/temperature.h"

namespace tierfs {
namespace {

using nlohmann::json;

const char* ModeName(ScanRequest::Mode mode) {
  switch (mode) {
    case ScanRequest::Mode::kEnforce: return "enforce";
    case ScanRequest::Mode::kAnalyze: return "analyze";
    case ScanRequest::Mode::kQuery: return "query";
  }
  return "?";
}

const char* ActionName(policy::FileVerdict::Action action) {
  switch (action) {
    case policy::FileVerdict::kRelocate: return "relocate";
    case policy::FileVerdict::kDelete: return "delete";
    case policy::FileVerdict::kStay: return "stay";
    case policy::FileVerdict::kNone: return "none";
  }
  return "?";
}

// The longest PERIOD of the policy's temperature criteria, in hours (for -C).
double LongestPeriodHours(const policy::PlacementPolicy& policy) {
  double longest = 0;
  for (const policy::Rule& rule : policy.rules) {
    for (const policy::Statement& st : rule.statements) {
      for (const policy::Criterion& c : st.criteria) {
        if (c.IsTemperature()) longest = std::max(longest, c.period_hours);
      }
    }
  }
  return longest > 0 ? longest : 24;  // no temperature: the last day's activity
}


// "2", "0.5": hours as the -C note prints them.
std::string FormatHours(double hours) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", hours);
  return buf;
}

// Deletes the file a DELETE statement chose (enforce): the name the scan found it
// by, only while that name still refers to the scanned inode (a file renamed or
// replaced since the scan is "gone" and left alone). The kernel is told to drop
// its cached entry.
std::string DeleteForPolicy(FileSystem& fs, const policy::PlannedMove& m) {
  const size_t slash = m.path.rfind('/');
  auto parent = ResolvePath(fs, m.path.substr(0, slash));
  if (!parent.ok()) return "gone";
  Status st = fs.UnlinkForPolicy(parent->ino, m.path.substr(slash + 1), m.ino);
  if (st.ok()) return "deleted";
  if (st.code() == ENOENT || st.code() == ESTALE) return "gone";
  return "error: " + st.message();
}

// How the heat the scan ran on was obtained (docs/design.md "Passthrough
// opens"): always counted, never estimated; by the daemon for the I/O it
// serves, and by the kernel counter for passthrough I/O while one runs.
json HeatSource(const DaemonMetrics& m) {
  const char* hook = m.kernel_counter_hook();
  json heat = {{"method", "counted"},
               {"counted_by", hook != nullptr ? json::array({"daemon", "kernel"})
                                              : json::array({"daemon"})}};
  if (hook != nullptr) {
    heat["kernel_hook"] = hook;
    heat["kernel_read_bytes"] = m.KernelReadBytes();
    heat["kernel_written_bytes"] = m.KernelWrittenBytes();
    heat["uncounted_calls"] = m.KernelUncountedCalls();
  }
  return heat;
}

// Every temperature the statements of the file's governing rule measure, for
// query: [{"statement":"RELOCATE 1","kind":"IOTEMP nrbytes 6h","value":0.5,
// "average":0.2 (Average="*" only)}]. Empty when no rule governs the file.
json Temperatures(const policy::PlacementPolicy& pol, const policy::Evaluator& evaluator,
                  const policy::FileRecord& file, int rule_index) {
  json out = json::array();
  if (rule_index < 0 || static_cast<size_t>(rule_index) >= pol.rules.size()) return out;
  const std::vector<double>& windows = evaluator.window_hours();
  for (const policy::Statement& st : pol.rules[static_cast<size_t>(rule_index)].statements) {
    for (const policy::Criterion& c : st.criteria) {
      if (!c.IsTemperature()) continue;
      policy::IoCounters io;
      auto it = std::lower_bound(windows.begin(), windows.end(), c.period_hours);
      if (!file.windows.empty() && it != windows.end()) {
        io = file.windows[static_cast<size_t>(it - windows.begin())];
      }
      json entry = {{"statement", st.Label()},
                    {"kind", std::string(policy::CriterionKindName(c.kind)) + " " +
                                 policy::TempTypeName(c.type) + " " +
                                 FormatHours(c.period_hours) + "h"},
                    {"value", policy::FileTemperature(c, io, file.size)}};
      if (c.average) entry["average"] = evaluator.Average(c.type);
      out.push_back(std::move(entry));
    }
  }
  return out;
}

json Row(const FileSystem& fs, const policy::PlannedMove& m, const policy::FileRecord* record,
         const std::string& outcome) {
  json row = {{"path", m.path},
              {"ino", m.ino},
              {"rule", m.rule},
              {"statement", m.statement},
              {"action", ActionName(m.action)},
              {"from_class", m.from_class},
              {"from_volume", fs.volumes().NameOf(m.from_volume)},
              {"to_class", m.to_class},
              {"to_volume", fs.volumes().NameOf(m.to_volume)},
              {"temperature", m.temperature},
              {"temperature_kind", m.temperature_kind},
              {"bytes", m.bytes},
              {"outcome", outcome}};
  // Object volumes: their s3:// URL, for the report's legend.
  for (auto [volume, key] : {std::pair{m.from_volume, "from_url"}, {m.to_volume, "to_url"}}) {
    const meta::Volume* v = fs.volumes().Find(volume);
    if (v != nullptr && meta::IsObjectVolume(*v)) row[key] = v->path;
  }
  if (record != nullptr) {
    row["atime_ns"] = record->atime_s * kNanosPerSecond;
    row["mtime_ns"] = record->mtime_s * kNanosPerSecond;
  }
  return row;
}

// What an enforce did, for the summary and `fsppadm status`.
struct Tally {
  uint64_t files_moved = 0, bytes_moved = 0, files_deleted = 0;
  uint64_t busy = 0, errors = 0, nospace = 0, stopped = 0, gone = 0;
  uint64_t drained = 0;  // held by a SOURCE PERCENT (policy/planner.h)

  void Count(const std::string& outcome, uint64_t bytes) {
    if (outcome == "moved") {
      files_moved++;
      bytes_moved += bytes;
    } else if (outcome == "deleted") {
      files_deleted++;
    } else if (outcome == "busy") {
      busy++;
    } else if (outcome == "gone") {
      gone++;
    } else if (outcome == "stopped") {
      stopped++;
    } else if (outcome == "nospace") {
      nospace++;  // found full at run time (EnforceOutcome)
    } else if (outcome != "planned") {
      errors++;
    }
  }
};

// The policy of this scan: -F's, else the assigned one. EINVAL when neither.
Result<std::shared_ptr<const policy::PlacementPolicy>> ScanPolicy(const FileSystem& fs,
                                                                  const ScanRequest& request) {
  if (!request.policy_xml) {
    if (auto assigned = fs.policy()) return assigned;
    return Status::Invalid("no placement policy is assigned to " + fs.options().mountpoint +
                           " (fsppadm assign MOUNTPOINT POLICY.xml)");
  }
  policy::LoadResult loaded = policy::LoadPolicy(*request.policy_xml);
  // As assign: a PERIOD shorter than a heat bucket cannot be measured.
  if (loaded.ok()) policy::CheckHeatResolution(*loaded.policy, fs.heat_bucket_seconds(), &loaded);
  if (!loaded.ok()) {
    std::string why;
    for (const policy::Diagnostic& d : loaded.errors) why += d.ToString() + "\n";
    return Status::Invalid("the policy given with -F does not validate:\n" + why);
  }
  return std::make_shared<const policy::PlacementPolicy>(std::move(*loaded.policy));
}

// Which files the scan looks at (paths, -C, -T). EINVAL for a class no volume has.
Result<ScanSelection> Selection(const FileSystem& fs, const ScanRequest& request,
                                const policy::PlacementPolicy& pol, int64_t now_s) {
  ScanSelection selection;
  selection.paths = request.paths;
  selection.active_only = request.active_only;
  selection.active_since_s =
      now_s - static_cast<int64_t>(LongestPeriodHours(pol) * kSecondsPerHour);
  for (const std::string& cls : request.classes) {
    bool found = false;
    for (const meta::Volume& v : fs.volumes().volumes()) {
      if (v.placement_class == cls) {
        selection.volume_ids.push_back(v.id);
        found = true;
      }
    }
    if (!found) {
      return Status::Invalid("no volume of " + fs.options().mountpoint +
                             " has placement class " + cls);
    }
    selection.use_volumes = true;
  }
  return selection;
}

// The per-class table: projected free space, or for enforce the space measured after.
json ClassTable(const FileSystem& fs, const policy::ScanPlan& plan, bool measured) {
  const std::vector<policy::VolumeState> after =
      measured ? fs.volumes().Space(/*fresh=*/true) : std::vector<policy::VolumeState>{};
  json classes = json::array();
  for (const policy::ClassSpace& c : plan.classes) {
    if (fs.volumes().ClassHasObjectVolume(c.name)) {
      // A store's capacity is unknown: the planner's room for it
      // (kObjectVolumeBytes) is no size to show.
      classes.push_back({{"class", c.name}, {"object_store", true}});
      continue;
    }
    json entry = {{"class", c.name}, {"size_bytes", c.size_bytes},
                  {"free_before", c.free_before}, {"free_after", c.free_after}};
    if (measured) {
      uint64_t free = 0;
      for (const policy::VolumeState& v : after) {
        if (v.HasClass(c.name)) free += v.free_bytes;
      }
      entry["free_after"] = free;
    }
    classes.push_back(entry);
  }
  return classes;
}

// "-C -T ssd /dir": the options of a run as `fsppadm status` shows them.
std::string OptionsText(const ScanRequest& request) {
  std::string options = request.active_only ? "-C" : "";
  auto add = [&](const std::string& word) { options += (options.empty() ? "" : " ") + word; };
  for (const std::string& c : request.classes) add("-T " + c);
  if (request.no_wait) add("--no-wait");
  for (const std::string& p : request.paths) add(p);
  return options;
}

}  // namespace

int RelocationWorkers(int io_nice) {
  io_nice = std::clamp(io_nice, 1, 100);
  if (io_nice <= 50) return 1 + (io_nice - 1) * 15 / 49;  // 1..16
  return 16 + (io_nice - 50) * 16 / 50;                   // 16..32
}

std::vector<std::string> ScanService::ExecuteAll(const std::vector<policy::PlannedMove>& moves,
                                                 const ScanRequest& request, int workers,
                                                 const std::function<double()>& elapsed,
                                                 const ScanProgress& progress) {
  // Waves: a move into volume V comes after the last earlier move out of V.
  std::vector<size_t> wave(moves.size(), 0);
  std::unordered_map<uint32_t, size_t> last_out_wave;  // volume -> wave of its last move out
  size_t waves = 0;
  for (size_t i = 0; i < moves.size(); ++i) {
    const policy::PlannedMove& m = moves[i];
    if (m.action != policy::FileVerdict::kDelete) {
      if (auto it = last_out_wave.find(m.to_volume); it != last_out_wave.end()) {
        wave[i] = it->second + 1;
      }
    }
    size_t& out = last_out_wave[m.from_volume];
    out = std::max(out, wave[i]);
    waves = std::max(waves, wave[i] + 1);
  }

  std::vector<std::string> outcomes(moves.size());
  Mutex mu;  // guards the admission counters, `done` and progress calls
  uint64_t admitted_files = 0, admitted_bytes = 0, done = 0;
  // -n counts files acted on, -s bytes moved: a move is admitted against the limits
  // before it starts and gives its share back if it does not happen.
  auto admit = [&](const policy::PlannedMove& m) {
    MutexLock lock(mu);
    if ((request.max_files && admitted_files >= request.max_files) ||
        (request.max_bytes && admitted_bytes >= request.max_bytes) ||
        (request.max_seconds > 0 && elapsed() >= request.max_seconds)) {
      return false;
    }
    admitted_files++;
    if (m.action != policy::FileVerdict::kDelete) admitted_bytes += m.bytes;
    return true;
  };
  auto finish = [&](const policy::PlannedMove& m, const std::string& outcome) {
    MutexLock lock(mu);
    if (outcome != "moved" && outcome != "deleted" && outcome != "stopped") {
      admitted_files--;
      if (m.action != policy::FileVerdict::kDelete) admitted_bytes -= m.bytes;
    }
    done++;
    if (progress) progress("move", done, moves.size());
  };
  for (size_t w = 0; w < waves; ++w) {
    std::vector<size_t> members;
    for (size_t i = 0; i < moves.size(); ++i) {
      if (wave[i] == w) members.push_back(i);
    }
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k; (k = next.fetch_add(1)) < members.size();) {
        const policy::PlannedMove& m = moves[members[k]];
        std::string outcome = admit(m) ? Execute(m) : "stopped";
        finish(m, outcome);
        outcomes[members[k]] = std::move(outcome);
      }
    };
    const size_t threads = std::min<size_t>(std::max(workers, 1), members.size());
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();  // the calling thread is a worker too
    for (std::thread& t : pool) t.join();
  }
  return outcomes;
}

std::string EnforceOutcome(const Result<RelocationOutcome>& moved) {
  if (!moved.ok()) return "error: " + moved.status().message();
  // Moved off its planned source by another mover (the online path, a writer
  // off a full volume) since the plan: left alone, as a file renamed since.
  if (moved->skipped) return "gone";
  // A full destination is found only by the copy when the plan's free space
  // did not show it (a store has no free space to ask: its quota answers the
  // PUT). Before, such a move was counted an error and made enforce exit 1.
  if (moved->error == ENOSPC || moved->error == EDQUOT) return "nospace";
  return moved->outcome;
}

std::string ScanService::Execute(const policy::PlannedMove& move) {
  if (move.action == policy::FileVerdict::kDelete) return DeleteForPolicy(fs_, move);
  // From the volume the plan saw it on only: a file another mover moved since
  // is left where it is now.
  return EnforceOutcome(relocator_.Relocate(move.ino, move.to_volume,
                                            Relocator::Mode::kBackground, move.from_volume));
}

json ScanService::QueryRows(const policy::PlacementPolicy& pol, const ScanInputs& inputs,
                            const std::vector<policy::VolumeState>& space, int64_t now_s,
                            json rows) {
  // query names every file: also those that stay and those nothing applies to,
  // each with every temperature its rule measures, in path-name order.
  std::unordered_map<uint64_t, json> by_file;
  for (json& row : rows) by_file.emplace(row["ino"].get<uint64_t>(), std::move(row));
  policy::Evaluator evaluator(pol, space, inputs.totals, now_s);
  json ordered = json::array();
  for (const policy::FileRecord& r : inputs.files) {
    policy::FileVerdict v = evaluator.Evaluate(r);
    json row;
    if (auto it = by_file.find(r.ino); it != by_file.end()) {
      row = std::move(it->second);
    } else {
      policy::PlannedMove m;
      m.ino = r.ino;
      m.path = r.path;
      m.rule = v.rule;
      m.statement = v.statement;
      m.action = v.action;
      m.from_volume = r.volume_id;
      if (const policy::VolumeState* vol = evaluator.FindVolume(r.volume_id)) {
        m.from_class = vol->classes.empty() ? "" : vol->classes.front();
      }
      m.temperature = v.temperature;
      m.temperature_kind = v.temperature_kind;
      m.bytes = r.size;
      row = Row(fs_, m, &r, v.rule.empty() ? "no rule" : "no statement applies");
    }
    row["temperatures"] = Temperatures(pol, evaluator, r, v.rule_index);
    ordered.push_back(std::move(row));
  }
  return ordered;
}

Result<json> ScanService::Run(const ScanRequest& request, const ScanProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t started_ns = fs_.clock().NowNanos();
  Result<json> result = RunOnce(request, progress);
  if (request.mode == ScanRequest::Mode::kQuery) return result;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs_.metrics().RecordScan(ModeName(request.mode), seconds, !result.ok());
  if (!result.ok()) {
    // A run that failed or was refused (another enforce running, with
    // --no-wait: the schedule's runs) is history too (fsppadm status).
    meta::ScanRecord record;
    record.started_ns = started_ns;
    record.seconds = seconds;
    record.kind = ModeName(request.mode);
    record.options = OptionsText(request);
    record.failure = result.status().message();
    if (record.failure.empty()) record.failure = std::strerror(result.status().code());
    fs_.metadata().RecordScan(&record);
  }
  return result;
}

Result<json> ScanService::RunOnce(const ScanRequest& request, const ScanProgress& progress) {
  const bool enforce = request.mode == ScanRequest::Mode::kEnforce;
  MutexLock enforce_lock(enforce_mu_, std::defer_lock);
  if (enforce) {
    if (!request.no_wait) {
      enforce_lock.Lock();
    } else if (!enforce_lock.TryLock()) {
      return Status::Error(EBUSY, "another fsppadm enforce is running on " +
                                      fs_.options().mountpoint);
    }
  }
  const auto wall_start = std::chrono::steady_clock::now();
  const int64_t started_ns = fs_.clock().NowNanos();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  };

  // The scan sees all I/O up to its start (docs/policies.md "Temperatures").
  TIERFS_RETURN_IF_ERROR(fs_.FlushAll());
  auto pol = ScanPolicy(fs_, request);
  if (!pol.ok()) return pol.status();
  const int64_t now_s = fs_.clock().NowSeconds();
  auto selection = Selection(fs_, request, **pol, now_s);
  if (!selection.ok()) return selection.status();
  auto inputs = GatherScanInputs(fs_, **pol, *selection, now_s, [&](uint64_t found) {
    if (progress) progress("scan", found, 0);  // the total is not known during the walk
  });
  if (!inputs.ok()) return inputs.status();
  if (progress) progress("scan", inputs->files.size(), inputs->files.size());
  std::unordered_map<uint64_t, const policy::FileRecord*> by_ino;
  for (const policy::FileRecord& r : inputs->files) by_ino.emplace(r.ino, &r);
  auto record_of = [&](uint64_t ino) {
    auto it = by_ino.find(ino);
    return it == by_ino.end() ? nullptr : it->second;
  };

  const std::vector<policy::VolumeState> space = fs_.volumes().Space(/*fresh=*/true);
  policy::ScanPlan plan = policy::PlanScan(**pol, inputs->files, space, inputs->totals, now_s);

  json rows = json::array();
  Tally tally;
  uint64_t bytes_planned = 0;
  const std::vector<std::string> outcomes =
      enforce ? ExecuteAll(plan.moves, request, RelocationWorkers(request.io_nice), elapsed,
                           progress)
              : std::vector<std::string>(plan.moves.size(), "planned");
  for (size_t i = 0; i < plan.moves.size(); ++i) {
    const policy::PlannedMove& m = plan.moves[i];
    bytes_planned += m.bytes;
    tally.Count(outcomes[i], m.bytes);
    rows.push_back(Row(fs_, m, record_of(m.ino), outcomes[i]));
  }
  for (const policy::PlannedMove& m : plan.skipped) {
    (m.skip_reason == "drained" ? tally.drained : tally.nospace)++;
    rows.push_back(Row(fs_, m, record_of(m.ino), m.skip_reason.empty() ? "nospace" : m.skip_reason));
  }
  if (request.mode == ScanRequest::Mode::kQuery) {
    for (const policy::PlannedMove& m : plan.stays) rows.push_back(Row(fs_, m, record_of(m.ino), "stay"));
    rows = QueryRows(**pol, *inputs, space, now_s, std::move(rows));
  }

  json notes = json::array();
  if (request.active_only) {
    const double hours = LongestPeriodHours(**pol);
    notes.push_back("-C: only files with activity in the last " + FormatHours(hours) +
                    (hours == 1 ? " hour" : " hours") + " were scanned; cold files are not seen");
  }
  const double seconds = elapsed();
  json result = {
      {"policy", (*pol)->name},
      {"mode", ModeName(request.mode)},
      {"started_ns", started_ns},
      {"seconds", seconds},
      {"rows", std::move(rows)},
      {"summary",
       {{"sweep_paths", request.paths.empty() ? json::array({"/"}) : json(request.paths)},
        {"files_scanned", plan.files_scanned},
        {"files_planned", plan.moves.size()},
        {"bytes_planned", bytes_planned},
        {"files_moved", tally.files_moved},
        {"bytes_moved", tally.bytes_moved},
        {"files_deleted", tally.files_deleted},
        {"files_skipped", {{"nospace", tally.nospace}, {"busy", tally.busy},
                           {"error", tally.errors}, {"stopped", tally.stopped},
                           {"gone", tally.gone}, {"drained", tally.drained}}}}},
      {"classes", ClassTable(fs_, plan, /*measured=*/enforce)},
      {"heat", HeatSource(fs_.metrics())},
      {"notes", notes}};

  if (request.mode != ScanRequest::Mode::kQuery) {
    meta::ScanRecord record;
    record.started_ns = started_ns;
    record.seconds = seconds;
    record.kind = ModeName(request.mode);
    record.options = OptionsText(request);
    record.files_scanned = plan.files_scanned;
    record.files_moved = tally.files_moved;
    record.bytes_moved = tally.bytes_moved;
    record.errors = tally.errors;
    record.files_deleted = tally.files_deleted;
    fs_.metadata().RecordScan(&record);
  }
  return result;
}

}  // namespace tierfs
