// Small SVG charts for the HTML report, drawn by hand: a histogram, line charts (a CDF, timelines) and stacked
// horizontal bars. Every chart is a <figure> holding an <svg role="img"> with a <title>, axes with tick labels and
// unit-bearing axis titles, a <figcaption>, and a <table> with the same numbers for readers who cannot see the
// picture. Elements carry classes (bar, point, series, marker) so that tests can count what was drawn.
#pragma once

#include <string>
#include <vector>

namespace modelkit::report {

// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string HtmlEscape(const std::string& text);

struct HistogramBin {
  double from = 0;
  double to = 0;
  size_t count = 0;
};

// Equal-width bins over [min, max] of `values`: ceil(sqrt(n)) of them, at most 30 (one bin when all are equal).
std::vector<HistogramBin> Histogram(const std::vector<double>& values);

struct Axis {
  std::string title;  // with its unit: "latency (ms)"
};

// A histogram: one <rect class="bar" data-count="N"> per bin.
std::string SvgHistogram(const std::string& title, const std::vector<HistogramBin>& bins, const Axis& x, const Axis& y);

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

struct Marker {
  double x = 0;
  std::string label;  // "p50"
};

// Lines through points: one <polyline class="series"> per series and a <circle class="point"> per point (when
// `dots`), with vertical <line class="marker"> at each marker's x.
std::string SvgLineChart(const std::string& title, const std::vector<ChartSeries>& series, const Axis& x, const Axis& y,
                         const std::vector<Marker>& markers = {}, bool dots = true);

struct StackedBar {
  std::string label;          // a stage name
  std::vector<double> parts;  // one per part name, in order
};

// Horizontal bars split into parts ("prompt", "token"): one <rect class="bar part-I"> per non-zero part.
std::string SvgStackedBars(const std::string& title, const std::vector<std::string>& part_names,
                           const std::vector<StackedBar>& bars, const Axis& x);

}  // namespace modelkit::report
