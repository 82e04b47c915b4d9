// Note: [HTML entities in a paste]
// Some pages store a pasted log as HTML text and hand it back with its markup characters as entities:
// `File &quot;train.py&quot;, line 3`, `not implemented for &#39;Half&#39;`, `[00:01&lt;00:30]`,
// `{&#39;loss&#39;: 0.69}` (a forum's export, a scraped issue, a copy from a page's source, an e-mail
// client's HTML part). Every rule, every format reader and metric extraction read the characters
// PyTorch prints, so such a paste lost its diagnosis in 230 of the 777 corpus logs with a diagnosis that
// hold one of the five characters (tests/paste_forms_test.cc). Decoding is an input-wide decision,
// taken from the input's head (the lines a session holds to look for a hard wrap: Note: [Hard-wrapped
// pastes] in hard_wrap.h), since a page encodes the whole paste alike: the head holds one of the
// entities of the five characters (&quot; &#39; &#x27; &apos; &lt; &gt; &amp;, also &#34;) and none
// of '<', '>' as they are. Then every byte of the input is read decoded, before the hard-wrap check,
// metric extraction and the segmenter: those entities, &nbsp; (as U+00A0, which the segmenter reads as a
// space: Note: [Typographic characters] in formats/text.h) and numeric references (&#NNN; &#xHH;) to any
// code point but NUL and the surrogates, each once (&amp;lt; is "&lt;"). Lines keep their numbers.
// Every other input pays a few searches of its head for '&'.
//
// Not read: a paste whose head holds none of those characters (200 lines of numbers before the first
// quote), or one that holds raw '<' or '>' next to entities (a log that prints HTML).
#ifndef TRIAGE_ENGINE_LOG_HTML_ENTITIES_H_
#define TRIAGE_ENGINE_LOG_HTML_ENTITIES_H_

#include <string>
#include <string_view>

namespace triage {

class HtmlEntities {
 public:
  // What `head` shows; `active()` is false for an input read as it is.
  static HtmlEntities Detect(std::string_view head);

  bool active() const { return active_; }

  // Appends `data` to *out decoded; an entity cut by the end of `data` waits for the next call.
  void Feed(std::string_view data, std::string* out);
  // Appends what waits (an unfinished entity, passed on as it is).
  void Finish(std::string* out) const { out->append(carry_); }

  // `text` decoded, with nothing held back (for the head's own decisions).
  static std::string Decode(std::string_view text);

 private:
  static constexpr size_t kLongestEntity = 10;  // "&#x10FFFF;"

  bool active_ = false;
  std::string carry_;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_HTML_ENTITIES_H_
