#include "fs/metrics/metrics_collector.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace tierfs {

namespace {

// Volume id -> (name, class); a volume removed since is "removed".
struct VolumeNames {
  std::map<uint32_t, std::pair<std::string, std::string>> by_id;
  explicit VolumeNames(const VolumeSet& volumes) {
    for (const meta::Volume& v : volumes.volumes()) by_id[v.id] = {v.name, v.placement_class};
  }
  std::string Name(uint32_t id) const {
    auto it = by_id.find(id);
    return it == by_id.end() ? "removed" : it->second.first;
  }
  std::string Class(uint32_t id) const {
    auto it = by_id.find(id);
    return it == by_id.end() ? "removed" : it->second.second;
  }
};

constexpr const char* kVolumeStates[] = {"online", "full", "offline", "draining", "removing"};

}  // namespace

void MetricsCollector::AddSingle(std::vector<MetricFamily>* out, std::string name,
                                 std::string help, MetricType type, const std::string& mount,
                                 double value) {
  Family family(std::move(name), std::move(help), type, mount);
  family.AddValue({}, value);
  out->push_back(std::move(family.f));
}

std::vector<MetricFamily> MetricsCollector::Collect() const {
  std::vector<MetricFamily> out;
  CollectVolumes(&out);
  CollectRelocations(&out);
  CollectScans(&out);
  CollectRequests(&out);
  CollectStores(&out);
  const std::string& mount = fs_.options().mountpoint;
  const InodeTable::Counts inodes = fs_.inodes().Count();
  AddSingle(&out, "tierfs_inodes_looked_up",
            "Inodes the kernel holds a lookup count on (each costs the daemon a slot).",
            MetricType::Gauge, mount, static_cast<double>(inodes.known));
  AddSingle(&out, "tierfs_inodes_active",
            "Inodes with attributes cached in the daemon: open (also for the kernel's opens "
            "under --no_open), pinned, dirty, unlinked, "
            "or among the --cached_inodes most recently used.",
            MetricType::Gauge, mount, static_cast<double>(inodes.active));
  AddSingle(&out, "tierfs_kernel_open_files",
            "Files whose object stays open for the kernel's opens (--no_open; at "
            "most --cached_opens).",
            MetricType::Gauge, mount, static_cast<double>(fs_.KernelOpenCount()));
  // The one lane every namespace request shares: how often it was found taken.
  const meta::LockWaits waits = fs_.metadata().LockWaits();
  AddSingle(&out, "tierfs_metadata_lock_acquisitions_total",
            "Times the metadata database's lock was taken (a request's query or "
            "change, a flush, a group commit).",
            MetricType::Counter, mount, static_cast<double>(waits.taken));
  AddSingle(&out, "tierfs_metadata_lock_waits_total",
            "Requests that found the metadata database's lock taken (by another request "
            "or a group commit) and waited for it.",
            MetricType::Counter, mount, static_cast<double>(waits.count));
  AddSingle(&out, "tierfs_metadata_lock_wait_seconds_total",
            "Seconds requests spent waiting for the metadata database's lock, "
            "summed over the requests.",
            MetricType::Counter, mount, static_cast<double>(waits.nanos) / 1e9);
  // How heat is obtained: the daemon counts what reaches it; passthrough I/O is
  // counted in the kernel (fs/bpf/), and this says by which hook and how much.
  const DaemonMetrics& m = fs_.metrics();
  Family counter("tierfs_heat_kernel_counter",
                 "1 while passthrough reads and writes are counted for heat in the kernel, "
                 "labelled with the hook that counts them (absent: the daemon counts all I/O).",
                 MetricType::Gauge, mount);
  if (const char* hook = m.kernel_counter_hook()) counter.AddValue({{"hook", hook}}, 1);
  out.push_back(std::move(counter.f));
  Family kernel_bytes("tierfs_heat_kernel_counted_bytes_total",
                      "Bytes of passthrough I/O the kernel served and counted for heat (also in "
                      "the volume and class totals).",
                      MetricType::Counter, mount);
  kernel_bytes.AddValue({{"direction", "read"}}, static_cast<double>(m.KernelReadBytes()));
  kernel_bytes.AddValue({{"direction", "write"}}, static_cast<double>(m.KernelWrittenBytes()));
  out.push_back(std::move(kernel_bytes.f));
  Family uncounted("tierfs_heat_uncounted_calls_total",
                   "Passthrough reads and writes the kernel counter could not count (its maps "
                   "were full): heat missing from their files.",
                   MetricType::Counter, mount);
  uncounted.AddValue({}, static_cast<double>(m.KernelUncountedCalls()));
  out.push_back(std::move(uncounted.f));
  if (auto fcl = fs_.metadata().FclRecordCount(); fcl.ok()) {
    Family records("tierfs_fcl_records", "Records in the File Change Log.", MetricType::Gauge,
                   mount);
    records.AddValue({}, static_cast<double>(*fcl));
    out.push_back(std::move(records.f));
  }
  return out;
}

void MetricsCollector::CollectVolumes(std::vector<MetricFamily>* out) const {
  const std::string& mount = fs_.options().mountpoint;
  const VolumeSet& volumes = fs_.volumes();
  Family capacity("tierfs_volume_capacity_bytes", "Size of the file system holding the volume.",
                  MetricType::Gauge, mount);
  Family used("tierfs_volume_used_bytes", "Bytes in use on the volume's file system.",
              MetricType::Gauge, mount);
  Family free_bytes("tierfs_volume_free_bytes",
                    "Bytes available to tierfs on the volume's file system.", MetricType::Gauge,
                    mount);
  Family files("tierfs_volume_files", "Regular files whose bytes are on the volume.",
               MetricType::Gauge, mount);
  Family file_bytes("tierfs_volume_file_bytes", "Sum of the sizes of the volume's files.",
                    MetricType::Gauge, mount);
  Family state("tierfs_volume_state", "1 for the volume's current state, 0 for the others.",
               MetricType::Gauge, mount);
  Family read("tierfs_volume_read_bytes_total",
              "Bytes read from the volume's objects (FUSE reads that reached it).",
              MetricType::Counter, mount);
  Family written("tierfs_volume_written_bytes_total", "Bytes written to the volume's objects.",
                 MetricType::Counter, mount);
  Family direct_written("tierfs_volume_direct_written_bytes_total",
                        "Bytes of those written with O_DIRECT (whole pages of large writes), "
                        "past the volume's page cache.",
                        MetricType::Counter, mount);
  Family class_read("tierfs_class_read_bytes_total",
                    "Bytes read from the volumes of each placement class (current classes).",
                    MetricType::Counter, mount);
  Family class_written("tierfs_class_written_bytes_total",
                       "Bytes written to the volumes of each placement class (current classes).",
                       MetricType::Counter, mount);

  std::map<uint32_t, meta::VolumeUsage> usage;
  fs_.DrainDelayedFlushes();  // the sizes of files written a moment ago, too
  if (auto rows = fs_.metadata().UsageByVolume(); rows.ok()) {
    for (const meta::VolumeUsage& u : *rows) usage[u.volume_id] = u;
  }
  std::map<uint32_t, policy::VolumeState> space;
  for (const policy::VolumeState& s : volumes.Space(/*fresh=*/true)) space[s.id] = s;
  std::map<std::string, std::pair<double, double>> per_class;  // class -> read, written
  for (const meta::Volume& v : volumes.volumes()) {
    std::vector<ClientMetric::Label> labels = {{"volume", v.name}, {"class", v.placement_class}};
    // A store's capacity is unknown (kObjectVolumeBytes is the planner's room
    // for it, no size): no capacity, used or free series for it.
    if (auto s = space.find(v.id); s != space.end() && !meta::IsObjectVolume(v)) {
      capacity.AddValue(labels, static_cast<double>(s->second.total_bytes));
      free_bytes.AddValue(labels, static_cast<double>(s->second.free_bytes));
      used.AddValue(labels, static_cast<double>(s->second.total_bytes -
                                                std::min(s->second.total_bytes,
                                                         s->second.free_bytes)));
    }
    if (auto u = usage.find(v.id); u != usage.end()) {
      files.AddValue(labels, static_cast<double>(u->second.files));
      file_bytes.AddValue(labels, static_cast<double>(u->second.bytes));
    }
    const std::string now = volumes.StateOf(v);
    for (const char* name : kVolumeStates) {
      std::vector<ClientMetric::Label> l = labels;
      l.push_back({"state", name});
      state.AddValue(std::move(l), now == name ? 1 : 0);
    }
    const double r = static_cast<double>(fs_.metrics().ReadBytes(v.id));
    const double w = static_cast<double>(fs_.metrics().WrittenBytes(v.id));
    read.AddValue(labels, r);
    written.AddValue(labels, w);
    direct_written.AddValue(labels, static_cast<double>(fs_.metrics().DirectWrittenBytes(v.id)));
    per_class[v.placement_class].first += r;
    per_class[v.placement_class].second += w;
  }
  for (const auto& [name, rw] : per_class) {
    class_read.AddValue({{"class", name}}, rw.first);
    class_written.AddValue({{"class", name}}, rw.second);
  }
  for (Family* f : {&capacity, &used, &free_bytes, &files, &file_bytes, &state, &read, &written,
                    &direct_written, &class_read, &class_written}) {
    out->push_back(std::move(f->f));
  }
}

void MetricsCollector::CollectRelocations(std::vector<MetricFamily>* out) const {
  const std::string& mount = fs_.options().mountpoint;
  {
    // Online promotion (fs/tiering/online_promoter.h): also counted in the
    // relocation totals below, by direction and outcome, as every relocation.
    const OnlineCounters& o = fs_.metrics().online();
    Family moves("tierfs_online_relocations_total",
                 "Files moved by online promotion: kind=promotion (the hot file) or "
                 "kind=demotion (a colder resident swapped out to make room).",
                 MetricType::Counter, mount);
    moves.AddValue({{"kind", "promotion"}}, static_cast<double>(o.promotions.load()));
    moves.AddValue({{"kind", "demotion"}}, static_cast<double>(o.demotions.load()));
    out->push_back(std::move(moves.f));
    Family bytes("tierfs_online_relocated_bytes_total",
                 "Bytes copied by online promotion (its rate is the bytes moved per second).",
                 MetricType::Counter, mount);
    bytes.AddValue({}, static_cast<double>(o.bytes_moved.load()));
    out->push_back(std::move(bytes.f));
    Family skipped("tierfs_online_skipped_total",
                   "Online candidates not moved, by reason: cold (its statement no longer "
                   "held), busy (written meanwhile; retried), noroom, queuefull.",
                   MetricType::Counter, mount);
    skipped.AddValue({{"reason", "cold"}}, static_cast<double>(o.skipped_cold.load()));
    skipped.AddValue({{"reason", "busy"}}, static_cast<double>(o.busy.load()));
    skipped.AddValue({{"reason", "noroom"}}, static_cast<double>(o.no_room.load()));
    skipped.AddValue({{"reason", "queuefull"}}, static_cast<double>(o.dropped.load()));
    out->push_back(std::move(skipped.f));
    Family queue("tierfs_online_queue_length", "Files queued for online promotion.",
                 MetricType::Gauge, mount);
    queue.AddValue({}, static_cast<double>(o.queue_length.load()));
    out->push_back(std::move(queue.f));
    Family budget("tierfs_online_budget_bytes_per_second",
                  "The policy's OnlineBudget; 0 when no RELOCATE runs online.",
                  MetricType::Gauge, mount);
    budget.AddValue({}, static_cast<double>(o.budget_bytes_per_s.load()));
    out->push_back(std::move(budget.f));
  }
  const VolumeNames names(fs_.volumes());
  Family count("tierfs_relocations_total",
               "Relocations tried, by direction and outcome (moved, busy, nospace, error...).",
               MetricType::Counter, mount);
  Family bytes("tierfs_relocated_bytes_total", "Bytes moved by relocations, by direction.",
               MetricType::Counter, mount);
  // Summed over volumes of the same classes; a class is what policies name.
  std::map<std::tuple<std::string, std::string, std::string>, double> by_outcome;
  std::map<std::pair<std::string, std::string>, double> moved_bytes;
  for (const auto& [key, tally] : fs_.metrics().Relocations()) {
    const auto& [from, to, outcome] = key;
    const std::string from_class = names.Class(from), to_class = names.Class(to);
    by_outcome[{from_class, to_class, outcome}] += static_cast<double>(tally.count);
    moved_bytes[{from_class, to_class}] += static_cast<double>(tally.bytes);
  }
  for (const auto& [key, n] : by_outcome) {
    count.AddValue({{"from_class", std::get<0>(key)}, {"to_class", std::get<1>(key)},
                    {"outcome", std::get<2>(key)}},
                   n);
  }
  for (const auto& [key, n] : moved_bytes) {
    bytes.AddValue({{"from_class", key.first}, {"to_class", key.second}}, n);
  }
  out->push_back(std::move(count.f));
  out->push_back(std::move(bytes.f));
  Family recalls("tierfs_store_recalls_for_write_total",
                 "Files brought back from an object volume before a write, truncate or "
                 "fallocate.",
                 MetricType::Counter, mount);
  recalls.AddValue({}, static_cast<double>(fs_.metrics().RecallsForWrite()));
  out->push_back(std::move(recalls.f));
  Family read_errors("tierfs_store_read_errors_total",
                     "Reads of files on an object volume that failed for want of the store.",
                     MetricType::Counter, mount);
  read_errors.AddValue({}, static_cast<double>(fs_.metrics().StoreReadErrors()));
  out->push_back(std::move(read_errors.f));
}

void MetricsCollector::CollectScans(std::vector<MetricFamily>* out) const {
  const std::string& mount = fs_.options().mountpoint;
  Family runs("tierfs_scans_total", "fsppadm enforce and analyze runs.", MetricType::Counter,
              mount);
  Family failures("tierfs_scan_failures_total", "Scan runs that ended in an error.",
                  MetricType::Counter, mount);
  Family seconds("tierfs_scan_seconds_total", "Time spent in scan runs.", MetricType::Counter,
                 mount);
  Family last("tierfs_scan_last_duration_seconds", "Duration of the last scan run of each kind.",
              MetricType::Gauge, mount);
  for (const auto& [kind, t] : fs_.metrics().Scans()) {
    runs.AddValue({{"kind", kind}}, static_cast<double>(t.runs));
    failures.AddValue({{"kind", kind}}, static_cast<double>(t.failures));
    seconds.AddValue({{"kind", kind}}, t.seconds_sum);
    last.AddValue({{"kind", kind}}, t.last_seconds);
  }
  for (Family* f : {&runs, &failures, &seconds, &last}) out->push_back(std::move(f->f));
}

void MetricsCollector::CollectRequests(std::vector<MetricFamily>* out) const {
  const std::string& mount = fs_.options().mountpoint;
  Family count("tierfs_fuse_requests_total", "FUSE requests answered, by operation.",
               MetricType::Counter, mount);
  Family latency("tierfs_fuse_request_duration_seconds",
                 "Time from a FUSE request's arrival in its handler to its reply.",
                 MetricType::Histogram, mount);
  for (size_t i = 0; i < static_cast<size_t>(FuseOp::kCount); ++i) {
    const FuseOp op = static_cast<FuseOp>(i);
    const DaemonMetrics::Requests r = fs_.metrics().RequestsOf(op);
    if (r.count == 0) continue;
    const std::string name(FuseOpName(op));
    count.AddValue({{"op", name}}, static_cast<double>(r.count));
    latency.AddHistogram({{"op", name}}, r.timed, r.seconds_sum, r.buckets,
                         DaemonMetrics::kLatencyBounds);
  }
  out->push_back(std::move(count.f));
  out->push_back(std::move(latency.f));
}

}  // namespace tierfs
