// Note: [Compose service prefixes]
// Docker Compose (`docker compose up`, `docker compose logs`, and docker-compose 1.x before it) writes
// every line a service's container prints behind the container's name, padded with blanks so that the
// bars of all the services line up, then "| ": "qna-transformers_1  |   File \"...\", line 170, in
// _lazy_init" (1.x names, service_N), "webui-docker-auto-1  | Mounted .cache" (2.x), "openedai-images-flux
// | RuntimeError: ..." (a container_name). Pasted so, a traceback was no traceback: its header, frames
// and exception line all started with the name, the frames were lost and a rule's hit became a log line
// that named no type (corpus/wild/device/weaviate-1736-...). A line of ordinary output can start the
// same way (a table's "Epoch  | Loss"), so, as srun's labels are (Note: [Srun labels]), the prefix is
// removed only once the input has shown it before a traceback header, a frame line or an exception line;
// from then on from every line whose bar stands at the column of that line's (Compose aligns them all),
// each line carrying its service as its rank (Note: [Streams] in segmenter.cc), so that the lines of
// two services that land between each other's traceback lines are told apart.
// Note: [Compose runs]. A service that fails without a traceback (the kernel's "Killed", a native crash's
// "Segmentation fault", a metric run that diverged) never showed its prefix so, and its lines kept their
// names: a rule written for a line's start, or a reader of a line's first column (an epoch table, a CSV
// row, a tutorial's progress line), missed them. So the prefix is shown as well by a name Compose gave
// the container itself, the project's and the service's names and the replica's number after '_' (1.x)
// or '-' (2.x), all in small letters ("trainer_1", "webui-docker-auto-1"), and, for a name set in the
// file (container_name), by two lines in a row behind the same service, its bar at the same column,
// where the name has no capital letter: Compose's project names are in small letters (v2 refuses
// others), while a table's header or a logger's level written before a bar ("Epoch  | Loss",
// "INFO     | ") has capitals, and a table's rows start with their numbers, never with one repeated
// word. Metric extraction keeps its own state of the same kind (it reads the raw lines, metrics.cc),
// so a compose-prefixed run's series read as they do without the prefix (tests/line_prefix_test.cc's
// Compose instances). A name is a container's:
// letters, digits, '_', '-' and '.', starting with a letter or digit and holding a letter, at most
// kMaxName bytes, then at least one blank, the bar, and a blank or the line's end.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_COMPOSE_PREFIX_H_
#define TRIAGE_ENGINE_LOG_FORMATS_COMPOSE_PREFIX_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class ComposePrefixReader {
 public:
  static constexpr size_t kMaxName = 64;

  // `line` hook: removes a Compose service prefix from *line, once the input shows them, and sets the
  // line's rank to the service.
  static bool LineHook(Segmenter& s, std::string* line);
  // The length of a service prefix at the start of `line` with the blank after its bar (0 when none),
  // the service's name in *service and the bar's column in *bar.
  static size_t Prefix(std::string_view line, std::string_view* service, size_t* bar);
  // The length of the service prefix to remove from `line`, the lines before it seen (0 when it has
  // none, or the input has not shown Compose's prefixes yet: Note: [Compose runs]), with its service in
  // *service.
  size_t Strip(std::string_view line, std::string_view* service);

 private:
  bool shown_ = false;  // the input has shown Compose's prefixes
  size_t bar_ = 0;      // the column of their bar
  std::string last_;    // before they are shown: the service of the line before, if it had one
  size_t last_bar_ = 0;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_COMPOSE_PREFIX_H_
