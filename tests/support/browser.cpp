#include "support/browser.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit::test {

nlohmann::json BrowserCensus(const std::filesystem::path& html_file) {
  const TempDir profile;
  // No sandbox (tests may run as root); a throwaway profile; every host name unresolvable and every request sent
  // to a closed port, so a page that needed the network would show it.
  const ProcessResult dom = RunProcess({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                        "--user-data-dir=" + profile.path().string(),
                                        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
                                        "--dump-dom", "file://" + std::filesystem::absolute(html_file).string()});
  EXPECT_EQ(dom.exit_code, 0) << dom.stderr_text;
  EXPECT_NE(dom.stdout_text.find("</html>"), std::string::npos) << "no DOM from chromium: " << dom.stderr_text;
  const std::filesystem::path dom_file = profile.path() / "dom.html";
  std::ofstream(dom_file) << dom.stdout_text;
  const ProcessResult census =
      RunProcess({"/bin/sh", "-c", "/usr/bin/python3 \"$0\" < \"$1\"", MODELKIT_DOM_CENSUS_SCRIPT, dom_file.string()});
  EXPECT_EQ(census.exit_code, 0) << census.stderr_text;
  if (census.exit_code != 0) return nullptr;
  return nlohmann::json::parse(census.stdout_text);
}

}  // namespace modelkit::test
