#include "support/browser.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

// Headless chromium with a throwaway profile and no sandbox (tests may run as root), its own background services
// quiet, every host name unresolvable and every request sent to a closed port: nothing leaves the machine.
std::vector<std::string> Chromium(const TempDir& profile) {
  return {"/usr/bin/chromium",
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--hide-scrollbars",
          "--user-data-dir=" + (profile.path() / "profile").string(),
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--host-resolver-rules=MAP * ~NOTFOUND",
          "--proxy-server=http://127.0.0.1:9"};
}

}  // namespace

nlohmann::json BrowserCensus(const std::filesystem::path& html_file) {
  const TempDir work;
  const std::string url = "file://" + std::filesystem::absolute(html_file).string();
  std::vector<std::string> dump = Chromium(work);
  dump.insert(dump.end(), {"--log-net-log=" + (work.path() / "net.json").string(), "--dump-dom", url});
  const ProcessResult dom = RunProcess(dump);
  EXPECT_EQ(dom.exit_code, 0) << dom.stderr_text;
  EXPECT_NE(dom.stdout_text.find("</html>"), std::string::npos) << "no DOM from chromium: " << dom.stderr_text;
  std::ofstream(work.path() / "dom.html") << dom.stdout_text;

  std::vector<std::string> shot = Chromium(work);
  shot.insert(shot.end(), {"--window-size=1000,1400", "--screenshot=" + (work.path() / "page.png").string(), url});
  const ProcessResult screenshot = RunProcess(shot);
  EXPECT_EQ(screenshot.exit_code, 0) << screenshot.stderr_text;

  const ProcessResult census =
      RunProcess({"/usr/bin/python3", MODELKIT_DOM_CENSUS_SCRIPT, (work.path() / "dom.html").string(),
                  (work.path() / "net.json").string(), (work.path() / "page.png").string()});
  EXPECT_EQ(census.exit_code, 0) << census.stderr_text;
  if (census.exit_code != 0) return nullptr;
  return nlohmann::json::parse(census.stdout_text);
}

}  // namespace modelkit::test
