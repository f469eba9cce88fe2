// Placement policies shared by several integration tests.
#pragma once

#include <string>

namespace tierfs::testing {

// Creates every file on the class `create` and moves every file to the class `to`
// at each enforce, whatever its heat.
inline std::string MoveEverythingPolicy(const std::string& create, const std::string& to) {
  return R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="to_)" + to + R"(">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>)" + create + R"(</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE><TO><DESTINATION><CLASS>)" + to + R"(</CLASS></DESTINATION></TO></RELOCATE></RULE>
</PLACEMENT_POLICY>
)";
}

// Online promotion (docs/policies.md "Online promotion") with every file in
// play: new files on `from`, and a file of `from` read or written in the last
// hour (IOTEMP nrwbytes above 0; a PERIOD of 1 h, the default heat bucket,
// which no PERIOD may undercut) moves to `to` with no enforce. The daemon
// evaluates a file when its counts change (it looks once a second), so what
// moves is the files in use. OnlineHold 0 and a budget of 1000 MB/s: nothing
// spaces the moves out, so a test moves as many files as its load heats.
// Assigning it, then its mirror (`to`, `from`), moves the files in use one
// way, then back.
inline std::string OnlineMoveHotPolicy(const std::string& from, const std::string& to) {
  return R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="online_to_)" + to + R"(" OnlineBudget="1000">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>)" + from + R"(</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE Online="yes" OnlineHold="0">
      <FROM><SOURCE><CLASS>)" + from + R"(</CLASS></SOURCE></FROM>
      <TO><DESTINATION><CLASS>)" + to + R"(</CLASS></DESTINATION></TO>
      <WHEN><IOTEMP Type="nrwbytes"><MIN Flags="gt">0</MIN>
        <PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
    </RELOCATE></RULE>
</PLACEMENT_POLICY>
)";
}

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

// Creates every file on hdd, on ssd when hdd is full, and moves nothing.
inline constexpr char kHddThenSsdPolicy[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="hdd_then_ssd">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION>
                <DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE></RULE>
</PLACEMENT_POLICY>
)";

// A data rule whose IOTEMP PERIOD is `hours` (DST PERIODs are in hours or days;
// 0.05 h = 180 s). Its IOTEMP, which diagnostics name, is on line 8.
inline std::string PeriodPolicy(const std::string& name, const std::string& hours) {
  return R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name=")" + name + R"(">
  <RULE Flags="data" Name="hot">
    <SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE>
      <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
      <WHEN><IOTEMP Type="nrbytes"><MIN Flags="gt">0</MIN>
        <PERIOD Units="hours">)" + hours + R"(</PERIOD></IOTEMP></WHEN>
    </RELOCATE>
  </RULE>
</PLACEMENT_POLICY>
)";
}

}  // namespace tierfs::testing
