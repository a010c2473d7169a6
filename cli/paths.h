/* The captures a command was given: files as named, directories read for the captures in them (-r). */
#ifndef ICS_CLI_PATHS_H
#define ICS_CLI_PATHS_H

#include <stddef.h>

struct path_list {
    char **paths; /* each malloc'd */
    size_t n, cap;
    int errors;   /* paths that could not be read (said on stderr) */
    /* ... each by name, with why, for the JSON's summary objects (nfailed may be short of errors
     * only when memory ran out) */
    struct path_failed {
        char *path, *why;
    } *failed;
    size_t nfailed, failed_cap;
    /* A directory not to read (fix -r's OUT_DIR inside its IN_DIR), by identity; 0 0: none. */
    unsigned long long skip_dev, skip_ino;
};

/* Adds each argument: a file (or "-") as given; a directory, with recursive, every capture below
 * it in name order (a name ending in .pcap, .pcapng, .cap or .ntar, with or without .gz, .zst or
 * .xz; or a file that starts with a pcap or pcapng magic number), without following links to
 * directories; without recursive a directory is an error.  What a directory
 * held that is not a capture is counted and said, never read.  Messages start with the path, as
 * every other message about a file does. */
void paths_expand(struct path_list *l, char *const *args, int nargs, int recursive);
void paths_free(struct path_list *l);
/* Makes the folders a file's path names, as mkdir -p its dirname does: 0, or -1 with the reason
 * said. */
int paths_make_parents(const char *path);

#endif
