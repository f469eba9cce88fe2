#include "policy/advisor.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "policy/loader.h"

namespace tierfs::policy {
namespace {

std::string JoinErrors(const std::vector<Diagnostic>& diags) {
  std::string out;
  for (const Diagnostic& d : diags) out += (out.empty() ? "" : "\n") + d.ToString();
  return out;
}

std::string Seconds(int64_t s) {
  if (s % 86400 == 0) return std::to_string(s / 86400) + " d";
  if (s % 3600 == 0) return std::to_string(s / 3600) + " h";
  if (s % 60 == 0) return std::to_string(s / 60) + " min";
  return std::to_string(s) + " s";
}

// True when the policy as written already limits `fast_class` to exactly `limit`:
// the variant setting it would be the same policy under another name.
bool AlreadyLimited(const PlacementPolicy& policy, const std::string& fast_class, double limit) {
  bool class_limit = false;
  for (const ClassLimit& l : policy.class_limits) {
    if (l.class_name == fast_class) class_limit = l.percent == limit;
  }
  if (!class_limit) return false;
  for (const Rule& rule : policy.rules) {
    for (const Statement& st : rule.statements) {
      for (const Destination& d : st.to_classes) {
        if (d.class_name == fast_class && d.percent && *d.percent != limit) return false;
      }
    }
  }
  return true;
}

Status CheckGrid(const AdviseOptions& o) {
  for (double f : o.period_factors) {
    if (!(f > 0) || !std::isfinite(f)) {
      return Status::Invalid("period factors must be positive, got " + FormatPolicyNumber(f));
    }
  }
  for (double f : o.threshold_factors) {
    if (!(f > 0) || !std::isfinite(f)) {
      return Status::Invalid("threshold factors must be positive, got " + FormatPolicyNumber(f));
    }
  }
  for (double l : o.limits) {
    if (!(l > 0 && l <= 100)) {
      return Status::Invalid("class limits must be percentages in (0, 100], got " +
                             FormatPolicyNumber(l));
    }
  }
  if (o.period_factors.empty() || o.threshold_factors.empty()) {
    return Status::Invalid("the lists of period and threshold factors may not be empty");
  }
  return Status::Ok();
}

}  // namespace

int64_t DefaultReplayInterval(const PlacementPolicy& policy, int64_t bucket_seconds) {
  double hours = 0;
  for (const Rule& rule : policy.rules) {
    if (rule.flags != RuleFlags::kData) continue;
    for (const Statement& st : rule.statements) {
      for (const Criterion& c : st.criteria) {
        if (c.IsTemperature() && c.period_hours > 0 && (hours == 0 || c.period_hours < hours)) {
          hours = c.period_hours;
        }
      }
    }
  }
  if (hours == 0) hours = 1;
  const int64_t seconds = std::max<int64_t>(1, std::llround(std::ceil(hours * 3600)));
  const int64_t bucket = std::max<int64_t>(1, bucket_seconds);
  return (seconds + bucket - 1) / bucket * bucket;
}

Result<Advice> Advise(std::string_view base_xml, const IoHistory& history,
                      const AdviseOptions& options) {
  TIERFS_RETURN_IF_ERROR(CheckGrid(options));
  std::vector<std::string> classes;
  for (const VolumeState& v : history.volumes) {
    for (const std::string& c : v.classes) classes.push_back(c);
  }
  if (std::find(classes.begin(), classes.end(), options.fast_class) == classes.end()) {
    return Status::Invalid("no volume carries class \"" + options.fast_class + "\"");
  }
  LoadResult base = LoadPolicy(base_xml);
  if (base.ok()) CheckClasses(*base.policy, classes, /*force=*/false, &base);
  if (base.ok()) CheckHeatResolution(*base.policy, history.bucket_seconds, &base);
  if (!base.ok()) return Status::Invalid("the policy does not load:\n" + JoinErrors(base.errors));

  Advice advice;
  advice.bucket_seconds = history.bucket_seconds;
  const int64_t interval = options.interval_s > 0
                               ? options.interval_s
                               : DefaultReplayInterval(*base.policy, history.bucket_seconds);
  Result<ReplayWindow> window = ChooseReplayWindow(history, interval);
  if (!window.ok()) return window.status();
  advice.window = *window;
  if (window->periods < 2) {
    const int64_t recorded =
        window->first_bucket_s == 0 ? 0 : window->end_s() - window->first_bucket_s;
    std::string have = window->first_bucket_s == 0
                           ? std::string("no I/O has been recorded")
                           : "the recorded I/O covers " + Seconds(recorded) + " (" +
                                 std::to_string(window->periods) + " whole interval" +
                                 (window->periods == 1 ? "" : "s") + ")";
    return Status::Error(kAdviseTooShort,
                         "history too short: " + have + "; the advisor needs at least 2 enforce "
                         "intervals of " + Seconds(interval) +
                         " (one to learn from, one to score). Let the workload run longer, or "
                         "choose a shorter interval.");
  }

  ReplayOptions replay;
  replay.window = *window;
  replay.fast_classes = {options.fast_class};
  replay.plan = options.plan;
  advice.oracles = ReplayOracles(history, replay);

  std::vector<std::optional<double>> limits = {std::nullopt};
  for (double l : options.limits) {
    if (!AlreadyLimited(*base.policy, options.fast_class, l)) limits.push_back(l);
  }
  // The policy as written first, then the grid in order.
  std::vector<VariantSpec> specs = {VariantSpec{}};
  for (double p : options.period_factors) {
    for (double t : options.threshold_factors) {
      for (const std::optional<double>& l : limits) {
        VariantSpec spec{p, t, l};
        if (spec.IsIdentity()) continue;
        bool seen = false;
        for (const VariantSpec& s : specs) {
          seen = seen || (s.period_factor == p && s.threshold_factor == t && s.fast_limit == l);
        }
        if (!seen) specs.push_back(spec);
      }
    }
  }

  std::vector<VariantOutcome> outcomes;
  for (const VariantSpec& spec : specs) {
    VariantOutcome out;
    out.spec = spec;
    out.label = spec.Label(options.fast_class);
    out.as_written = spec.IsIdentity();
    if (out.as_written) {
      out.xml = std::string(base_xml);
    } else {
      Result<std::string> xml = RewritePolicyXml(base_xml, spec, options.fast_class);
      if (!xml.ok()) return xml.status();  // the base parsed, so this is our bug or EINVAL
      out.xml = std::move(*xml);
    }
    LoadResult loaded = out.as_written ? base : LoadPolicy(out.xml);
    if (loaded.ok()) CheckClasses(*loaded.policy, classes, /*force=*/false, &loaded);
    if (loaded.ok()) CheckHeatResolution(*loaded.policy, history.bucket_seconds, &loaded);
    if (!loaded.ok()) {
      advice.skipped.push_back(out.label + ": " +
                               (loaded.errors.empty() ? std::string("does not load")
                                                      : loaded.errors.front().message));
      continue;
    }
    out.name = loaded.policy->name;
    out.replay = ReplayPolicy(*loaded.policy, history, replay);
    outcomes.push_back(std::move(out));
  }
  std::stable_sort(outcomes.begin(), outcomes.end(),
                   [](const VariantOutcome& a, const VariantOutcome& b) {
                     const double da = a.replay.served_share, db = b.replay.served_share;
                     if (std::fabs(da - db) > 1e-9) return da > db;
                     if (a.replay.bytes_moved != b.replay.bytes_moved) {
                       return a.replay.bytes_moved < b.replay.bytes_moved;
                     }
                     return a.as_written && !b.as_written;
                   });
  advice.ranked = std::move(outcomes);
  return advice;
}

}  // namespace tierfs::policy
