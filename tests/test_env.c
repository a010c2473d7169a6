/* INETCSUM_IMPL at start-up.  Run as: test_env EXPECTED WARNINGS, where EXPECTED is a kernel name,
 * "best", or "NAME-or-best" (NAME if this CPU runs it, else the best kernel and one warning), and
 * WARNINGS the number of lines expected on stderr (an unusable name warns once, however often the
 * library is used, and already when the library is loaded: a program summing only short buffers
 * hears of it too).  With EXPECTED "crc32c:NAME" or "crc32c:best", the same for
 * INETCSUM_CRC32C_IMPL and the CRC32c kernel; "short" sums one 20-byte header and nothing else.
 * The test runs itself again with stderr in a file,
 * so that what the library says before main is counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inetcsum_proto.h"
#include "testutil.h"

#define EXEC_FAILED 125

/* The second run's stderr lines (printed), and its exit status through *status. */
static int child_stderr_lines(char **argv, int *status)
{
    FILE *cap = tmpfile();
    if (!cap)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(cap), 2);
        setenv("TEST_ENV_CHILD", "1", 1);
        execv(argv[0], argv); /* (ctest gives the full path; under qemu-user, without binfmt, it fails) */
        _exit(EXEC_FAILED);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    rewind(cap);
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, cap)) {
        lines++;
        printf("  stderr: %s", line);
    }
    fclose(cap);
    return lines;
}

static void use_crc32c(void)
{
    static const uint8_t digits[] = "123456789";
    CHECK(inetcsum_crc32c(digits, 9, 0) == 0xE3069283u, "crc32c check value");
    CHECK(inetcsum_crc32c(digits, 9, 0) == 0xE3069283u, "crc32c check value, again");
    inetcsum_crc32c_impl_name();
}

static void use_sum(void)
{
    static uint8_t buf[3000];
    tu_fill_random(buf, sizeof buf);
    CHECK(inetcsum_fold(inetcsum_partial(buf, sizeof buf, 0)) == ref_sum(buf, sizeof buf, 0), "sum"); /* resolves */
    inetcsum_impl_name();
    inetcsum_partial(buf, sizeof buf, 0);
    inetcsum_impl_name();
}

static int crc32c_env(const char *expected)
{
    const char *names[16];
    size_t n = inetcsum_crc32c_impl_list(names, 16);
    CHECK(n > 0 && n <= 16, "crc32c kernels usable: %zu", n);
    use_crc32c();
    const char *want = strcmp(expected, "best") == 0 ? names[0] : expected;
    CHECK(strcmp(inetcsum_crc32c_impl_name(), want) == 0, "INETCSUM_CRC32C_IMPL=%s: active %s, want %s",
          getenv("INETCSUM_CRC32C_IMPL") ? getenv("INETCSUM_CRC32C_IMPL") : "(unset)", inetcsum_crc32c_impl_name(),
          want);
    return tu_finish();
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_env EXPECTED WARNINGS\n");
        return 2;
    }
    tu_init(1, argv, "test_env");
    if (!getenv("TEST_ENV_CHILD")) {
        /* The warnings are counted here, the kernels checked in the second run. */
        int want_warnings = atoi(argv[2]), status = -1;
        const char *suffix = strstr(argv[1], "-or-best");
        if (suffix) {
            const char *names[16];
            size_t n = inetcsum_impl_list(names, 16);
            int usable = 0;
            for (size_t i = 0; i < n && i < 16; i++)
                usable |= strlen(names[i]) == (size_t)(suffix - argv[1]) &&
                          strncmp(names[i], argv[1], (size_t)(suffix - argv[1])) == 0;
            want_warnings = usable ? 0 : 1;
        }
        int lines = child_stderr_lines(argv, &status);
        if (status == EXEC_FAILED) {
            tu_skip("the warnings said when the library loads",
                    "this test cannot run itself again here (an emulator without binfmt): the kernel choice "
                    "is checked in this process instead");
            setenv("TEST_ENV_CHILD", "1", 1); /* and on to the checks below */
        } else {
            CHECK(status == 0, "the second run failed (status %d)", status);
            CHECK(lines == want_warnings, "%d warning lines, want %d", lines, want_warnings);
            return tu_finish();
        }
    }
    if (strcmp(argv[1], "short") == 0) { /* only header-sized sums: no kernel is ever resolved */
        static const uint8_t header[20] = {0x45};
        CHECK(inetcsum_fold(inetcsum_partial(header, 20, 0)) == ref_sum(header, 20, 0), "20-byte sum");
        return tu_finish();
    }
    if (strncmp(argv[1], "crc32c:", 7) == 0)
        return crc32c_env(argv[1] + 7);
    const char *best = ics_select(ics_cpu_features())->name;
    const char *expected = strcmp(argv[1], "best") == 0 ? best : argv[1];
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
    }
    use_sum();
    const char *name = inetcsum_impl_name();
    CHECK(strcmp(name, expected) == 0, "INETCSUM_IMPL=%s: active %s, want %s", getenv("INETCSUM_IMPL") ? getenv("INETCSUM_IMPL") : "(unset)",
          name, expected);
    return tu_finish();
}
