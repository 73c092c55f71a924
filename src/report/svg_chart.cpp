#include "svg_chart.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "modelkit/report/duration_text.h"

namespace modelkit::report {
namespace {

// The plot area inside a chart of kWidth x kHeight.
constexpr double kWidth = 640;
constexpr double kHeight = 300;
constexpr double kLeft = 72;
constexpr double kRight = 20;
constexpr double kTop = 16;
constexpr double kBottom = 52;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

std::string Number(double value) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << value;
  return out.str();
}

// Tick positions at 1, 2 or 5 times a power of ten, about five over [low, high].
std::vector<double> NiceTicks(double low, double high) {
  if (!(high > low)) return {low};
  const double raw = (high - low) / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double tick = std::ceil(low / step) * step; tick <= high + step * 1e-9; tick += step) ticks.push_back(tick);
  return ticks;
}

struct Scale {
  double low = 0;
  double high = 1;
  double Map(double value, double length) const { return (value - low) / (high - low) * length; }
};

Scale ScaleOf(double low, double high) {
  if (!(high > low)) return {low - 1, low + 1};
  return {low, high};
}

std::string Tick(double value) { return SignificantText(value, 3); }

// A tick label with as many decimals as the tick step needs: 0, 0.5, 1.0 or 0, 2, 4, never "2.00".
std::string TickText(double value, const std::vector<double>& ticks) {
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0;
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  std::ostringstream out;
  out << std::fixed << std::setprecision(decimals) << value;
  return out.str();
}

// The frame every chart shares: the <figure>, <svg> with its title, the axes with ticks and titles.
class Chart {
 public:
  Chart(const std::string& title, const Scale& x, const Scale& y, const Axis& x_axis, const Axis& y_axis,
        bool y_ticks = true)
      : title_(title), x_(x), y_(y) {
    out_ << "<figure class=\"chart\">\n<svg role=\"img\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" width=\""
         << kWidth << "\" height=\"" << kHeight << "\"><title>" << HtmlEscape(title) << "</title>\n";
    out_ << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop + kPlotHeight << "\" x2=\""
         << kLeft + kPlotWidth << "\" y2=\"" << kTop + kPlotHeight << "\"/>\n";
    out_ << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\""
         << kTop + kPlotHeight << "\"/>\n";
    const std::vector<double> x_ticks = NiceTicks(x.low, x.high);
    for (double tick : x_ticks) {
      const double px = kLeft + x.Map(tick, kPlotWidth);
      out_ << "<text class=\"tick\" x=\"" << Number(px) << "\" y=\"" << kTop + kPlotHeight + 16
           << "\" text-anchor=\"middle\">" << TickText(tick, x_ticks) << "</text>\n";
    }
    if (y_ticks) {
      const std::vector<double> y_tick_values = NiceTicks(y.low, y.high);
      for (double tick : y_tick_values) {
        const double py = kTop + kPlotHeight - y.Map(tick, kPlotHeight);
        out_ << "<text class=\"tick\" x=\"" << kLeft - 6 << "\" y=\"" << Number(py + 4) << "\" text-anchor=\"end\">"
             << TickText(tick, y_tick_values) << "</text>\n";
      }
    }
    out_ << "<text class=\"axis-title\" x=\"" << kLeft + kPlotWidth / 2 << "\" y=\"" << kHeight - 10
         << "\" text-anchor=\"middle\">" << HtmlEscape(x_axis.title) << "</text>\n";
    out_ << "<text class=\"axis-title\" transform=\"translate(16 " << kTop + kPlotHeight / 2
         << ") rotate(-90)\" text-anchor=\"middle\">" << HtmlEscape(y_axis.title) << "</text>\n";
  }

  // A legend in the plot's top right corner: a swatch of each name's class and the name.
  void Legend(const std::vector<std::string>& names, const std::string& class_prefix) {
    for (size_t i = 0; i < names.size(); ++i) {
      const double y = kTop + 4 + 14 * static_cast<double>(i);
      out_ << "<rect class=\"legend " << class_prefix << i % 8 << "\" x=\"" << kLeft + kPlotWidth - 130 << "\" y=\""
           << y << "\" width=\"10\" height=\"10\"/><text class=\"tick\" x=\"" << kLeft + kPlotWidth - 115 << "\" y=\""
           << y + 9 << "\">" << HtmlEscape(names[i]) << "</text>\n";
    }
  }

  double X(double value) const { return kLeft + x_.Map(value, kPlotWidth); }
  double Y(double value) const { return kTop + kPlotHeight - y_.Map(value, kPlotHeight); }
  std::ostringstream& out() { return out_; }

  // Closes the picture and adds its caption and the table with the same numbers.
  std::string Finish(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    out_ << "</svg>\n<figcaption>" << HtmlEscape(title_) << "</figcaption>\n<details><summary>Data</summary>"
         << "<table class=\"data\"><thead><tr>";
    for (const std::string& cell : header) out_ << "<th>" << HtmlEscape(cell) << "</th>";
    out_ << "</tr></thead><tbody>\n";
    for (const auto& row : rows) {
      out_ << "<tr>";
      for (const std::string& cell : row) out_ << "<td>" << HtmlEscape(cell) << "</td>";
      out_ << "</tr>\n";
    }
    out_ << "</tbody></table></details>\n</figure>\n";
    return out_.str();
  }

 private:
  std::string title_;
  Scale x_;
  Scale y_;
  std::ostringstream out_;
};

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<HistogramBin> Histogram(const std::vector<double>& values) {
  if (values.empty()) return {};
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  if (*low == *high) return {{*low, *high, values.size()}};
  const size_t count = std::min<size_t>(30, static_cast<size_t>(std::ceil(std::sqrt(values.size()))));
  const double width = (*high - *low) / static_cast<double>(count);
  std::vector<HistogramBin> bins(count);
  for (size_t i = 0; i < count; ++i) {
    bins[i].from = *low + width * static_cast<double>(i);
    bins[i].to = i + 1 == count ? *high : *low + width * static_cast<double>(i + 1);
  }
  for (double value : values) {
    const auto index = std::min(count - 1, static_cast<size_t>((value - *low) / width));
    ++bins[index].count;
  }
  return bins;
}

std::string SvgHistogram(const std::string& title, const std::vector<HistogramBin>& bins, const Axis& x,
                         const Axis& y) {
  size_t most = 1;
  for (const HistogramBin& bin : bins) most = std::max(most, bin.count);
  const double low = bins.empty() ? 0 : bins.front().from;
  const double high = bins.empty() ? 1 : bins.back().to;
  Chart chart(title, ScaleOf(low, high), ScaleOf(0, static_cast<double>(most)), x, y);
  std::vector<std::vector<std::string>> rows;
  for (const HistogramBin& bin : bins) {
    // A single-valued histogram draws one bar across the whole axis.
    const double left = bins.size() == 1 ? chart.X(low - 1) : chart.X(bin.from);
    const double right = bins.size() == 1 ? chart.X(low + 1) : chart.X(bin.to);
    const double top = chart.Y(static_cast<double>(bin.count));
    chart.out() << "<rect class=\"bar\" data-count=\"" << bin.count << "\" x=\"" << Number(left) << "\" y=\""
                << Number(top) << "\" width=\"" << Number(std::max(1.0, right - left - 1)) << "\" height=\""
                << Number(chart.Y(0) - top) << "\"><title>" << Tick(bin.from) << " to " << Tick(bin.to) << ": "
                << bin.count << "</title></rect>\n";
    rows.push_back({Tick(bin.from), Tick(bin.to), std::to_string(bin.count)});
  }
  return chart.Finish({"from", "to", "count"}, rows);
}

std::string SvgLineChart(const std::string& title, const std::vector<ChartSeries>& series, const Axis& x, const Axis& y,
                         const std::vector<Marker>& markers, bool dots) {
  double x_low = 0, x_high = 1, y_low = 0, y_high = 1;
  bool first = true;
  for (const ChartSeries& s : series) {
    for (const auto& [px, py] : s.points) {
      x_low = first ? px : std::min(x_low, px);
      x_high = first ? px : std::max(x_high, px);
      y_high = first ? py : std::max(y_high, py);
      first = false;
    }
  }
  y_low = 0;
  Chart chart(title, ScaleOf(x_low, x_high), ScaleOf(y_low, y_high), x, y);
  std::vector<std::vector<std::string>> rows;
  for (size_t index = 0; index < series.size(); ++index) {
    const ChartSeries& s = series[index];
    chart.out() << "<polyline class=\"series series-" << index % 8 << "\" data-name=\"" << HtmlEscape(s.name)
                << "\" points=\"";
    for (const auto& [px, py] : s.points) chart.out() << Number(chart.X(px)) << "," << Number(chart.Y(py)) << " ";
    chart.out() << "\"/>\n";
    for (const auto& [px, py] : s.points) {
      if (dots) {
        chart.out() << "<circle class=\"point series-" << index % 8 << "\" cx=\"" << Number(chart.X(px)) << "\" cy=\""
                    << Number(chart.Y(py)) << "\" r=\"2.5\"/>\n";
      }
      rows.push_back({s.name, Tick(px), Tick(py)});
    }
  }
  if (series.size() > 1 && series.size() <= 8) {
    std::vector<std::string> names;
    for (const ChartSeries& s : series) names.push_back(s.name);
    chart.Legend(names, "series-");
  }
  for (const Marker& marker : markers) {
    const double px = chart.X(marker.x);
    chart.out() << "<line class=\"marker\" x1=\"" << Number(px) << "\" y1=\"" << kTop << "\" x2=\"" << Number(px)
                << "\" y2=\"" << kTop + kPlotHeight << "\"/><text class=\"marker-label\" x=\"" << Number(px + 3)
                << "\" y=\"" << kTop + 12 << "\">" << HtmlEscape(marker.label) << "</text>\n";
  }
  return chart.Finish({"series", x.title, y.title}, rows);
}

std::string SvgStackedBars(const std::string& title, const std::vector<std::string>& part_names,
                           const std::vector<StackedBar>& bars, const Axis& x) {
  double longest = 0;
  for (const StackedBar& bar : bars) {
    double total = 0;
    for (double part : bar.parts) total += part;
    longest = std::max(longest, total);
  }
  Chart chart(title, ScaleOf(0, longest > 0 ? longest : 1), ScaleOf(0, static_cast<double>(bars.size())), x, Axis{""},
              /*y_ticks=*/false);
  const double band = kPlotHeight / static_cast<double>(std::max<size_t>(1, bars.size()));
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < bars.size(); ++i) {
    const double top = kTop + band * static_cast<double>(i) + band * 0.15;
    chart.out() << "<text class=\"tick\" x=\"" << kLeft - 6 << "\" y=\"" << Number(top + band * 0.4)
                << "\" text-anchor=\"end\">" << HtmlEscape(bars[i].label) << "</text>\n";
    double start = 0;
    std::vector<std::string> row = {bars[i].label};
    for (size_t p = 0; p < bars[i].parts.size(); ++p) {
      const double part = bars[i].parts[p];
      row.push_back(Tick(part));
      if (part <= 0) continue;
      chart.out() << "<rect class=\"bar part-" << p << "\" x=\"" << Number(chart.X(start)) << "\" y=\"" << Number(top)
                  << "\" width=\"" << Number(chart.X(start + part) - chart.X(start)) << "\" height=\""
                  << Number(band * 0.7) << "\"><title>" << HtmlEscape(bars[i].label) << " "
                  << HtmlEscape(p < part_names.size() ? part_names[p] : "") << ": " << Tick(part)
                  << "</title></rect>\n";
      start += part;
    }
    rows.push_back(row);
  }
  chart.Legend(part_names, "part-");
  std::vector<std::string> header = {""};
  header.insert(header.end(), part_names.begin(), part_names.end());
  return chart.Finish(header, rows);
}

}  // namespace modelkit::report
