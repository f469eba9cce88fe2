// The placement policy mkdstfs assigns to a new file system: the paper's
// /tmp/mkdstfs.xml, verbatim ("IOTEMP_Policy"): every new file goes to class
// hdd, and to ssdmetadata only when hdd is full; nothing is relocated.
// Constants; thread-safe.
#pragma once

namespace tierfs::cli {

extern const char kDefaultPolicyName[];  // "IOTEMP_Policy"
extern const char kDefaultPolicyXml[];

}  // namespace tierfs::cli
