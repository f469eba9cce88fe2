// The placement policy mkdstfs assigns to a new file system: the paper's
// /tmp/mkdstfs.xml, verbatim ("IOTEMP_Policy"): every new file goes to class
// hdd, and to ssdmetadata only when hdd is full; nothing is relocated.
// Constants; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace tierfs::cli {

extern const char kDefaultPolicyName[];  // "IOTEMP_Policy"
extern const char kDefaultPolicyXml[];   // the paper's text, CREATE on hdd then ssdmetadata

// The default policy for a volume set whose CREATE classes are `create_classes`
// (MkdstfsPlan::default_create_classes): kDefaultPolicyXml itself for
// {"hdd", "ssdmetadata"}, else the same policy naming these classes.
std::string DefaultPolicyXml(const std::vector<std::string>& create_classes);

}  // namespace tierfs::cli
