// The planning half of mkdstfs (docs/commands.md "mkdstfs"; the Veritas paper's
// "Deploying DST Using mkdstfs"), as pure functions so the rules can be tested
// with tables:
//
//   - each DIR[:CLASS] operand's class defaults to its media type (ssd, hdd,
//     mixed); an explicit CLASS wins;
//   - the metadata volume is the first ssd volume, else the first mixed one;
//     with neither, mkdstfs refuses unless forced (-f), and then takes the
//     first volume;
//   - the volume set lists the metadata volume first (vol1, metadataok), then
//     the others in command-line order (vol2.., dataonly);
//   - an ssd metadata volume whose class was discovered is tagged class
//     "ssdmetadata" (as the paper's mkdstfs tags SSD volume 0); a class the
//     administrator gave (DIR:CLASS) is always kept as given;
//   - the default policy (cli/mkdstfs/default_policy.h) creates files on the hdd class
//     (when a volume has it), then on the metadata volume's class: the paper's
//     "hdd, ssdmetadata only when hdd is full", in the classes this set has.
//
// Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "fs/volume/volume_label.h"
#include "meta/records.h"

namespace tierfs::cli {

// One DIR[:CLASS] operand. The last ':' splits DIR from CLASS unless what
// follows it contains '/'; "DIR:" (an empty class) names a directory whose own
// name contains ':' without giving a class.
struct VolumeSpec {
  std::string dir;
  std::string placement_class;  // "" = take the media type
};
// EINVAL for an empty DIR or an invalid CLASS.
Result<VolumeSpec> ParseVolumeSpec(std::string_view operand);

// Class names: 1-64 characters of [A-Za-z0-9_.-], not starting with '.' or '-'.
Status CheckClassName(std::string_view name);
// File system names: 1-64 characters of [A-Za-z0-9_.-], not starting with '.' or '-'.
Status CheckFsName(std::string_view name);

// What mkdstfs found out about one operand before planning.
struct VolumeProbe {
  VolumeSpec spec;           // spec.dir absolute and resolved
  std::string media_type;    // detected "ssd" | "hdd" | "mixed"; "" if detection failed
  std::string detect_error;  // why detection failed (when media_type is "")
  uint64_t device = 0;       // st_dev of the directory
  std::string identity;      // "st_dev:st_ino": the same directory named twice is refused
  // The tierfs label the directory carries (ProbeVolumes with kKeepLabelled only;
  // a retired label never shows here).
  std::optional<VolumeLabel> label;
};

struct MkdstfsPlan {
  // Volume-set order, the metadata volume first; id, name, path, placement_class,
  // media_type, media_type_source ("detected" | "configured"), role filled in.
  // media_type is "unknown" when it was neither detected nor implied by the class.
  std::vector<meta::Volume> volumes;
  std::vector<std::string> warnings;  // mismatches, shared devices
  // CREATE destinations of the default policy, in order (DefaultPolicyXml()).
  std::vector<std::string> default_create_classes;
};

// The row of one volume as the probe describes it (name, path, class, media
// type and its source; role dataonly, state online, id 0): its class is the
// one given, else its detected media type; media_type is the detected one,
// else the class when the class is a media type, else "unknown". Used for every
// volume of a new set (PlanVolumes) and for a volume added to a mounted file
// system (fsvoladm add, mkdstfs on an existing file system). EINVAL, naming the
// directory, when the media type was not detected and no class was given.
Result<meta::Volume> PlanVolume(const VolumeProbe& probe);

// The CREATE classes of the default policy for a volume set: hdd (when a volume
// has it), then the metadata volume's class (`volumes` front) unless it is hdd.
std::vector<std::string> DefaultCreateClasses(const std::vector<meta::Volume>& volumes);

// Plans the volume set. Errors (EINVAL, naming the directory):
//   no operands; a directory given twice; a directory whose media type could not
//   be detected and that has no CLASS ("give its class as DIR:CLASS"); no ssd or
//   mixed volume without `force`.
Result<MkdstfsPlan> PlanVolumes(const std::vector<VolumeProbe>& probes, bool force);

}  // namespace tierfs::cli
