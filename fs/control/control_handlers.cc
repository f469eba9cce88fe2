#include "fs/control/control_handlers.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "fs/control/check_ops.h"
#include "fs/tiering/io_history.h"
#include "fs/control/request_fields.h"
#include "fs/control/scan_request_json.h"
#include "fs/control/tier_summary.h"
#include "policy/loader.h"

namespace tierfs {
namespace {

using nlohmann::json;

std::string JoinDiagnostics(const std::vector<policy::Diagnostic>& diags) {
  std::string out;
  for (const policy::Diagnostic& d : diags) out += (out.empty() ? "" : "\n") + d.ToString();
  return out;
}

json DiagnosticsJson(const std::vector<policy::Diagnostic>& diags) {
  json out = json::array();
  for (const policy::Diagnostic& d : diags) out.push_back(d.ToString());
  return out;
}

}  // namespace

Result<json> ControlHandlers::Handle(const json& request, const ControlPeer& peer,
                                     ControlReply& reply) {
  try {
    return Dispatch(request, peer, reply);
  } catch (const json::type_error& e) {
    // A member of the wrong type ("limit": "x"): the request's fault, not ours.
    return Status::Invalid(std::string("malformed request: ") + e.what());
  } catch (const json::out_of_range& e) {
    return Status::Invalid(std::string("malformed request: ") + e.what());
  }
}

Result<json> ControlHandlers::Dispatch(const json& request, const ControlPeer& peer,
                                       ControlReply& reply) {
  if (!request.is_object() || !request.contains("op") || !request["op"].is_string()) {
    return Status::Invalid("request must be an object with a string \"op\"");
  }
  const std::string op = request["op"];
  if (op == "ping") {
    return json{{"fs_name", fs_.info().name}, {"fs_uuid", fs_.info().uuid},
                {"mountpoint", fs_.options().mountpoint}, {"pid", getpid()}};
  }
  if (op == "volumes") return Volumes();
  if (op == "volume_add") return VolumeAdd(request);
  if (op == "volume_remove") return VolumeRemove(request, reply);
  if (op == "volume_setclass") return VolumeSetClass(request);
  // What a tool reads from the database includes files written a moment ago
  // (no-open mode flushes them shortly after, fs/core/delayed_attribute_flush.h).
  fs_.DrainDelayedFlushes();
  // And the heat of reads and writes the kernel served by passthrough (the
  // counter drains on its own once a second).
  fs_.DrainKernelHeat();
  if (op == "assign") return Assign(request, /*validate_only=*/false);
  if (op == "validate") return Assign(request, /*validate_only=*/true);
  if (op == "unassign") return Unassign();
  if (op == "get_policy") return GetPolicy();
  if (op == "scan") return Scan(request, reply);
  if (op == "fsmap") return Fsmap(request);
  if (op == "fcl") return Fcl(request);
  if (op == "status") return ScanStatus(request);
  if (op == "heat_bucket") return HeatBucket(request);
  if (op == "check") return HandleCheckOp(fs_, request, reply);    // fs/control/check_ops.h
  if (op == "backup") return HandleBackupOp(fs_, request, reply);  // fs/control/check_ops.h
  if (op == "tier_summary") return TierSummaryJson(fs_, request);  // fs/control/tier_summary.h
  if (op == "io_history") {  // fs/tiering/io_history.h: the history `fsppadm advise` replays
    auto tags = RequestBool(request, "tags", false);
    if (!tags.ok()) return tags.status();
    return IoHistoryJson(fs_, *tags);
  }
  if (op == "flush") {
    TIERFS_RETURN_IF_ERROR(fs_.FlushAll());
    return json::object();
  }
  return Status::Invalid("unknown op \"" + op + "\"");
}

Result<json> ControlHandlers::Volumes() {
  json out = json::array();
  std::vector<policy::VolumeState> space = fs_.volumes().Space(/*fresh=*/true);
  for (const meta::Volume& v : fs_.volumes().volumes()) {
    json entry = {{"id", v.id},
                  {"name", v.name},
                  {"path", v.path},
                  {"class", v.placement_class},
                  {"media_type", v.media_type},
                  {"media_type_source", v.media_type_source},
                  {"role", v.role},
                  {"state", fs_.volumes().StateOf(v)}};
    if (meta::IsObjectVolume(v)) {
      entry["endpoint"] = v.endpoint;
      entry["credentials_file"] = v.credentials_file;  // its path; the secret stays there
      entry["region"] = v.region.empty() ? "us-east-1" : v.region;
      entry["addressing"] = v.addressing.empty() ? "path" : v.addressing;
      if (!v.ca_file.empty()) entry["ca_file"] = v.ca_file;
    }
    for (const policy::VolumeState& s : space) {
      // A store's capacity is unknown: no size, used or free is shown for it.
      if (s.id == v.id && !meta::IsObjectVolume(v)) {
        entry["total_bytes"] = s.total_bytes;
        entry["free_bytes"] = s.free_bytes;
        entry["used_bytes"] = s.total_bytes - std::min(s.total_bytes, s.free_bytes);
      }
    }
    auto files = fs_.metadata().FilesOnVolumes({v.id});
    if (files.ok()) {
      uint64_t bytes = 0;
      for (const meta::Inode& f : *files) bytes += f.size;
      entry["files"] = files->size();
      entry["file_bytes"] = bytes;
    }
    out.push_back(entry);
  }
  return json{{"volumes", out}};
}

namespace {

json VolumeRowJson(const meta::Volume& v) {
  json row{{"id", v.id},
           {"name", v.name},
           {"path", v.path},
           {"class", v.placement_class},
           {"media_type", v.media_type},
           {"media_type_source", v.media_type_source},
           {"role", v.role}};
  if (meta::IsObjectVolume(v)) {
    row["endpoint"] = v.endpoint;
    row["credentials_file"] = v.credentials_file;
    row["region"] = v.region.empty() ? "us-east-1" : v.region;
    row["addressing"] = v.addressing.empty() ? "path" : v.addressing;
    if (!v.ca_file.empty()) row["ca_file"] = v.ca_file;
  }
  return row;
}

// The classes the assigned policy names that no volume has any more: a rule
// that names one places nothing there (a warning, as assign -f would give).
json MissingPolicyClasses(FileSystem& fs) {
  json out = json::array();
  auto pol = fs.policy();
  if (!pol) return out;
  std::vector<std::string> classes;
  for (const meta::Volume& v : fs.volumes().volumes()) classes.push_back(v.placement_class);
  policy::LoadResult check;
  policy::CheckClasses(*pol, classes, /*force=*/true, &check);
  for (const policy::Diagnostic& d : check.warnings) out.push_back(d.ToString());
  return out;
}

}  // namespace

Result<json> ControlHandlers::VolumeAdd(const json& request) {
  AddVolumeRequest add;
  for (auto [field, target] : {std::pair{"path", &add.path}, {"class", &add.placement_class},
                               {"media_type", &add.media_type},
                               {"media_type_source", &add.media_type_source},
                               {"endpoint", &add.endpoint},
                               {"credentials_file", &add.credentials_file},
                               {"region", &add.region}, {"addressing", &add.addressing},
                               {"ca_file", &add.ca_file}}) {
    auto value = RequestString(request, field, "");
    if (!value.ok()) return value.status();
    *target = *value;
  }
  if (add.path.empty()) return Status::Invalid("volume_add needs \"path\"");
  if (add.media_type.empty()) add.media_type = "unknown";
  if (add.media_type_source.empty()) add.media_type_source = "configured";
  auto row = volume_admin_.Add(add);
  if (!row.ok()) return row.status();
  return json{{"volume", VolumeRowJson(*row)}, {"warnings", MissingPolicyClasses(fs_)}};
}

Result<json> ControlHandlers::VolumeRemove(const json& request, ControlReply& reply) {
  auto name = RequestString(request, "volume", "");
  if (!name.ok()) return name.status();
  if (name->empty()) return Status::Invalid("volume_remove needs \"volume\"");
  auto report = volume_admin_.Remove(*name, [&](uint64_t done, uint64_t total, uint64_t bytes) {
    reply.Progress(json{{"phase", "evacuate"}, {"done", done}, {"total", total}, {"bytes", bytes}});
  });
  if (!report.ok()) return report.status();
  return json{{"volume", VolumeRowJson(report->volume)},
              {"files_moved", report->files_moved},
              {"bytes_moved", report->bytes_moved},
              {"outside_create_classes", report->outside_create_classes},
              {"busy_retries", report->busy_retries},
              {"label_warning", report->label_warning},
              {"warnings", MissingPolicyClasses(fs_)}};
}

Result<json> ControlHandlers::VolumeSetClass(const json& request) {
  auto name = RequestString(request, "volume", "");
  if (!name.ok()) return name.status();
  auto cls = RequestString(request, "class", "");
  if (!cls.ok()) return cls.status();
  if (name->empty() || cls->empty()) {
    return Status::Invalid("volume_setclass needs \"volume\" and \"class\"");
  }
  auto before = volume_admin_.SetClass(*name, *cls);
  if (!before.ok()) return before.status();
  meta::Volume after = *before;
  after.placement_class = *cls;
  return json{{"volume", VolumeRowJson(after)},
              {"old_class", before->placement_class},
              {"warnings", MissingPolicyClasses(fs_)}};
}

Result<json> ControlHandlers::Assign(const json& request, bool validate_only) {
  if (!request.contains("xml") || !request["xml"].is_string()) {
    return Status::Invalid("assign needs the policy text in \"xml\"");
  }
  const std::string xml = request["xml"];
  MutexLock lock(admin_mu_);
  policy::LoadResult result = policy::LoadPolicy(xml);
  if (result.ok()) {
    std::vector<std::string> classes;
    for (const meta::Volume& v : fs_.volumes().volumes()) classes.push_back(v.placement_class);
    auto force = RequestBool(request, "force", false);
    if (!force.ok()) return force.status();
    policy::CheckClasses(*result.policy, classes, *force, &result);
  }
  // The current length, not info()'s: fsppadm heatbucket may have changed it.
  if (result.ok()) policy::CheckHeatResolution(*result.policy, fs_.heat_bucket_seconds(), &result);
  if (!result.ok()) return Status::Invalid(JoinDiagnostics(result.errors));
  json out = {{"name", result.policy->name}, {"warnings", DiagnosticsJson(result.warnings)}};
  if (validate_only) return out;
  meta::PolicyRecord record;
  record.name = result.policy->name;
  record.xml = xml;
  record.assigned_ns = fs_.clock().NowNanos();
  TIERFS_RETURN_IF_ERROR(fs_.metadata().SetPolicy(record));
  TIERFS_RETURN_IF_ERROR(fs_.ReloadPolicy());
  return out;
}

Result<json> ControlHandlers::Unassign() {
  TIERFS_RETURN_IF_ERROR(fs_.metadata().ClearPolicy());
  TIERFS_RETURN_IF_ERROR(fs_.ReloadPolicy());
  return json::object();
}

Result<json> ControlHandlers::GetPolicy() {
  auto record = fs_.metadata().GetPolicy();
  if (!record.ok()) return record.status();
  if (!record->has_value()) return json{{"policy", nullptr}};
  const meta::PolicyRecord& p = **record;
  return json{{"policy", {{"name", p.name}, {"xml", p.xml}, {"assigned_ns", p.assigned_ns}}}};
}

Result<json> ControlHandlers::Scan(const json& request, ControlReply& reply) {
  auto parsed = ParseScanRequest(request);
  if (!parsed.ok()) return parsed.status();
  Result<json> result =
      scans_.Run(*parsed, [&](const std::string& phase, uint64_t done, uint64_t total) {
        reply.Progress(json{{"phase", phase}, {"done", done}, {"total", total}});
      });
  // What online promotion has queued (analyze and enforce; not query, whose
  // rows are the answer): the files it will move before the next scan.
  if (result.ok() && result->is_object() && parsed->mode != ScanRequest::Mode::kQuery) {
    json online = online_.StatusJson();
    if (online.value("online", false)) (*result)["online_queued"] = online["queued"];
  }
  return result;
}

Result<json> ControlHandlers::Fsmap(const json& request) {
  if (!request.contains("inos") || !request["inos"].is_array()) {
    return Status::Invalid("fsmap needs \"inos\": a list of inode numbers");
  }
  json files = json::array();
  for (const json& j : request["inos"]) {
    if (!j.is_number_unsigned() || j.get<uint64_t>() > uint64_t{INT64_MAX}) {
      return Status::Invalid("inode numbers must be integers from 0 to " +
                             std::to_string(INT64_MAX));
    }
    const uint64_t ino = j.get<uint64_t>();
    auto attr = fs_.CurrentAttr(ino);
    if (!attr.ok()) return attr.status();
    json entry = {{"ino", ino}, {"size", attr->size}, {"volume", ""}, {"volume_id", 0},
                  {"class", "-"}};
    if (S_ISREG(attr->mode)) {
      if (const meta::Volume* v = fs_.volumes().Find(attr->volume_id)) {
        entry["volume"] = v->name;
        entry["volume_id"] = v->id;
        entry["class"] = v->placement_class;
        // A file on an object volume: where its object is (no request is made).
        if (const ObjectVolume* store = fs_.volumes().Store(v->id)) {
          entry["url"] = store->Url(store->KeyOf(*attr));
          entry["endpoint"] = v->endpoint;
        }
      }
    }
    if (auto path = fs_.metadata().PathOf(ino); path.ok()) entry["path"] = *path;
    files.push_back(entry);
  }
  return json{{"files", files}};
}

Result<json> ControlHandlers::Fcl(const json& request) {
  auto action_field = RequestString(request, "action", "");
  if (!action_field.ok()) return action_field.status();
  const std::string& action = *action_field;
  meta::Metadata& meta = fs_.metadata();
  if (action == "on" || action == "off") {
    TIERFS_RETURN_IF_ERROR(meta.SetFclEnabled(action == "on"));
  } else if (action == "sync") {
    TIERFS_RETURN_IF_ERROR(fs_.FlushAll());
  } else if (action == "print") {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    auto from_seq = RequestInt(request, "from_seq", 0, kMax, 0);
    if (!from_seq.ok()) return from_seq.status();
    auto from_time_ns = RequestInt(request, "from_time_ns", 0, kMax, 0);
    if (!from_time_ns.ok()) return from_time_ns.status();
    auto limit = RequestInt(request, "limit", 0, kMax, 0);
    if (!limit.ok()) return limit.status();
    json records = json::array();
    Status st = meta.ReadFcl(*from_seq, *from_time_ns, static_cast<size_t>(*limit),
                             [&](const meta::FclRecord& r) {
                               records.push_back({{"seq", r.seq},
                                                  {"time_ns", r.time_ns},
                                                  {"event", r.event},
                                                  {"ino", r.ino},
                                                  {"parent", r.parent},
                                                  {"name", r.name},
                                                  {"detail", r.detail}});
                             });
    if (!st.ok()) return st;
    return json{{"records", records}};
  } else if (action != "state") {
    return Status::Invalid("fcl action must be on, off, state, sync or print");
  }
  auto on = meta.FclEnabled();
  if (!on.ok()) return on.status();
  int64_t first = 0, last = 0;
  uint64_t count = 0;
  Status st = meta.ReadFcl(0, 0, 0, [&](const meta::FclRecord& r) {
    if (count++ == 0) first = r.seq;
    last = r.seq;
  });
  if (!st.ok()) return st;
  return json{{"state", *on ? "on" : "off"}, {"records", count}, {"first_seq", first},
              {"last_seq", last}};
}

Result<json> ControlHandlers::ScanStatus(const json& request) {
  auto limit_field = RequestInt(request, "limit", 0, std::numeric_limits<int64_t>::max(), 10);
  if (!limit_field.ok()) return limit_field.status();
  const size_t limit = static_cast<size_t>(*limit_field);
  auto scans = fs_.metadata().RecentScans(limit);
  if (!scans.ok()) return scans.status();
  auto moves = fs_.metadata().RecentRelocations(limit);
  if (!moves.ok()) return moves.status();
  json out_scans = json::array();
  for (const meta::ScanRecord& s : *scans) {
    out_scans.push_back({{"id", s.id}, {"started_ns", s.started_ns}, {"seconds", s.seconds},
                         {"kind", s.kind}, {"options", s.options},
                         {"files_scanned", s.files_scanned}, {"files_moved", s.files_moved},
                         {"files_deleted", s.files_deleted},
                         {"bytes_moved", s.bytes_moved}, {"errors", s.errors},
                         {"failure", s.failure}});
  }
  json out_moves = json::array();
  // A volume removed since (fsvoladm remove) has no name any more: say which it was.
  auto volume_name = [&](uint32_t id) {
    std::string name = fs_.volumes().NameOf(id);
    return name.empty() ? "volume " + std::to_string(id) + " (removed)" : name;
  };
  for (const meta::RelocationRecord& r : *moves) {
    auto path = fs_.metadata().PathOf(r.ino);
    out_moves.push_back({{"time_ns", r.time_ns}, {"ino", r.ino},
                         {"path", path.ok() ? *path : ""},
                         {"from_volume", volume_name(r.from_volume)},
                         {"to_volume", volume_name(r.to_volume)}, {"bytes", r.bytes},
                         {"seconds", r.seconds}, {"outcome", r.outcome}});
  }
  // What INIT decided about passthrough (empty before INIT, which a daemon
  // answering here has had unless the kernel never sent it).
  const DaemonMetrics::PassthroughDecision pt = fs_.metrics().passthrough_decision();
  const char* hook = fs_.metrics().kernel_counter_hook();
  return json{{"scans", out_scans},
              {"relocations", out_moves},
              {"heat_bucket_seconds", fs_.heat_bucket_seconds()},
              {"passthrough", {{"requested", pt.requested},
                               {"mode", pt.mode},
                               {"hook", hook != nullptr ? hook : ""},
                               {"why", pt.why}}},
              {"online", online_.StatusJson()}};
}

Result<json> ControlHandlers::HeatBucket(const json& request) {
  auto seconds = RequestInt(request, "seconds", meta::kMinIoBucketSeconds,
                            meta::kMaxIoBucketSeconds, 0);
  if (!seconds.ok()) return seconds.status();
  if (*seconds == 0) return Status::Invalid("heat_bucket needs \"seconds\": 1 to 86400");
  MutexLock lock(admin_mu_);
  const int64_t old_seconds = fs_.heat_bucket_seconds();
  // The assigned policy must still measure every PERIOD with the new length.
  auto record = fs_.metadata().GetPolicy();
  if (!record.ok()) return record.status();
  if (record->has_value()) {
    policy::LoadResult result = policy::LoadPolicy((*record)->xml);
    if (result.ok()) policy::CheckHeatResolution(*result.policy, *seconds, &result);
    if (!result.ok()) {
      return Status::Invalid("the assigned policy " + (*record)->name +
                             " would not be valid with a heat bucket of " +
                             std::to_string(*seconds) + " s (nothing changed):\n" +
                             JoinDiagnostics(result.errors));
    }
  }
  TIERFS_RETURN_IF_ERROR(fs_.RestartHeatCounts(*seconds));
  return json{{"old_seconds", old_seconds}, {"seconds", *seconds}, {"counts_restarted", true}};
}

}  // namespace tierfs
