// Note: [HTML entities in a paste] (html_entities.h): a paste whose head shows its markup characters as
// HTML entities is read decoded.
#include "log/html_entities.h"

#include "log/utf16_input.h"

#include <cstdint>
#include <cstring>

namespace triage {
namespace {

struct Named {
  std::string_view entity;
  std::string_view text;
};

constexpr Named kNamed[] = {{"&quot;", "\""}, {"&apos;", "'"}, {"&lt;", "<"},
                            {"&gt;", ">"},    {"&amp;", "&"},  {"&nbsp;", "\xc2\xa0"}};

// The length of the entity at the start of `s` (which starts with '&') and its text in *out; 0 when
// `s` starts with none.
size_t DecodeOne(std::string_view s, std::string* out) {
  for (const Named& n : kNamed) {
    if (s.substr(0, n.entity.size()) == n.entity) {
      out->append(n.text);
      return n.entity.size();
    }
  }
  if (s.size() < 4 || s[1] != '#') return 0;
  const bool hex = s[2] == 'x' || s[2] == 'X';
  size_t i = hex ? 3 : 2;
  std::uint32_t cp = 0;
  const size_t first = i;
  for (; i < s.size() && i < 10; ++i) {
    const char c = s[i];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) break;
    cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
    if (cp > 0x10FFFF) return 0;
  }
  if (i == first || i >= s.size() || s[i] != ';') return 0;
  if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  AppendUtf8(cp, out);
  return i + 1;
}

}  // namespace

HtmlEntities HtmlEntities::Detect(std::string_view head) {
  HtmlEntities h;
  if (std::memchr(head.data(), '&', head.size()) == nullptr) return h;
  if (head.find('<') != std::string_view::npos || head.find('>') != std::string_view::npos) return h;
  for (std::string_view e : {"&quot;", "&#39;", "&#x27;", "&apos;", "&lt;", "&gt;", "&amp;", "&#34;"}) {
    if (head.find(e) != std::string_view::npos) {
      h.active_ = true;
      break;
    }
  }
  return h;
}

std::string HtmlEntities::Decode(std::string_view text) {
  HtmlEntities h;
  std::string out;
  h.Feed(text, &out);
  h.Finish(&out);
  return out;
}

void HtmlEntities::Feed(std::string_view data, std::string* out) {
  std::string joined;
  if (!carry_.empty()) {
    joined = carry_;
    joined.append(data);
    carry_.clear();
    data = joined;
  }
  out->reserve(out->size() + data.size());
  size_t at = 0;
  while (at < data.size()) {
    const void* amp = std::memchr(data.data() + at, '&', data.size() - at);
    if (amp == nullptr) {
      out->append(data.substr(at));
      return;
    }
    const size_t a = static_cast<size_t>(static_cast<const char*>(amp) - data.data());
    out->append(data.substr(at, a - at));
    const std::string_view rest = data.substr(a);
    if (const size_t n = DecodeOne(rest, out); n > 0) {
      at = a + n;
      continue;
    }
    // An entity the end of `data` may have cut: wait for the rest.
    if (rest.size() < kLongestEntity && rest.find_first_of("; \t\n") == std::string_view::npos) {
      carry_.assign(rest);
      return;
    }
    out->push_back('&');
    at = a + 1;
  }
}

}  // namespace triage
