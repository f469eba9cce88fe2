// The parsed placement policy: the in-memory model of a DST policy document.
//
// LoadPolicy() (loader.h) builds these from XML; everything else in policy/
// reads them. Plain value types with no behaviour beyond small queries; an
// instance never changes after loading, so one policy may be read from any
// number of threads at once.
//
// Units are normalised at load time: sizes in bytes, ages and periods in
// hours, temperatures dimensionless (see temperature.h). Every element keeps
// the line of the document it came from, for diagnostics and reports.
// Grammar: docs/policies.md "The document", "Rules" and "WHEN criteria".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierfs::policy {

// A value and the source line of the element that gave it.
template <typename T>
struct Located {
  T value{};
  int line = 0;
};

// RULE Flags (docs/policies.md "Rules"). kCheckpoint stands for both
// "checkpoint" and "ckpt": such rules are kept in the model for reports but
// never select anything (tierfs has no Storage Checkpoints).
enum class RuleFlags { kData, kCheckpoint };

// <DIRECTORY Flags="recursive|nonrecursive">: `path` is normalised relative
// to the mount root without leading or trailing '/', "" for the root itself
// (docs/policies.md "SELECT: which files").
struct Directory {
  std::string path;
  bool recursive = false;
  int line = 0;
};

// <PATTERN [Flags="recursive"]>: an fnmatch(3) glob without '/' (docs/policies.md
// "SELECT: which files"). Matched against the file name; when `recursive`, also
// against the names of the directories on the file's path (see select_match.h).
struct Pattern {
  std::string glob;
  bool recursive = false;
  int line = 0;
};

// <SELECT>: which files a rule governs (docs/policies.md "SELECT: which files").
// Empty lists do not constrain; same-kind entries are OR-ed, different kinds AND-ed.
struct Select {
  std::string name;  // the optional Name attribute, "" when absent
  std::vector<Directory> directories;
  std::vector<Pattern> patterns;
  std::vector<Located<std::string>> users;   // owner user names
  std::vector<Located<std::string>> groups;  // owner group names
  std::vector<Located<uint32_t>> uids;
  std::vector<Located<uint32_t>> gids;
  std::vector<Located<std::string>> tags;    // words of xattr user.tierfs.tags
  int line = 0;
};

// <DESTINATION> inside CREATE/ON or TO (docs/policies.md "CREATE: where new files go").
struct Destination {
  std::string class_name;     // "" only for a class-less DESTINATION under "any"
  uint64_t balance_size = 0;  // BALANCE_SIZE in bytes; 0 = not given
  bool any = false;           // Flags="any" on this DESTINATION
  // <PERCENT> in a RELOCATE's TO (tierfs extension, docs/policies.md
  // "Capacity limits"): a relocation by this statement may fill the class to
  // at most this share, in percent (0-100], of the summed capacity of the
  // volumes carrying it. Absent = 100. Ignored (with a warning) in CREATE.
  std::optional<double> percent;
  int line = 0;               // of <DESTINATION>
  int class_line = 0;         // of <CLASS>, 0 when there is none
};

// <CREATE><ON>: where new files of the rule go (docs/policies.md "CREATE: where new files go").
struct Create {
  std::vector<Destination> destinations;  // decreasing preference
  // True for ON Flags="any" or any DESTINATION Flags="any" (how the vendor
  // templates write it): fall back to the default allocator when no listed
  // class has room.
  bool any = false;
  int line = 0;
};

// The kind of a WHEN criterion (docs/policies.md "WHEN criteria").
enum class CriterionKind { kSize, kAccAge, kModAge, kIoTemp, kAccessTemp };

// Type attribute of IOTEMP (bytes) and ACCESSTEMP (calls); kNone for the
// other kinds (docs/policies.md "Temperatures").
enum class TempType { kNone, kNrBytes, kNwBytes, kNrwBytes, kNReads, kNWrites, kNrws };

enum class MinFlag { kGt, kGtEq, kEq };  // MIN Flags (docs/policies.md "WHEN criteria")
enum class MaxFlag { kLt, kLtEq };       // MAX Flags
enum class Prefer { kNone, kHigh, kLow };

// <MIN>: value in the criterion's normalised unit (bytes, hours, or a
// temperature; a multiple of the file-system average when Average="*").
struct MinBound {
  double value = 0;
  MinFlag flag = MinFlag::kGtEq;
  int line = 0;
};

// <MAX>: as MinBound.
struct MaxBound {
  double value = 0;
  MaxFlag flag = MaxFlag::kLtEq;
  int line = 0;
};

// One criterion of a WHEN; all criteria of a statement must hold
// (docs/policies.md "RELOCATE and DELETE: what a scan does").
struct Criterion {
  CriterionKind kind = CriterionKind::kSize;
  TempType type = TempType::kNone;  // IOTEMP/ACCESSTEMP only
  std::optional<MinBound> min;
  std::optional<MaxBound> max;
  double period_hours = 0;          // IOTEMP/ACCESSTEMP only; > 0
  Prefer prefer = Prefer::kNone;    // IOTEMP/ACCESSTEMP only
  bool average = false;             // Average="*": bounds are multiples of the average
  std::string units;                // the Units attribute as written, for messages
  int line = 0;

  bool IsTemperature() const {
    return kind == CriterionKind::kIoTemp || kind == CriterionKind::kAccessTemp;
  }
};

// <SOURCE><CLASS>c</CLASS><PERCENT>p</PERCENT></SOURCE> (tierfs extension,
// docs/policies.md "Capacity limits"): the statement moves files out of
// class c only while c is fuller than p percent of its capacity.
struct SourceLimit {
  std::string class_name;
  double percent = 0;  // [0, 100]
  int line = 0;        // of <PERCENT>
};

// A DELETE or RELOCATE statement (docs/policies.md "RELOCATE and DELETE: what a scan does").
struct Statement {
  enum Kind { kRelocate, kDelete };
  Kind kind = kRelocate;
  int number = 0;                            // 1-based among statements of this kind in the rule
  std::vector<Located<std::string>> from_classes;  // FROM/SOURCE/CLASS; empty = anywhere
  std::vector<SourceLimit> from_limits;      // the SOURCEs that have a PERCENT
  std::vector<Destination> to_classes;       // TO/DESTINATION in order; empty for DELETE
  std::vector<Criterion> criteria;           // WHEN; empty = unconditional
  // <RELOCATE Online="yes"> (tierfs extension, docs/policies.md "Online
  // promotion"): the daemon also evaluates this statement for a file whenever
  // the file's heat changes and relocates it at once, between enforce runs.
  bool online = false;
  // <RELOCATE OnlineHold="h">: hours a file this statement moved online stays
  // before the online path may move it out again (a swap-out for a hotter
  // file); nullopt = OnlineHoldHours()'s default. Enforce ignores it.
  std::optional<double> online_hold_hours;
  int line = 0;

  // "RELOCATE 2", "DELETE 1": how reports name the statement.
  std::string Label() const;
  // The criterion whose temperature orders and reports candidates: the first
  // with Prefer, else the first IOTEMP/ACCESSTEMP; nullptr when none.
  const Criterion* ReportedCriterion() const;
  // The Prefer of ReportedCriterion() (kNone when it has none).
  Prefer OrderingPrefer() const;
  // The PERCENT of the SOURCE naming `class_name`, or nullopt when it has none.
  std::optional<double> SourcePercent(const std::string& class_name) const;
  // The anti-thrash bound of an online statement, hours: OnlineHold when
  // given, else the longest PERIOD of its temperature criteria (the window
  // that promoted the file has then been replaced by newer I/O), else
  // kDefaultOnlineHoldHours when it measures no temperature.
  double OnlineHoldHours() const;
};

// The hold of an online RELOCATE that names no OnlineHold and measures no
// temperature, hours.
inline constexpr double kDefaultOnlineHoldHours = 1;

// <RULE> (docs/policies.md "Rules").
struct Rule {
  std::string name;
  RuleFlags flags = RuleFlags::kData;
  std::vector<Select> selects;        // OR-ed
  std::optional<Create> create;
  std::vector<Statement> statements;  // DELETE and RELOCATE in document order
  int line = 0;
};

// The SwapHysteresis a policy gets when it names none (tierfs extension,
// docs/policies.md "Swapping"): 1.25 keeps two files whose temperatures
// differ by less than a quarter from trading places scan after scan as
// their counts wobble.
inline constexpr double kDefaultSwapHysteresis = 1.25;

// The OnlineBudget a policy gets when it names none: 16 MiB/s, about a tenth
// of what one hard disk streams and a few percent of an SSD's, so online
// promotions (a read from the slow class, a write to the fast one) leave the
// devices to the workload; at that rate the 100 GB fast class of a 1 TB file
// system refills in under two hours.
inline constexpr double kDefaultOnlineBudgetBytesPerS = 16.0 * 1024 * 1024;

// <CLASS_LIMIT><CLASS>c</CLASS><PERCENT>p</PERCENT></CLASS_LIMIT> (tierfs
// extension, docs/policies.md "Capacity limits"): the PERCENT of every
// relocation into class c whose DESTINATION names none.
struct ClassLimit {
  std::string class_name;
  double percent = 100;  // (0, 100]
  int line = 0;          // of <CLASS_LIMIT>
  int class_line = 0;    // of its <CLASS>
};

// <PLACEMENT_POLICY> (docs/policies.md "The document").
struct PlacementPolicy {
  std::string name;
  std::string version;                // "5.0", "5.1", ... as written
  double average_period_hours = 24;   // AveragePeriod
  // SwapHysteresis (tierfs extension, >= 1): a candidate displaces a
  // resident only when its temperature is above this many times the
  // resident's (planner.h).
  double swap_hysteresis = kDefaultSwapHysteresis;
  std::vector<ClassLimit> class_limits;  // at most one per class
  // OnlineBudget (tierfs extension, docs/policies.md "Online promotion"):
  // bytes per second that online relocations (Statement::online) may copy,
  // swap-outs included. Written in MB (2^20 bytes) per second.
  double online_budget_bytes_per_s = kDefaultOnlineBudgetBytesPerS;
  std::vector<Rule> rules;            // in document order
  int line = 0;

  // True when some data rule has a RELOCATE with Online="yes".
  bool HasOnlineStatements() const;

  // Window lengths the evaluator needs, in hours, sorted ascending and
  // distinct: every PERIOD of a data rule, plus average_period_hours when
  // any criterion has Average="*". Callers fill FileRecord::windows in this
  // order (file_record.h). Empty when the policy uses no temperature.
  std::vector<double> WindowHours() const;
  // True when some data-rule criterion has Average="*".
  bool UsesAverage() const;
  // True when some SELECT names owners by USER or GROUP (callers then resolve
  // uid/gid to names; most policies do not need it).
  bool SelectsByOwnerName() const;
  // True when some SELECT names a DIRECTORY or a recursive PATTERN: only then
  // does matching a file need the path of its directory, not just its name
  // (callers skip building the path otherwise; select_match.h).
  bool SelectsByDirectory() const;
  // The limit (percent of capacity, (0, 100]) of a relocation into class
  // `d.class_name` by destination `d`: its own PERCENT, else the policy's
  // CLASS_LIMIT for the class, else nullopt (no limit beyond free space).
  std::optional<double> DestinationPercent(const Destination& d) const;
};

// Names as they appear in policy XML: "SIZE", "IOTEMP"...; "nrbytes"...
const char* CriterionKindName(CriterionKind kind);
const char* TempTypeName(TempType type);

}  // namespace tierfs::policy
