// Placement policies shared by several integration tests.
#pragma once

namespace tierfs::testing {

// Creates *.hot files (and every other file) on hdd and moves *.hot files to ssd
// unconditionally at the next enforce.
inline constexpr char kPinHotPolicy[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="pin_hot">
  <RULE Flags="data" Name="hot_files">
    <SELECT><PATTERN>*.hot</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO></RELOCATE>
  </RULE>
  <RULE Flags="data" Name="rest">
    <SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
  </RULE>
</PLACEMENT_POLICY>
)";

// Creates every file on the ssd class and moves nothing.
inline constexpr char kAllOnSsdPolicy[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="all_ssd">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE></RULE>
</PLACEMENT_POLICY>
)";

}  // namespace tierfs::testing
