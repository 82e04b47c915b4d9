// Reading a table of a Markdown document, for tests that hold a document to the table in the code it
// documents (problem_codes_test.cc, warning_codes_test.cc).
#ifndef TRIAGE_TESTS_DOC_TABLES_H_
#define TRIAGE_TESTS_DOC_TABLES_H_

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace triage {
namespace doc_tables {

// The lines of the section of `file` under the heading line `heading` (e.g. "## Problem codes") that
// match `row`, each as its groups joined by " | "; *found is false when there is no such heading.
inline std::vector<std::string> SectionRows(const std::string& file, const std::string& heading,
                                            const std::regex& row, bool* found) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const size_t start = doc.find("\n" + heading + "\n");
  *found = start != std::string::npos;
  std::vector<std::string> rows;
  if (!*found) return rows;
  const size_t end = doc.find("\n#", start + 1);
  std::istringstream section(doc.substr(start, end == std::string::npos ? std::string::npos : end - start));
  for (std::string line; std::getline(section, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    std::string joined;
    for (size_t i = 1; i < m.size(); ++i) joined += (i > 1 ? " | " : "") + m[i].str();
    rows.push_back(joined);
  }
  return rows;
}

}  // namespace doc_tables
}  // namespace triage

#endif  // TRIAGE_TESTS_DOC_TABLES_H_
