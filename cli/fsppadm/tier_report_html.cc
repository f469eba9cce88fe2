#include "cli/fsppadm/tier_report_html.h"

#include <algorithm>
#include <cstdio>

#include "cli/fsppadm/scan_report.h"
#include "cli/common/units.h"

namespace tierfs::cli {
namespace {

// Chart geometry, in pixels.
constexpr double kLabelWidth = 300;  // directory names, left of the bars
constexpr double kRowHeight = 34;
constexpr double kBarHeight = 18;
constexpr double kHeatHeight = 6;
constexpr double kChartMargin = 10;
constexpr double kAmountWidth = 70;  // the size written right of each bar
constexpr char kHeatColour[] = "#d9480f";

std::string Px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string Hours(double h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", h);
  return buf;
}

// A size cell: HumanBytes shown, the exact bytes in data-value and title.
std::string BytesCell(uint64_t bytes) {
  const std::string n = std::to_string(bytes);
  return "<td class=\"num\" data-value=\"" + n + "\" title=\"" + n + " bytes\">" +
         HumanBytes(bytes) + "</td>";
}

std::string CountCell(uint64_t count) {
  const std::string n = std::to_string(count);
  return "<td class=\"num\" data-value=\"" + n + "\">" + n + "</td>";
}

std::string TempCell(double iotemp) {
  return "<td class=\"num\">" + FormatTemperature(iotemp) + "</td>";
}

std::string TallyCells(const TierTally& t) {
  return BytesCell(t.rbytes) + BytesCell(t.wbytes) + TempCell(t.iotemp);
}

constexpr char kStyle[] =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "h1{font-size:1.4em;margin-bottom:.2em}h2{font-size:1.1em;margin-top:1.5em}"
    "table{border-collapse:collapse;margin-top:.5em}"
    "th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "th{background:#f3f3f3}tfoot td{font-weight:bold}"
    ".legend span{display:inline-block;margin-right:1.2em}"
    ".swatch{display:inline-block;width:.9em;height:.9em;margin-right:.3em;"
    "vertical-align:middle}"
    "svg text{font-size:12px}";

std::string Legend(const std::vector<std::string>& classes) {
  std::string out = "<p class=\"legend\">";
  for (size_t i = 0; i < classes.size(); i++) {
    out += "<span><i class=\"swatch\" style=\"background:" + ClassColour(classes[i], i) +
           "\"></i>" + HtmlEscape(classes[i]) + "</span>";
  }
  out += std::string("<span><i class=\"swatch\" style=\"background:") + kHeatColour +
         "\"></i>heat: bytes read and written (darker: higher IOTEMP)</span></p>\n";
  return out;
}

std::string Chart(const TierReport& report, const std::vector<std::string>& classes) {
  uint64_t max_bytes = 0;
  uint64_t max_io = 0;
  double max_temp = 0;
  for (const TierDirectory& d : report.directories) {
    max_bytes = std::max(max_bytes, d.all.bytes);
    max_io = std::max(max_io, d.all.rbytes + d.all.wbytes);
    max_temp = std::max(max_temp, d.all.iotemp);
  }
  const double width = kLabelWidth + kTierBarWidth + kAmountWidth + 2 * kChartMargin;
  const size_t rows = std::max<size_t>(1, report.directories.size());
  const double height = 2 * kChartMargin + kRowHeight * static_cast<double>(rows);
  std::string out = "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Px(width) +
                    "\" height=\"" + Px(height) + "\" viewBox=\"0 0 " + Px(width) + " " +
                    Px(height) + "\" role=\"img\" aria-label=\"bytes per class per directory\">\n" +
                    "<defs><clipPath id=\"labels\"><rect x=\"0\" y=\"0\" width=\"" +
                    Px(kChartMargin + kLabelWidth - 8) + "\" height=\"" + Px(height) +
                    "\"/></clipPath></defs>\n";
  if (report.directories.empty()) {
    out += "<text x=\"" + Px(kChartMargin) + "\" y=\"" + Px(kChartMargin + 14) +
           "\">No files.</text>\n";
  }
  double y = kChartMargin;
  for (const TierDirectory& d : report.directories) {
    const std::string path = HtmlEscape(d.path);
    out += "<g class=\"dir\" data-path=\"" + path + "\" data-bytes=\"" +
           std::to_string(d.all.bytes) + "\">\n<title>" + path + ": " + HumanBytes(d.all.bytes) +
           " in " + std::to_string(d.all.files) + " files</title>\n";
    out += "<text clip-path=\"url(#labels)\" x=\"" + Px(kChartMargin) + "\" y=\"" +
           Px(y + kBarHeight - 5) + "\">" + path + "</text>\n";
    double x = kChartMargin + kLabelWidth;
    for (size_t i = 0; i < classes.size(); i++) {
      auto it = d.by_class.find(classes[i]);
      if (it == d.by_class.end() || it->second.bytes == 0) continue;
      const double w = BarWidth(it->second.bytes, max_bytes, kTierBarWidth);
      const std::string cls = HtmlEscape(classes[i]);
      out += "<rect class=\"seg\" data-class=\"" + cls + "\" data-bytes=\"" +
             std::to_string(it->second.bytes) + "\" x=\"" + Px(x) + "\" y=\"" + Px(y) +
             "\" width=\"" + Px(w) + "\" height=\"" + Px(kBarHeight) + "\" fill=\"" +
             ClassColour(classes[i], i) + "\"><title>" + cls + ": " +
             HumanBytes(it->second.bytes) + " (" + std::to_string(it->second.bytes) +
             " bytes) in " + std::to_string(it->second.files) + " files</title></rect>\n";
      x += w;
    }
    out += "<text class=\"amount\" x=\"" + Px(x + 4) + "\" y=\"" + Px(y + kBarHeight - 5) + "\">" +
           HumanBytes(d.all.bytes) + "</text>\n";
    const uint64_t io = d.all.rbytes + d.all.wbytes;
    const double opacity = max_temp > 0 ? 0.3 + 0.7 * std::min(1.0, d.all.iotemp / max_temp) : 0.3;
    out += "<rect class=\"heat\" data-bytes=\"" + std::to_string(io) + "\" x=\"" +
           Px(kChartMargin + kLabelWidth) + "\" y=\"" + Px(y + kBarHeight + 2) + "\" width=\"" +
           Px(BarWidth(io, max_io, kTierBarWidth)) + "\" height=\"" + Px(kHeatHeight) +
           "\" fill=\"" + kHeatColour + "\" fill-opacity=\"" + Px(opacity) + "\"><title>" +
           HumanBytes(d.all.rbytes) + " read, " + HumanBytes(d.all.wbytes) +
           " written in the last " + Hours(report.hours) + " h; IOTEMP " +
           FormatTemperature(d.all.iotemp) + "</title></rect>\n</g>\n";
    y += kRowHeight;
  }
  return out + "</svg>\n";
}

std::string DirectoryTable(const TierReport& report, const std::vector<std::string>& classes) {
  std::string out = "<table id=\"directories\">\n<thead><tr><th>Directory</th><th>Files</th>"
                    "<th>Bytes</th>";
  for (const std::string& cls : classes) out += "<th>" + HtmlEscape(cls) + "</th>";
  out += "<th>Read</th><th>Written</th><th>IOTEMP</th></tr></thead>\n<tbody>\n";
  for (const TierDirectory& d : report.directories) {
    out += "<tr data-path=\"" + HtmlEscape(d.path) + "\"><td class=\"path\">" +
           HtmlEscape(d.path) + "</td>" + CountCell(d.all.files) + BytesCell(d.all.bytes);
    for (const std::string& cls : classes) {
      auto it = d.by_class.find(cls);
      out += BytesCell(it == d.by_class.end() ? 0 : it->second.bytes);
    }
    out += TallyCells(d.all) + "</tr>\n";
  }
  out += "</tbody>\n<tfoot><tr><td>Total</td>" + CountCell(report.totals.files) +
         BytesCell(report.totals.bytes);
  for (const std::string& cls : classes) {
    uint64_t bytes = 0;
    for (const TierSpace& c : report.classes) {
      if (c.name == cls) bytes = c.tally.bytes;
    }
    out += BytesCell(bytes);
  }
  return out + TallyCells(report.totals) + "</tr></tfoot>\n</table>\n";
}

std::string SpaceTable(const char* id, const std::vector<TierSpace>& rows, bool volumes) {
  std::string out = std::string("<table id=\"") + id + "\">\n<thead><tr><th>" +
                    (volumes ? "Volume</th><th>Class</th><th>State" : "Class") +
                    "</th><th>Files</th><th>Bytes</th><th>Capacity</th><th>Used</th>"
                    "<th>Free</th><th>Read</th><th>Written</th><th>IOTEMP</th></tr></thead>\n"
                    "<tbody>\n";
  for (const TierSpace& s : rows) {
    out += "<tr><td>" + HtmlEscape(s.name) + "</td>";
    if (volumes) out += "<td>" + HtmlEscape(s.cls) + "</td><td>" + HtmlEscape(s.state) + "</td>";
    out += CountCell(s.tally.files) + BytesCell(s.tally.bytes);
    if (s.space_known) {
      out += BytesCell(s.total_bytes) + BytesCell(s.used_bytes) + BytesCell(s.free_bytes);
    } else {
      out += "<td>-</td><td>-</td><td>-</td>";  // an object store: capacity unknown
    }
    out += TallyCells(s.tally) + "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += "&#xFFFD;";
        } else {
          out += c;
        }
    }
  }
  return out;
}

double BarWidth(uint64_t value, uint64_t max, double full) {
  if (max == 0) return 0;
  return std::min(full, static_cast<double>(value) / static_cast<double>(max) * full);
}

std::string ClassColour(const std::string& name, size_t index) {
  if (name == "ssd") return "#1f77b4";
  if (name == "hdd") return "#8c8c8c";
  if (name == "mixed") return "#9467bd";
  static constexpr const char* kPalette[] = {"#2ca02c", "#ff7f0e", "#8c564b", "#e377c2",
                                             "#17becf", "#bcbd22", "#393b79", "#637939"};
  return kPalette[index % (sizeof kPalette / sizeof kPalette[0])];
}

std::string TierReportHtml(const TierReport& report) {
  const std::vector<std::string> classes = TierReportClassNames(report);
  const std::string mount = HtmlEscape(report.mount_point);
  const std::string when = FormatLocalTime(report.now_s * 1'000'000'000);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<title>tierfs tiers of " + mount + " at " + when + "</title>\n<style>" +
                    kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1 id=\"title\">Tiers of " + mount + "</h1>\n<p id=\"summary\">" +
         std::to_string(report.totals.files) + " files, " + HumanBytes(report.totals.bytes) +
         ", at <time>" + when + "</time>; heat: bytes read and written in the last " +
         Hours(report.hours) + " h; directories to depth " + std::to_string(report.depth) +
         ".</p>\n";
  out += Legend(classes) + Chart(report, classes);
  out += "<h2>Directories</h2>\n" + DirectoryTable(report, classes);
  out += "<h2>Classes</h2>\n" + SpaceTable("classes", report.classes, false);
  out += "<h2>Volumes</h2>\n" + SpaceTable("volumes", report.volumes, true);
  return out + "</body>\n</html>\n";
}

}  // namespace tierfs::cli
