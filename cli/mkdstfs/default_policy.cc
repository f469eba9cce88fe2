#include "cli/mkdstfs/default_policy.h"

namespace tierfs::cli {

const char kDefaultPolicyName[] = "IOTEMP_Policy";

// From "Using Solid State Drive Storage with Veritas Storage Foundation" (2009),
// "Deploying DST Using mkdstfs". The DOCTYPE's SYSTEM path is never read: the
// loader validates against the DTD compiled into tierfs.
const char kDefaultPolicyXml[] = R"(<?xml version="1.0"?>
<!DOCTYPE PLACEMENT_POLICY SYSTEM "/opt/VRTSvxfs/etc/placement_policy.dtd">
<PLACEMENT_POLICY Version="5.1" Name="IOTEMP_Policy">
  <RULE Flags="data" Name="ssdfs_policy">
    <SELECT>
      <PATTERN> * </PATTERN>
    </SELECT>
    <CREATE>
      <ON>
        <DESTINATION>
          <CLASS> hdd </CLASS>
        </DESTINATION>
        <DESTINATION>
          <CLASS> ssdmetadata </CLASS>
        </DESTINATION>
      </ON>
    </CREATE>
  </RULE>
</PLACEMENT_POLICY>
)";

std::string DefaultPolicyXml(const std::vector<std::string>& create_classes) {
  if (create_classes == std::vector<std::string>{"hdd", "ssdmetadata"}) return kDefaultPolicyXml;
  std::string xml = kDefaultPolicyXml;
  const std::string open = "        <DESTINATION>\n";
  const size_t first = xml.find(open);
  const size_t end = xml.find("      </ON>");
  std::string destinations;
  for (const std::string& c : create_classes) {
    destinations += open + "          <CLASS> " + c + " </CLASS>\n        </DESTINATION>\n";
  }
  return xml.replace(first, end - first, destinations);
}

}  // namespace tierfs::cli
