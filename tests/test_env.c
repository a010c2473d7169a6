/* INETCSUM_IMPL at start-up.  Run as: test_env EXPECTED WARNINGS, where EXPECTED is a kernel name,
 * "best", or "NAME-or-best" (NAME if this CPU runs it, else the best kernel and one warning), and
 * WARNINGS the number of lines expected on stderr (an unusable name warns once, however often the
 * library is used). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_env EXPECTED WARNINGS\n");
        return 2;
    }
    tu_init(1, argv, "test_env");
    const char *best = ics_select(ics_cpu_features())->name;
    const char *expected = strcmp(argv[1], "best") == 0 ? best : argv[1];
    int want_warnings = atoi(argv[2]);
    char name_only[64];
    const char *suffix = strstr(argv[1], "-or-best");
    if (suffix && (size_t)(suffix - argv[1]) < sizeof name_only) {
        memcpy(name_only, argv[1], (size_t)(suffix - argv[1]));
        name_only[suffix - argv[1]] = '\0';
        const char *names[16];
        size_t n = inetcsum_impl_list(names, 16);
        int usable = 0;
        for (size_t i = 0; i < n && i < 16; i++)
            usable |= strcmp(names[i], name_only) == 0;
        expected = usable ? name_only : best;
        want_warnings = usable ? 0 : 1;
    }

    /* Capture stderr before the library's first call. */
    FILE *cap = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(cap), 2);

    uint8_t buf[3000];
    tu_fill_random(buf, sizeof buf);
    uint16_t got = inetcsum_fold(inetcsum_partial(buf, sizeof buf, 0)); /* first call resolves */
    const char *name = inetcsum_impl_name();
    inetcsum_partial(buf, sizeof buf, 0);
    inetcsum_impl_name();

    fflush(stderr);
    dup2(saved, 2);
    rewind(cap);
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, cap)) {
        lines++;
        printf("  stderr: %s", line);
    }
    CHECK(strcmp(name, expected) == 0, "INETCSUM_IMPL=%s: active %s, want %s", getenv("INETCSUM_IMPL") ? getenv("INETCSUM_IMPL") : "(unset)",
          name, expected);
    CHECK(lines == want_warnings, "%d warning lines, want %d", lines, want_warnings);
    CHECK(got == ref_sum(buf, sizeof buf, 0), "sum with %s", name);
    return tu_finish();
}
