/* Diagnoses a log file through triage's C API and prints the JSON report (or the text report with
 * --text). Exit status: 0 a diagnosis was found, 1 none, 2 an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triage_c.h"

static char* read_all(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap);
  size_t got;
  while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char* grown = realloc(buf, cap *= 2);
      if (grown == NULL) free(buf);
      buf = grown;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char** argv) {
  int text = argc == 3 && strcmp(argv[1], "--text") == 0;
  if (argc != 2 + text) {
    fprintf(stderr, "usage: %s [--text] LOG\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  char* log = read_all(argv[1 + text], &len);
  if (log == NULL) {
    fprintf(stderr, "cannot read %s\n", argv[1 + text]);
    return 2;
  }

  triage_rules* rules = NULL;
  char* problems = NULL;
  triage_status st = triage_rules_load(NULL, 0, TRIAGE_LOAD_DEFAULT, &rules, &problems);
  if (problems != NULL) {
    fputs(problems, stderr);
    triage_string_free(problems);
  }
  if (rules == NULL || triage_rules_count(rules) == 0) {
    fprintf(stderr, "no rules loaded (%s)\n", triage_status_name(st));
    free(log);
    triage_rules_free(rules);
    return 2;
  }

  triage_options options;
  triage_options_init(&options);
  options.source = argv[1 + text];
  options.format = text ? TRIAGE_FORMAT_TEXT : TRIAGE_FORMAT_JSON;
  char* report = NULL;
  char* error = NULL;
  st = triage_diagnose(rules, &options, log, len, &report, &error);
  free(log);
  triage_rules_free(rules);
  if (st != TRIAGE_OK) {
    fprintf(stderr, "triage %s: %s\n", triage_version(), error);
    triage_string_free(error);
    return 2;
  }
  fputs(report, stdout);
  int found = text ? strstr(report, "confidence") != NULL : strstr(report, "\"diagnoses\":[]") == NULL;
  triage_string_free(report);
  return found ? 0 : 1;
}
