#include "diagnose/similar_case.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

#include "rules/rule.h"

namespace triage {

// Note: [Similar known case] An error whose wording no rule knows, raised where no frame row decides,
// may still read like an error the corpus holds: the same library's words around another tensor's
// sizes, another user's names. Ranking step 10 (rules/README.md) compares its words with the primary
// errors of every case of our split and the wild tuning split (rules/similar/cases.tsv, written by
// `triage rules similar-index corpus`, which never enters corpus/heldout/) and, when the nearest case
// is near enough, answers that case's label: one diagnosis at kSimilarCaseConfidence whose explanation
// names the case, the thread it came from and the words they share.
//
// Words, not patterns: the class and the message's words, with what is the user's rather than the
// library's left out (numbers, sizes, addresses, directories), each word weighed by how
// rare it is among the known cases (IDF), compared by cosine. A row needs two shared message words
// besides the class: an error that shares only "RuntimeError" and one word is not similar.
//
// Measured, not chosen: `triage eval corpus` reads every ours and wild tuning case as if no rule had
// matched, finds its nearest case leaving out the case itself and every case from the same thread
// (its `source:`; otherwise a case would be answered from its own label), and prints, per band of
// similarity, how often the nearest case's label was accepted. A band speaks only where that was >= 85%
// over >= 10 cases (CorpusEval.EverySpeakingSimilarBandIsRightOftenEnough); the rest stay silent. The
// confidence is low for the reason frame evidence's is (Note: [Frame evidence]): the bands were measured
// on errors a rule also knows, and an unknown wording is another population.
namespace {

bool IsWordChar(unsigned char c) { return std::isalnum(c) || c == '_'; }

bool IsHexWord(const std::string& w) {
  if (w.size() > 2 && w[0] == '0' && w[1] == 'x') return true;
  if (w.size() < 6) return false;
  bool digit = false;
  for (char c : w) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
  }
  return digit;
}

constexpr size_t kMessageBytes = 600;
constexpr int kMinSharedWords = 2;

}  // namespace

std::vector<std::string> SimilarWords(const std::string& exception, const std::string& message) {
  std::vector<std::string> out;
  auto add = [&](std::string w) {
    while (!w.empty() && w.front() == '_') w.erase(w.begin());
    while (!w.empty() && w.back() == '_') w.pop_back();
    if (w.size() < 2 || std::isdigit(static_cast<unsigned char>(w[0])) || IsHexWord(w)) return;
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(std::move(w));
  };
  if (!exception.empty()) {
    std::string cls = exception.substr(exception.find_last_of('.') == std::string::npos ? 0 : exception.find_last_of('.') + 1);
    for (char& c : cls) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!cls.empty()) out.push_back("class:" + cls);
  }
  std::string text = message.substr(0, kMessageBytes);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Quotes are separators: what they hold is kept. Dropping it (user names: keys, variables) was
  // measured worse (2026-11-30, bands 0.8-0.9 and 0.9-1.0 right 88.0% and 89.4% against 90.5% and 93.2%
  // kept): the quotes also hold the library's words, an op's name, a dtype, a module ('torch._six'), and a
  // user's name shared by no other case only lowers the similarity (it weighs in the query's length).
  std::string kept = text;
  for (char& c : kept) {
    if (c == '\'' || c == '"' || c == '`') c = ' ';
  }
  // Paths: a run of non-space characters holding a separator keeps only what follows its last one.
  size_t i = 0;
  while (i < kept.size()) {
    while (i < kept.size() && std::isspace(static_cast<unsigned char>(kept[i]))) ++i;
    size_t j = i;
    while (j < kept.size() && !std::isspace(static_cast<unsigned char>(kept[j]))) ++j;
    std::string chunk = kept.substr(i, j - i);
    const size_t sep = chunk.find_last_of("/\\");
    if (sep != std::string::npos) chunk = chunk.substr(sep + 1);
    std::string word;
    for (char c : chunk) {
      if (IsWordChar(static_cast<unsigned char>(c))) {
        word += c;
      } else if (!word.empty()) {
        add(std::move(word));
        word.clear();
      }
    }
    if (!word.empty()) add(std::move(word));
    i = j;
  }
  return out;
}

bool ParseSimilarIndex(const std::string& text, SimilarIndex* index, std::string* error) {
  *index = SimilarIndex();
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
      fields.push_back(line.substr(start, tab - start));
    }
    fields.push_back(line.substr(start));
    if (fields.size() != 4 || fields[0].empty() || fields[1].empty()) {
      *error = "line " + std::to_string(number) + ": expected case, category, source, words (tab-separated)";
      return false;
    }
    SimilarRow row;
    row.case_path = fields[0];
    row.category = fields[1];
    row.source = fields[2] == "-" ? "" : fields[2];
    std::istringstream words(fields[3]);
    for (std::string w; words >> w;) {
      auto [it, added] = index->word_ids.emplace(w, static_cast<int>(index->words.size()));
      if (added) index->words.push_back(w);
      row.words.push_back(it->second);
    }
    std::sort(row.words.begin(), row.words.end());
    row.words.erase(std::unique(row.words.begin(), row.words.end()), row.words.end());
    index->rows.push_back(std::move(row));
  }
  const double n = static_cast<double>(index->rows.size());
  std::vector<int> df(index->words.size(), 0);
  index->postings.assign(index->words.size(), {});
  for (size_t r = 0; r < index->rows.size(); ++r) {
    for (int w : index->rows[r].words) {
      ++df[static_cast<size_t>(w)];
      index->postings[static_cast<size_t>(w)].push_back(static_cast<int>(r));
    }
  }
  index->idf.resize(df.size());
  for (size_t w = 0; w < df.size(); ++w) index->idf[w] = std::log((n + 1) / (df[w] + 1));
  index->unseen_idf = std::log(n + 1);
  for (SimilarRow& row : index->rows) {
    double sum = 0;
    for (int w : row.words) sum += index->idf[static_cast<size_t>(w)] * index->idf[static_cast<size_t>(w)];
    row.norm = std::sqrt(sum);
  }
  return true;
}

const SimilarIndex* BundledSimilarIndex() {
  static std::once_flag once;
  static std::unique_ptr<SimilarIndex> index;
  std::call_once(once, [] {
    std::ifstream in(BundledRulesDir() + "/similar/cases.tsv", std::ios::binary);
    if (!in) return;
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = std::make_unique<SimilarIndex>();
    std::string error;
    if (ParseSimilarIndex(text.str(), parsed.get(), &error)) index = std::move(parsed);
  });
  return index.get();
}

namespace {

bool LeftOut(const SimilarRow& row, const std::vector<std::string>& leave_out) {
  for (const std::string& e : leave_out) {
    if (e.empty()) continue;
    if (e == row.source || e == row.case_path) return true;
    if (e.size() > row.case_path.size() && e.compare(e.size() - row.case_path.size(), row.case_path.size(), row.case_path) == 0 &&
        e[e.size() - row.case_path.size() - 1] == '/') {
      return true;
    }
  }
  return false;
}

}  // namespace

SimilarReading ReadSimilarCase(const SimilarIndex& index, const std::vector<std::string>& words,
                               const std::vector<std::string>& leave_out) {
  SimilarReading reading;
  std::vector<int> ids;
  double query = 0;
  for (const std::string& w : words) {
    auto it = index.word_ids.find(w);
    const double idf = it == index.word_ids.end() ? index.unseen_idf : index.idf[static_cast<size_t>(it->second)];
    query += idf * idf;
    if (it != index.word_ids.end()) ids.push_back(it->second);
  }
  if (ids.empty() || query <= 0) return reading;
  std::vector<double> dot(index.rows.size(), 0);
  std::vector<int> shared(index.rows.size(), 0);  // shared message words (the class not counted)
  for (int w : ids) {
    const double idf = index.idf[static_cast<size_t>(w)];
    const bool is_class = index.words[static_cast<size_t>(w)].rfind("class:", 0) == 0;
    for (int r : index.postings[static_cast<size_t>(w)]) {
      dot[static_cast<size_t>(r)] += idf * idf;
      shared[static_cast<size_t>(r)] += !is_class;
    }
  }
  int best = -1;
  double best_score = 0;
  for (size_t r = 0; r < index.rows.size(); ++r) {
    if (shared[r] < kMinSharedWords || index.rows[r].norm <= 0) continue;
    const double score = dot[r] / (std::sqrt(query) * index.rows[r].norm);
    if (score > best_score + 1e-12 && !LeftOut(index.rows[r], leave_out)) {
      best = static_cast<int>(r);
      best_score = score;
    }
  }
  if (best < 0) return reading;
  reading.row = &index.rows[static_cast<size_t>(best)];
  reading.score = std::min(1.0, best_score);
  std::vector<std::pair<double, std::string>> common;
  for (int w : ids) {
    if (std::binary_search(reading.row->words.begin(), reading.row->words.end(), w)) {
      common.emplace_back(index.idf[static_cast<size_t>(w)], index.words[static_cast<size_t>(w)]);
    }
  }
  std::stable_sort(common.begin(), common.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; k < common.size() && k < 6; ++k) reading.shared.push_back(common[k].second);
  return reading;
}

const std::vector<SimilarBand>& SimilarBands() {
  // Which bands speak is the measurement of `triage eval corpus` (rules/README.md "Similar known case").
  // 0.8-0.9 and 0.9-1.0 clear the 85% bar (2026-11-30: 76 of 84, 658 of 706). 0.9-1.0 speaks: on the
  // cut-paste forms it added about ten kept answers for each wrong one (rules/README.md); 0.8-0.9 with it
  // raised the wrong answers of 7 forms over their ceilings, so it stays silent.
  static const std::vector<SimilarBand> bands = {
      {0.2, 0.3, false}, {0.3, 0.4, false}, {0.4, 0.5, false}, {0.5, 0.6, false},
      {0.6, 0.7, false}, {0.7, 0.8, false}, {0.8, 0.9, false}, {0.9, 1.01, true},
  };
  return bands;
}

int SimilarBandOf(double score) {
  const std::vector<SimilarBand>& bands = SimilarBands();
  for (size_t b = 0; b < bands.size(); ++b) {
    if (score >= bands[b].low && score < bands[b].high) return static_cast<int>(b);
  }
  return -1;
}

std::vector<std::string> SimilarWordsOf(const std::vector<Incident>& incidents, int primary) {
  if (primary < 0 || primary >= static_cast<int>(incidents.size())) return {};
  const Incident& inc = incidents[static_cast<size_t>(primary)];
  if (inc.CutBeforeExceptionLine() || inc.message.empty()) return {};
  return SimilarWords(inc.exception, inc.message);
}

Diagnosis SimilarCaseDiagnosis(const SimilarReading& reading, int incident) {
  const SimilarRow& row = *reading.row;
  const std::string name = row.case_path.substr(row.case_path.find_last_of('/') + 1);
  const std::string where = row.source.empty() ? "corpus/" + row.case_path : row.source;
  std::string words;
  for (size_t k = 0; k < reading.shared.size(); ++k) {
    std::string w = reading.shared[k];
    if (w.rfind("class:", 0) == 0) w = "the class " + w.substr(6);
    words += (k == 0 ? "" : k + 1 == reading.shared.size() ? " and " : ", ") + w;
  }
  char score[16];
  std::snprintf(score, sizeof score, "%.2f", reading.score);
  Diagnosis d;
  d.rule = "similar:" + name;
  d.category = row.category;
  d.confidence = kSimilarCaseConfidence;
  d.title = CategoryTitle(row.category);
  d.incident = incident;
  d.captures["similar_case"] = row.case_path;
  d.captures["source"] = where;
  d.captures["similarity"] = score;
  d.explanation = "No rule knows this error's wording and its frames name no category; its words are closest to "
                  "a known case's (" + where + "), whose cause was " + row.category + ". They share " + words +
                  " (similarity " + score + "). The category comes from that case, not from this message: treat "
                  "it as a lead to check, not a finding.";
  d.ranking = "Read from the most similar known case (Ranking step 10): no rule matched this error, and "
              "answers this similar were right in most measured cases.";
  Hypothesis h;
  h.id = "similar-case";
  h.text = "This error reads like the known case " + where + ", whose cause was " + row.category + " (" + d.title + ").";
  h.test = "Read " + where + " and compare its error, and the cause found there, with this run.";
  h.fix = "The fixes of that category's rules apply if the cause is the same: triage explain " + row.category;
  d.hypotheses.push_back(std::move(h));
  d.checks.push_back("triage explain " + row.category + "  # the rules of this category: their checks and fixes");
  d.verify = "The run gets past the step that raised this error.";
  return d;
}

}  // namespace triage
