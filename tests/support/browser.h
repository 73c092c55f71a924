// Checking HTML in a real browser: Debian's chromium, headless, with networking disabled, loads a file; the DOM it
// built, the requests the page made (its net log) and a screenshot are summed up by tests/support/dom_census.py.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

namespace modelkit::test {

// The census of `html_file` as chromium parsed it (see dom_census.py for the fields). Fails the test (and returns
// null) when chromium or the census fails.
nlohmann::json BrowserCensus(const std::filesystem::path& html_file);

}  // namespace modelkit::test
